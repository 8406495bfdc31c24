package sqsmem

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// TestConcurrentReceiversNeverShareAMessage runs receivers, deleters and
// senders on a few queues at once (go test -race checks the locking) and
// requires that no message is handed to two receivers while in flight.
func TestConcurrentReceiversNeverShareAMessage(t *testing.T) {
	x := NewIndex(IndexOptions{MaxQueues: 4})
	ctx := t.Context()
	queues := []sqs.IndexQueue{{ID: uuid.New()}, {ID: uuid.New(), FIFO: true}}
	const perQueue = 300
	for _, q := range queues {
		x.MarkBuilt(ctx, q)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := make(map[uuid.UUID]int)
	for _, q := range queues {
		wg.Go(func() {
			for i := range perQueue {
				x.Add(ctx, q, []sqs.Entry{{ID: uuid.Must(uuid.NewUUID()), Group: string(rune('a' + i%5)), VisibleAt: t0}})
			}
		})
		for range 4 {
			wg.Go(func() {
				deadline := time.Now().Add(5 * time.Second)
				for time.Now().Before(deadline) {
					res, err := x.Receive(ctx, q, sqs.ReceiveRequest{Now: t0, Max: 3, Until: t0.Add(time.Hour)})
					if err != nil {
						t.Error(err)
						return
					}
					ids := make([]uuid.UUID, len(res.Claims))
					mu.Lock()
					for i, c := range res.Claims {
						got[c.ID]++
						ids[i] = c.ID
					}
					n := len(got)
					mu.Unlock()
					x.Remove(ctx, q, ids)
					if n == perQueue*len(queues) {
						return
					}
					if len(ids) == 0 {
						runtime.Gosched()
					}
				}
			})
		}
	}
	wg.Wait()
	if len(got) != perQueue*len(queues) {
		t.Errorf("received %d distinct messages, want %d", len(got), perQueue*len(queues))
	}
	for id, n := range got {
		if n != 1 {
			t.Errorf("message %v handed out %d times within its visibility timeout", id, n)
		}
	}
}
