package cassandrastore

import "fmt"

// snsQueries are the CQL statements of the SNS tables for one keyspace,
// built once so that the driver prepares each once per connection.
type snsQueries struct {
	insertTopic, selectTopic, updateTopic, deleteTopic string
	listTopics, listTopicsAfter                        string

	insertSub, selectSub, deleteSub, deleteSubBucket string
	listSubs, listSubsAfter                          string

	insertIndexed, deleteIndexed, deleteIndexBucket string
	listIndexed, listIndexedAfter                   string

	putRecord, getRecord, deleteRecord, listRecords, listRecordsAfter string
}

// topicColumns are the columns of a topic record as scanTopic reads them.
const topicColumns = `id, name, attributes, tags, created_ns`

// subColumns are the columns of a subscription as scanSub reads them.
const subColumns = `id, topic_account, topic_name, owner, protocol, endpoint, attributes, pending, confirm_token, created_ns`

func newSNSQueries(ks string) snsQueries {
	f := func(format string) string { return fmt.Sprintf(format, ks) }
	return snsQueries{
		insertTopic: f(`INSERT INTO %s.sns_topics (account, slot, name, id, attributes, tags, created_ns) ` +
			`VALUES (?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`),
		selectTopic: f(`SELECT ` + topicColumns + ` FROM %s.sns_topics WHERE account = ? AND slot = ? AND name = ?`),
		updateTopic: f(`UPDATE %s.sns_topics SET attributes = ?, tags = ?, created_ns = ? ` +
			`WHERE account = ? AND slot = ? AND name = ? IF id = ?`),
		deleteTopic:     f(`DELETE FROM %s.sns_topics WHERE account = ? AND slot = ? AND name = ? IF id = ?`),
		listTopics:      f(`SELECT ` + topicColumns + ` FROM %s.sns_topics WHERE account = ? AND slot = ?`),
		listTopicsAfter: f(`SELECT ` + topicColumns + ` FROM %s.sns_topics WHERE account = ? AND slot = ? AND name > ?`),

		insertSub: f(`INSERT INTO %s.sns_subscriptions (topic_id, bucket, id, topic_account, topic_name, owner, protocol, endpoint, ` +
			`attributes, pending, confirm_token, created_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		selectSub:       f(`SELECT ` + subColumns + ` FROM %s.sns_subscriptions WHERE topic_id = ? AND bucket = ? AND id = ?`),
		deleteSub:       f(`DELETE FROM %s.sns_subscriptions WHERE topic_id = ? AND bucket = ? AND id = ?`),
		deleteSubBucket: f(`DELETE FROM %s.sns_subscriptions WHERE topic_id = ? AND bucket = ?`),
		listSubs:        f(`SELECT ` + subColumns + ` FROM %s.sns_subscriptions WHERE topic_id = ? AND bucket = ? LIMIT ?`),
		listSubsAfter:   f(`SELECT ` + subColumns + ` FROM %s.sns_subscriptions WHERE topic_id = ? AND bucket = ? AND id > ? LIMIT ?`),

		insertIndexed: f(`INSERT INTO %s.sns_filter_index (topic_id, bucket, key, id, topic_account, topic_name, owner, protocol, endpoint, ` +
			`attributes, pending, confirm_token, created_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		deleteIndexed:     f(`DELETE FROM %s.sns_filter_index WHERE topic_id = ? AND bucket = ? AND key = ? AND id = ?`),
		deleteIndexBucket: f(`DELETE FROM %s.sns_filter_index WHERE topic_id = ? AND bucket = ?`),
		listIndexed:       f(`SELECT ` + subColumns + ` FROM %s.sns_filter_index WHERE topic_id = ? AND bucket = ? AND key = ? LIMIT ?`),
		listIndexedAfter:  f(`SELECT ` + subColumns + ` FROM %s.sns_filter_index WHERE topic_id = ? AND bucket = ? AND key = ? AND id > ? LIMIT ?`),

		putRecord:        f(`INSERT INTO %s.sns_account_records (account, kind, key, value) VALUES (?, ?, ?, ?)`),
		getRecord:        f(`SELECT value FROM %s.sns_account_records WHERE account = ? AND kind = ? AND key = ?`),
		deleteRecord:     f(`DELETE FROM %s.sns_account_records WHERE account = ? AND kind = ? AND key = ?`),
		listRecords:      f(`SELECT key, value FROM %s.sns_account_records WHERE account = ? AND kind = ? LIMIT ?`),
		listRecordsAfter: f(`SELECT key, value FROM %s.sns_account_records WHERE account = ? AND kind = ? AND key > ? LIMIT ?`),
	}
}
