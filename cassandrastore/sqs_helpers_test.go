package cassandrastore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// sqsHelpers: queues and messages for the SQS store's own tests.

// newTestQueue returns a queue record with a random name and shards.
func newTestQueue(shards int) *sqs.Queue {
	now := time.Now().UTC()
	name := fmt.Sprintf("q%012x", rand.Uint64()>>16)
	return &sqs.Queue{
		ID:         uuid.New(),
		Account:    "123456789012",
		Name:       name,
		Attributes: sqs.DefaultQueueAttributes(name, sqs.DefaultLimits()),
		Shards:     shards,
		CreatedAt:  now,
		ModifiedAt: now,
	}
}

// mustCreateQueue creates a queue with that many shards in qs.
func mustCreateQueue(t testing.TB, qs sqs.Store, shards int) *sqs.Queue {
	t.Helper()
	q := newTestQueue(shards)
	if _, err := qs.CreateQueue(context.Background(), q); err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	return q
}

// newSQSMsg returns a message sent at (its id carries that time), living
// for ttl, in its home shard (sqs.ShardOf) of a queue of shards shards.
func newSQSMsg(at time.Time, shards int, ttl time.Duration, body string) *sqs.Message {
	id := uuidAt(at)
	shard := sqs.ShardOf(id, shards)
	sent := at.UTC().Truncate(time.Millisecond)
	return &sqs.Message{
		ID: id, Shard: shard, Body: body,
		SentAt: sent, ExpiresAt: sent.Add(ttl),
		State: sqs.State{ID: id, VisibleAt: sent},
	}
}

// mustPutMsgs puts msgs into q.
func mustPutMsgs(t testing.TB, qs sqs.Store, q *sqs.Queue, msgs ...*sqs.Message) {
	t.Helper()
	if err := qs.PutMessages(context.Background(), q, msgs); err != nil {
		t.Fatalf("PutMessages: %v", err)
	}
}

// ids returns the ids of msgs.
func ids(msgs []*sqs.Message) []uuid.UUID {
	out := make([]uuid.UUID, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

// coldQueues returns a second store on the shared keyspace: a process that
// has seen none of the messages (no remembered locations).
func coldQueues(t testing.TB) sqs.Store {
	t.Helper()
	sharedStore(t)
	return openTest(t, shared.addr, Options{Keyspace: shared.ks}).Queues()
}

// scanAll returns every message of every shard of q, reading pages of page.
func scanAll(t testing.TB, qs sqs.Store, q *sqs.Queue, page int) []*sqs.Message {
	t.Helper()
	var out []*sqs.Message
	for shard := range shardCount(q) {
		after := uuid.Nil
		for {
			got, err := qs.ScanMessages(context.Background(), q, shard, after, page)
			if err != nil {
				t.Fatalf("ScanMessages(shard %d): %v", shard, err)
			}
			out = append(out, got...)
			if len(got) < page {
				break
			}
			after = got[len(got)-1].ID
		}
	}
	return out
}
