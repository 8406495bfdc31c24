package sqstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// testUnindexed marks queue IDs and takes them back in small batches. The
// store may be shared, so others' marks may come back too: they are marked
// again, for their owners.
func testUnindexed(e *storeEnv) {
	ours := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	for _, id := range append(slices.Clone(ours), ours[0]) { // marked twice: one note
		if err := e.store.MarkUnindexed(e.ctx, id); err != nil {
			e.t.Fatalf("MarkUnindexed: %v", err)
		}
	}
	taken := map[uuid.UUID]int{}
	var foreign []uuid.UUID
	for range 1000 {
		ids, err := e.store.TakeUnindexed(e.ctx, 2)
		if err != nil {
			e.t.Fatalf("TakeUnindexed: %v", err)
		}
		if len(ids) > 2 {
			e.t.Fatalf("TakeUnindexed(2) returned %d IDs", len(ids))
		}
		if len(ids) == 0 {
			break
		}
		for _, id := range ids {
			if slices.Contains(ours, id) {
				taken[id]++
			} else {
				foreign = append(foreign, id)
			}
		}
		if len(taken) == len(ours) {
			break
		}
	}
	for _, id := range foreign {
		if err := e.store.MarkUnindexed(e.ctx, id); err != nil {
			e.t.Fatal(err)
		}
	}
	for _, id := range ours {
		if taken[id] != 1 {
			e.t.Errorf("queue %v marked unindexed was taken %d times, want once", id, taken[id])
		}
	}
	// Taken means cleared.
	for range 100 {
		ids, err := e.store.TakeUnindexed(e.ctx, 100)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, id := range ids {
			if slices.Contains(ours, id) {
				e.t.Errorf("queue %v was taken again after TakeUnindexed cleared it", id)
			}
		}
		for _, id := range ids {
			if !slices.Contains(ours, id) {
				e.store.MarkUnindexed(e.ctx, id)
			}
		}
		if len(ids) < 100 {
			break
		}
	}
}

func testStoreCancelled(e *storeEnv) {
	q := e.create("q")
	m := NewMessage(e.now, "m")
	e.put(q, m)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	fresh := NewQueue(e.account, "fresh")
	calls := []struct {
		name string
		call func() error
	}{
		{"CreateQueue", func() error { _, err := e.store.CreateQueue(ctx, fresh); return err }},
		{"GetQueue", func() error { _, err := e.store.GetQueue(ctx, e.account, "q"); return err }},
		{"UpdateQueue", func() error { return e.store.UpdateQueue(ctx, q) }},
		{"DeleteQueue", func() error { return e.store.DeleteQueue(ctx, q) }},
		{"ListQueues", func() error { _, err := e.store.ListQueues(ctx, e.account, "", "", 10); return err }},
		{"PutMessages", func() error { return e.store.PutMessages(ctx, q, []*sqs.Message{NewMessage(e.now, "x")}) }},
		{"GetMessages", func() error { _, err := e.store.GetMessages(ctx, q, []uuid.UUID{m.ID}); return err }},
		{"DeleteMessages", func() error { return e.store.DeleteMessages(ctx, q, []uuid.UUID{m.ID}) }},
		{"ScanMessages", func() error { _, err := e.store.ScanMessages(ctx, q, 0, uuid.Nil, 10); return err }},
		{"PurgeMessages", func() error { return e.store.PurgeMessages(ctx, q, e.now) }},
		{"MarkUnindexed", func() error { return e.store.MarkUnindexed(ctx, uuid.New()) }},
		{"TakeUnindexed", func() error { _, err := e.store.TakeUnindexed(ctx, 1); return err }},
	}
	if rr, ok := e.store.(sqs.RecordReader); ok {
		calls = append(calls, struct {
			name string
			call func() error
		}{"GetMessageRecords", func() error { _, err := rr.GetMessageRecords(ctx, q, []uuid.UUID{m.ID}); return err }})
	}
	const patience = 10 * time.Second
	for _, c := range calls {
		e.t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- c.call() }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("%s with a cancelled context: err = nil, want an error", c.name)
				}
			case <-time.After(patience):
				t.Fatalf("%s with a cancelled context has not returned after %v", c.name, patience)
			}
		})
	}
}
