package sqs

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// DCNotifier wakes long polls in every data center: a queue served by one
// data center's Index is received from nodes of all of them (dc.go), and
// each data center's long polls wait on its own Notifier. Notify tells the
// local Notifier at once and the others' from a background goroutine, so
// that a send never waits for the link; a notification that finds the
// backlog full or the link down is dropped, which a long poll survives
// (it looks at the queue again within Config.LongPollRecheck).
type DCNotifier struct {
	local Notifier
	peers []Notifier

	ch   chan uuid.UUID
	done chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// dcNotifyBacklog bounds the notifications waiting for the other data
// centers.
const dcNotifyBacklog = 4096

// NewDCNotifier returns a Notifier whose waits are local's and whose
// notifications reach local and every one of peers (the other data
// centers'). Close stops its goroutine; it does not close the Notifiers.
func NewDCNotifier(local Notifier, peers []Notifier) *DCNotifier {
	n := &DCNotifier{local: local, peers: peers, ch: make(chan uuid.UUID, dcNotifyBacklog), done: make(chan struct{})}
	n.wg.Add(1)
	go n.forward()
	return n
}

var _ Notifier = (*DCNotifier)(nil)

// Notify tells this data center's long polls now and the others' soon.
func (d *DCNotifier) Notify(ctx context.Context, id uuid.UUID) {
	d.local.Notify(ctx, id)
	select {
	case d.ch <- id:
	default: // backlog full: dropped
	}
}

// Wait waits on this data center's Notifier.
func (d *DCNotifier) Wait(id uuid.UUID) (<-chan struct{}, func()) { return d.local.Wait(id) }

// Close stops forwarding.
func (d *DCNotifier) Close() {
	d.once.Do(func() { close(d.done) })
	d.wg.Wait()
}

func (n *DCNotifier) forward() {
	defer n.wg.Done()
	for {
		select {
		case <-n.done:
			return
		case id := <-n.ch:
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			for _, p := range n.peers {
				p.Notify(ctx, id)
			}
			cancel()
		}
	}
}
