package pebblestore

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sqs"
)

const testAccount = "000000000000"

// testQueue returns an unsaved queue record of account testAccount.
func testQueue(name string, shards int) *sqs.Queue {
	return &sqs.Queue{
		ID:         uuid.New(),
		Account:    testAccount,
		Name:       name,
		Attributes: sqs.DefaultQueueAttributes(name, sqs.DefaultLimits()),
		Shards:     shards,
		CreatedAt:  t0,
		ModifiedAt: t0,
	}
}

// createQueue stores a new queue and returns it.
func createQueue(t testing.TB, s *QueueStore, name string, shards int) *sqs.Queue {
	t.Helper()
	q, err := s.CreateQueue(context.Background(), testQueue(name, shards))
	if err != nil {
		t.Fatalf("CreateQueue(%s): %v", name, err)
	}
	return q
}

// sqsMsg returns a message of shard sent at sent (id time and SentAt) and
// kept for retention.
func sqsMsg(sent time.Time, shard int, retention time.Duration) *sqs.Message {
	id := v1(sent)
	sent = sent.Truncate(time.Millisecond)
	return &sqs.Message{
		ID:        id,
		Shard:     shard,
		Body:      "body of " + id.String(),
		SenderID:  "AIDA",
		SentAt:    sent,
		ExpiresAt: sent.Add(retention),
		State:     sqs.State{ID: id, VisibleAt: sent},
	}
}

func putMsgs(t testing.TB, s *QueueStore, q *sqs.Queue, ms ...*sqs.Message) {
	t.Helper()
	if err := s.PutMessages(context.Background(), q, ms); err != nil {
		t.Fatalf("PutMessages: %v", err)
	}
}

func sqsIDs(ms []*sqs.Message) []uuid.UUID {
	out := make([]uuid.UUID, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// scanAll returns every unexpired message of a shard of q, oldest first.
func scanAll(t testing.TB, s *QueueStore, q *sqs.Queue, shard int) []*sqs.Message {
	t.Helper()
	ms, err := s.ScanMessages(context.Background(), q, shard, uuid.Nil, 1<<30)
	if err != nil {
		t.Fatalf("ScanMessages: %v", err)
	}
	return ms
}

func sameIDs(a, b []uuid.UUID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
