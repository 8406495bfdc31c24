package pebblestore

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// Keyspaces of the SNS topic store (TopicStore), sharing the DB with the
// message cache and the SQS queues; keys.go has the whole table.
//
//	't' uvarint(len account) account name     topic record (sns_codec.go)
//	'n' topicID(16) subscriptionID(16)        subscription record
//	'a' uvarint(len account) account uvarint(len kind) kind key
//	                                          account record (sns_records.go)
//	'f' topicID(16) uvarint(len key) key subscriptionID(16)
//	                                          subscription record: the
//	                                          filter index (sns_index.go)
//
// The length before the account keeps one account's topics one key range
// whatever the accounts' lengths, in byte order of name. A topic's
// subscriptions are one key range in byte order of their IDs, so listing a
// page is one bounded scan and deleting the topic one range deletion.
const (
	prefixTopic        byte = 't' // SNS topic records by account and name
	prefixSubscription byte = 'n' // SNS subscriptions by topic ID and ID
	prefixAccountRec   byte = 'a' // SNS account records by account, kind and key
	prefixFilterIndex  byte = 'f' // SNS subscriptions by topic ID, filter index key and ID
)

const subscriptionKeyLen = 1 + 2*idLen

// topicAccountPrefix returns the prefix shared by the topics of account;
// extra is spare capacity for a name.
func topicAccountPrefix(account string, extra int) []byte {
	k := make([]byte, 0, 1+binary.MaxVarintLen64+len(account)+extra)
	k = append(k, prefixTopic)
	k = binary.AppendUvarint(k, uint64(len(account)))
	return append(k, account...)
}

// topicKey returns the key of the topic record of account and name.
func topicKey(account, name string) []byte {
	return append(topicAccountPrefix(account, len(name)), name...)
}

// topicSubscriptionsPrefix returns the prefix of the subscriptions of a
// topic.
func topicSubscriptionsPrefix(topicID uuid.UUID) []byte {
	k := make([]byte, 0, subscriptionKeyLen)
	k = append(k, prefixSubscription)
	return append(k, topicID[:]...)
}

// subscriptionKey returns the key of subscription id of topic topicID.
func subscriptionKey(topicID, id uuid.UUID) []byte {
	return append(topicSubscriptionsPrefix(topicID), id[:]...)
}

// accountKindPrefix returns the prefix of the account records of one
// account and kind; the lengths before account and kind keep each (account,
// kind) one key range, in byte order of key, whatever their lengths. extra
// is spare capacity for a key.
func accountKindPrefix(account, kind string, extra int) []byte {
	k := make([]byte, 0, 1+2*binary.MaxVarintLen64+len(account)+len(kind)+extra)
	k = append(k, prefixAccountRec)
	k = binary.AppendUvarint(k, uint64(len(account)))
	k = append(k, account...)
	k = binary.AppendUvarint(k, uint64(len(kind)))
	return append(k, kind...)
}

// accountRecordKey returns the key of the account record (account, kind, key).
func accountRecordKey(account, kind, key string) []byte {
	return append(accountKindPrefix(account, kind, len(key)), key...)
}

// filterTopicPrefix returns the prefix of a topic's filter index entries.
func filterTopicPrefix(topicID uuid.UUID) []byte {
	k := make([]byte, 0, 1+idLen)
	k = append(k, prefixFilterIndex)
	return append(k, topicID[:]...)
}

// filterKeyPrefix returns the prefix of the entries of one index key of a
// topic; extra is spare capacity for an ID. The length before the key
// keeps each key one range, whatever the others.
func filterKeyPrefix(topicID uuid.UUID, key string, extra int) []byte {
	k := make([]byte, 0, 1+idLen+binary.MaxVarintLen64+len(key)+extra)
	k = append(k, prefixFilterIndex)
	k = append(k, topicID[:]...)
	k = binary.AppendUvarint(k, uint64(len(key)))
	return append(k, key...)
}

// filterEntryKey returns the key of subscription id's entry under index
// key key.
func filterEntryKey(topicID uuid.UUID, key string, id uuid.UUID) []byte {
	return append(filterKeyPrefix(topicID, key, idLen), id[:]...)
}
