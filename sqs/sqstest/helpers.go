// Package sqstest holds the conformance suites of the queue service's
// engines: every sqs.Store runs [RunStore] and every sqs.Index runs
// [RunIndex] from its own tests, for example
//
//	func TestStoreConformance(t *testing.T) {
//		sqstest.RunStore(t, func(t *testing.T) sqs.Store { return openTestStore(t) })
//	}
//
// The suites check the semantics written in the doc comments of sqs/store.go
// and sqs/index.go. They are written so that engines on a shared server
// (Cassandra, Redis) can give every subtest the same keyspace or database:
// each subtest uses fresh accounts and queue IDs and never assumes that the
// store is empty. Every time the suites write is UTC with millisecond
// precision, so that every engine can store it exactly.
//
// The helpers NewAccount, NewQueue and NewMessage build records for
// engines' own tests.
package sqstest

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/cache/cachetest"
	"github.com/heraldmq/herald/sqs"
)

// NowMilli returns the current time in UTC, truncated to the millisecond.
func NowMilli() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// NewAccount returns a random 12-digit account id, distinct (with
// overwhelming probability) from any other test's.
func NewAccount() string { return fmt.Sprintf("%012d", rand.Int64N(1e12)) }

// NewQueue returns the record of a new standard queue (FIFO if name ends in
// ".fifo") with a random ID, the default attributes, one shard and creation
// times of now.
func NewQueue(account, name string) *sqs.Queue {
	now := NowMilli()
	return &sqs.Queue{
		ID:         uuid.New(),
		Account:    account,
		Name:       name,
		Attributes: sqs.DefaultQueueAttributes(name, sqs.DefaultLimits()),
		Shards:     1,
		CreatedAt:  now,
		ModifiedAt: now,
	}
}

// UUIDAt returns a version 1 UUID whose time is at (to 100 ns), with random
// clock sequence and node: IDs made for the same instant tie on time and
// are ordered by their bytes.
func UUIDAt(at time.Time) uuid.UUID { return cachetest.UUIDAt(at) }

// NewMessage returns a message sent at sentAt (truncated to the
// millisecond, UTC) with an ID of that time, the given body, in shard 0,
// expiring four days later (the default retention).
func NewMessage(sentAt time.Time, body string) *sqs.Message {
	sentAt = sentAt.UTC().Truncate(time.Millisecond)
	m := &sqs.Message{
		ID:        UUIDAt(sentAt),
		Body:      body,
		SenderID:  "AIDATEST",
		SentAt:    sentAt,
		ExpiresAt: sentAt.Add(4 * 24 * time.Hour),
		State:     sqs.State{VisibleAt: sentAt},
	}
	m.State.ID = m.ID
	return m
}

// CompareIDs orders message IDs as ScanMessages returns them: by the time
// of the version 1 UUID, then by their bytes.
func CompareIDs(a, b uuid.UUID) int {
	if c := cmp.Compare(a.Time(), b.Time()); c != 0 {
		return c
	}
	return bytes.Compare(a[:], b[:])
}
