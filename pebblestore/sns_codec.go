package pebblestore

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sns"
)

// Records of the SNS topic store, in the compact encoding of the SQS
// records (sqs_codec.go: uvarint-length strings, times as zigzag Unix
// nanoseconds plus one, a leading version byte). The key holds what it
// names (account and name of a topic, topic ID and ID of a subscription),
// so the value does not repeat it. Maps are a count, then key, value pairs
// in key order, so that one record state has one encoding. A binary
// encoding rather than JSON keeps the SQS and SNS records alike and reuses
// their reader, which rejects truncated or trailing bytes.
//
// Topic record (topicRecordVersion):
//
//	version, id (16 bytes), created, attributes, tags
//
// Subscription record (subscriptionRecordVersion):
//
//	version, flags (uvarint, subFlag*), created,
//	topic account, topic name, owner, protocol, endpoint, token (strings),
//	attributes
const (
	topicRecordVersion        = 1
	subscriptionRecordVersion = 1
)

// Flags of a subscription record.
const (
	subFlagPending = 1 << iota
)

// errCorruptSNS is the cause of decoding failures of SNS records.
var errCorruptSNS = fmt.Errorf("%w (sns)", errCorrupt)

// appendStringMap appends m as a count and sorted key, value pairs.
func appendStringMap(dst []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = binary.AppendUvarint(dst, uint64(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = appendString(dst, m[k])
	}
	return dst
}

// stringMap reads a map written by appendStringMap; nil when empty.
func (r *recordReader) stringMap() map[string]string {
	n := r.count()
	if n == 0 {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := r.string()
		m[k] = r.string()
	}
	return m
}

// appendTopicRecord appends the record of t (without account and name).
func appendTopicRecord(dst []byte, t *sns.Topic) []byte {
	dst = append(dst, topicRecordVersion)
	dst = append(dst, t.ID[:]...)
	dst = appendTime(dst, t.CreatedAt)
	dst = appendStringMap(dst, t.Attributes)
	return appendStringMap(dst, t.Tags)
}

// decodeTopicRecord decodes the record of the topic account/name.
func decodeTopicRecord(account, name string, rec []byte) (*sns.Topic, error) {
	r := newRecordReader(rec)
	if v := r.byte(); r.ok && v != topicRecordVersion {
		return nil, fmt.Errorf("%w: topic %s/%s: version %d", errCorruptSNS, account, name, v)
	}
	t := &sns.Topic{Account: account, Name: name}
	copy(t.ID[:], r.fixed(idLen))
	t.CreatedAt = r.time()
	t.Attributes = r.stringMap()
	t.Tags = r.stringMap()
	if !r.ok || len(r.b) != 0 {
		return nil, fmt.Errorf("%w: topic %s/%s", errCorruptSNS, account, name)
	}
	return t, nil
}

// appendSubscriptionRecord appends the record of s (without topic ID and
// ID).
func appendSubscriptionRecord(dst []byte, s *sns.Subscription) []byte {
	var flags uint64
	if s.Pending {
		flags |= subFlagPending
	}
	dst = append(dst, subscriptionRecordVersion)
	dst = binary.AppendUvarint(dst, flags)
	dst = appendTime(dst, s.CreatedAt)
	for _, v := range []string{s.TopicAccount, s.TopicName, s.Owner, s.Protocol, s.Endpoint, s.Token} {
		dst = appendString(dst, v)
	}
	return appendStringMap(dst, s.Attributes)
}

// decodeSubscriptionRecord decodes the record of subscription id of topic
// topicID.
func decodeSubscriptionRecord(topicID, id uuid.UUID, rec []byte) (*sns.Subscription, error) {
	r := newRecordReader(rec)
	if v := r.byte(); r.ok && v != subscriptionRecordVersion {
		return nil, fmt.Errorf("%w: subscription %s/%s: version %d", errCorruptSNS, topicID, id, v)
	}
	s := &sns.Subscription{ID: id, TopicID: topicID}
	flags := r.uvarint()
	s.Pending = flags&subFlagPending != 0
	s.CreatedAt = r.time()
	for _, p := range []*string{&s.TopicAccount, &s.TopicName, &s.Owner, &s.Protocol, &s.Endpoint, &s.Token} {
		*p = r.string()
	}
	s.Attributes = r.stringMap()
	if !r.ok || len(r.b) != 0 {
		return nil, fmt.Errorf("%w: subscription %s/%s", errCorruptSNS, topicID, id)
	}
	return s, nil
}
