package cassandrastore

import (
	"encoding/json"

	"github.com/google/uuid"
)

// snsTopicSlots is the number of partitions an account's topic records are
// spread over (see the sns_topics table). It decides where every stored
// record lives: changing it would hide the topics already created.
const snsTopicSlots = 128

// topicSlot is the partition slot of the topic record of name.
func topicSlot(name string) int { return nameSlot(name, snsTopicSlots) }

// snsSubBuckets is the number of partitions a topic's subscriptions are
// spread over; subBucket must map ids to them in id order. Fixed for good,
// like snsTopicSlots.
const snsSubBuckets = 64

// subBucket is the partition bucket of subscription id: the top six bits
// of its first byte, so that bucket order is id order. Subscription ids
// are random (version 4) or time-ordered (version 7) UUIDs; for the latter
// the first byte changes only every few years, so v7 ids would crowd one
// bucket: callers should use random ids (the API does, uuid.New).
func subBucket(id uuid.UUID) int { return int(id[0] >> 2) }

// encodeStrings is the stored form of a string map: a JSON object, empty
// for none (never a null cell).
func encodeStrings(m map[string]string) []byte {
	if len(m) == 0 {
		return []byte{}
	}
	b, err := json.Marshal(m) // a map of strings always marshals
	if err != nil {
		panic(err)
	}
	return b
}

// decodeStrings reverses encodeStrings; none comes back as nil.
func decodeStrings(b []byte) (map[string]string, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
