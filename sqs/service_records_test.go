package sqs_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// recordStore is a Store that is also a RecordReader, counting its reads.
type recordStore struct {
	*sqsmem.Store
	records atomic.Int64
}

// GetMessageRecords reads the messages, states zero but for their IDs.
func (s *recordStore) GetMessageRecords(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	s.records.Add(1)
	msgs, err := s.GetMessages(ctx, q, ids)
	for _, m := range msgs {
		m.State = sqs.State{ID: m.ID}
	}
	return msgs, err
}

// A receive reads the bodies through the Store's RecordReader, and its
// answer and the states it saves come from the Index's claim, not from
// the states it did not read.
func TestReceiveReadsRecords(t *testing.T) {
	store := &recordStore{Store: sqsmem.NewStore()}
	svc := sqs.NewService(store, sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(), sqs.Config{})
	defer svc.Close()
	ctx := context.Background()
	url, err := svc.CreateQueue(ctx, caller, sqs.CreateQueueInput{QueueName: "q"})
	wantCode(t, err, "")
	_, err = svc.SendMessage(ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "hello"})
	wantCode(t, err, "")
	zero := 0
	receive := func() sqs.ReceivedMessage {
		t.Helper()
		out, err := svc.ReceiveMessage(ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, VisibilityTimeout: &zero,
			WaitTimeSeconds: &zero, MessageSystemAttributeNames: []string{"All"}})
		wantCode(t, err, "")
		if len(out.Messages) != 1 || out.Messages[0].Body != "hello" {
			t.Fatalf("received %+v", out.Messages)
		}
		return out.Messages[0]
	}
	first := receive()
	time.Sleep(2 * time.Millisecond)
	second := receive()
	if store.records.Load() != 2 {
		t.Fatalf("GetMessageRecords called %d times, want 2", store.records.Load())
	}
	if got := second.Attributes["ApproximateReceiveCount"]; got != "2" {
		t.Errorf("second receive: ApproximateReceiveCount %s, want 2", got)
	}
	if f1, f2 := first.Attributes["ApproximateFirstReceiveTimestamp"], second.Attributes["ApproximateFirstReceiveTimestamp"]; f1 == "" || f1 != f2 {
		t.Errorf("ApproximateFirstReceiveTimestamp %s, then %s", f1, f2)
	}
	stored, err := store.GetMessages(ctx, queueOf(t, store, "q"), []uuid.UUID{uuid.MustParse(second.MessageID)})
	if err != nil || len(stored) != 1 || stored[0].State.ReceiveCount != 2 || stored[0].State.FirstReceiveAt.IsZero() {
		t.Fatalf("stored after two receives: %+v, %v", stored, err)
	}
	wantCode(t, svc.DeleteMessage(ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: second.ReceiptHandle}), "")
}

func queueOf(t *testing.T, s sqs.Store, name string) *sqs.Queue {
	t.Helper()
	q, err := s.GetQueue(context.Background(), account, name)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
