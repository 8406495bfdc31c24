package sqstest

import (
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// testConcurrentReceivers lets several receivers take messages of one
// queue at once, with a visibility timeout longer than the test, and
// requires each message to be handed out exactly once.
func testConcurrentReceivers(e *indexEnv) {
	for _, fifo := range []bool{false, true} {
		q := e.queue(fifo)
		const messages, receivers = 120, 4
		entries := make([]sqs.Entry, messages)
		for i := range entries {
			entries[i] = sqs.Entry{ID: uuid.New(), Group: fmt.Sprint("g", i%7), VisibleAt: e.at(0)}
		}
		if err := e.x.Add(e.ctx, q, entries); err != nil {
			e.t.Fatal(err)
		}
		var mu sync.Mutex
		got := map[uuid.UUID]int{}
		var wg sync.WaitGroup
		deadline := time.Now().Add(20 * time.Second)
		for r := range receivers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					now := e.at(1000 + r) // receivers' clocks differ a little
					res, err := e.x.Receive(e.ctx, q, sqs.ReceiveRequest{Now: now, Max: 3, Until: e.at(3_600_000)})
					if err != nil {
						e.t.Errorf("Receive: %v", err)
						return
					}
					ids := make([]uuid.UUID, len(res.Claims))
					mu.Lock()
					for i, c := range res.Claims {
						got[c.ID]++
						ids[i] = c.ID
					}
					mu.Unlock()
					// FIFO groups unblock as their messages are deleted.
					if err := e.x.Remove(e.ctx, q, ids); err != nil {
						e.t.Errorf("Remove: %v", err)
						return
					}
					if len(res.Claims) == 0 {
						mu.Lock()
						done := len(got) == messages
						mu.Unlock()
						if done {
							return
						}
						time.Sleep(time.Millisecond)
					}
				}
			})
		}
		wg.Wait()
		if len(got) != messages {
			e.t.Errorf("fifo=%v: %d of %d messages received", fifo, len(got), messages)
		}
		for id, n := range got {
			if n != 1 {
				e.t.Errorf("fifo=%v: message %v handed out %d times within its visibility timeout", fifo, id, n)
			}
		}
	}
}
