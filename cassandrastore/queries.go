package cassandrastore

import "fmt"

// queries are the engine's CQL statements for one keyspace. The driver
// prepares each distinct statement string once per connection and reuses
// it, so they are built once and never vary with their arguments.
type queries struct {
	insertMessage, selectMessage string

	insertHistory, selectHistory              string
	insertHistoryBucket, selectHistoryBuckets string

	updateNodeLive, updateNodeKids, updateNodeOwn, updateNodeLatest string
	selectNode, selectChildren                                      string

	insertJournal, selectJournal              string
	insertJournalBucket, selectJournalBuckets string

	insertExpiredMark, selectExpiredMarks string
}

func newQueries(ks string) queries {
	f := func(format string) string { return fmt.Sprintf(format, ks) }
	return queries{
		insertMessage: f(`INSERT INTO %s.messages (id, replica_id, metadata, paths, body, received_at, expires_at) ` +
			`VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`),
		selectMessage: f(`SELECT replica_id, metadata, paths, body, received_at, expires_at FROM %s.messages WHERE id = ?`),

		insertHistory: f(`INSERT INTO %s.history (path, bucket, ticks, id, expires_at) VALUES (?, ?, ?, ?, ?) USING TTL ?`),
		// The tuple bound resumes strictly after a position in the
		// newest-first order; (maxint, 0x) starts at the newest.
		selectHistory:        f(`SELECT ticks, id, expires_at FROM %s.history WHERE path = ? AND bucket = ? AND (ticks, id) < (?, ?)`),
		insertHistoryBucket:  f(`INSERT INTO %s.history_buckets (path, bucket) VALUES (?, ?) USING TIMESTAMP ? AND TTL ?`),
		selectHistoryBuckets: f(`SELECT bucket FROM %s.history_buckets WHERE path = ? AND bucket <= ?`),

		updateNodeLive:   f(`UPDATE %s.nodes USING TIMESTAMP ? AND TTL ? SET live_until = ? WHERE parent = ? AND word = ?`),
		updateNodeKids:   f(`UPDATE %s.nodes USING TIMESTAMP ? AND TTL ? SET kids_until = ? WHERE parent = ? AND word = ?`),
		updateNodeOwn:    f(`UPDATE %s.nodes USING TIMESTAMP ? AND TTL ? SET own_until = ? WHERE parent = ? AND word = ?`),
		updateNodeLatest: f(`UPDATE %s.nodes USING TIMESTAMP ? AND TTL ? SET latest = ? WHERE parent = ? AND word = ?`),
		selectNode:       f(`SELECT own_until, latest FROM %s.nodes WHERE parent = ? AND word = ?`),
		selectChildren:   f(`SELECT word, live_until, own_until, kids_until, latest FROM %s.nodes WHERE parent = ? AND word > ?`),

		insertJournal: f(`INSERT INTO %s.journal (bucket, shard, received_ms, id, expires_at) VALUES (?, ?, ?, ?, ?) USING TTL ?`),
		// The lower bound is a tuple so that it can resume after a
		// position; (ms, 0x) includes every id of millisecond ms. The
		// upper bound is a one-column tuple because CQL does not mix
		// single- and multi-column relations on clustering columns.
		selectJournal: f(`SELECT received_ms, id, expires_at FROM %s.journal ` +
			`WHERE bucket = ? AND shard = ? AND (received_ms, id) > (?, ?) AND (received_ms) < (?)`),
		insertJournalBucket:  f(`INSERT INTO %s.journal_buckets (span, bucket) VALUES (?, ?) USING TIMESTAMP ? AND TTL ?`),
		selectJournalBuckets: f(`SELECT bucket FROM %s.journal_buckets WHERE span = ? AND bucket >= ? AND bucket <= ?`),

		insertExpiredMark:  f(`INSERT INTO %s.expiry_marks (day, expires_s, received_ms) VALUES (?, ?, ?) USING TIMESTAMP ? AND TTL ?`),
		selectExpiredMarks: f(`SELECT max(received_ms) FROM %s.expiry_marks WHERE day = ? AND expires_s >= ? AND expires_s <= ?`),
	}
}
