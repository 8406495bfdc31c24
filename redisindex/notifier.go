package redisindex

import (
	"context"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/sqs"
)

// Notifier is sqs.Notifier over Redis pub/sub: one channel per queue, and
// one subscriber connection per Notifier (per node) carrying the channels
// of the queues someone on this node is waiting on. Notify wakes local
// waiters at once and publishes for the other nodes.
//
// Wait never touches Redis: a background goroutine reconciles the
// subscriptions with the waiting queues, so a busy queue's long polls do
// not subscribe and unsubscribe one by one, and a Redis that is down
// delays nobody (the caller's fallback timer covers missed wakeups).
// go-redis reconnects the subscriber connection and subscribes again to
// its channels after a Redis restart.
type Notifier struct {
	client sender // publishes: the client or its automatic pipeline (pipeline.go)
	opts   Options
	ps     *redis.PubSub

	mu      sync.Mutex
	waiters map[uuid.UUID]map[*waiter]struct{}
	closed  bool

	dirty chan struct{} // capacity 1: "the waiting queues changed"
	done  chan struct{}
	wg    sync.WaitGroup
}

type waiter struct{ ch chan struct{} }

var _ sqs.Notifier = (*Notifier)(nil)

// NewNotifier starts a Notifier on client; Close stops it.
func NewNotifier(client redis.UniversalClient, opts Options) *Notifier {
	opts = opts.withDefaults()
	n := &Notifier{
		client:  newSender(client, opts),
		opts:    opts,
		ps:      client.Subscribe(context.Background()),
		waiters: make(map[uuid.UUID]map[*waiter]struct{}),
		dirty:   make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	msgs := n.ps.Channel()
	n.wg.Add(2)
	go n.receive(msgs)
	go n.reconcile()
	return n
}

// Close stops the Notifier; channels of current waiters are closed.
func (n *Notifier) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	for id, ws := range n.waiters {
		for w := range ws {
			close(w.ch)
		}
		delete(n.waiters, id)
	}
	n.mu.Unlock()
	close(n.done)
	err := n.ps.Close()
	n.wg.Wait()
	return err
}

// Notify implements sqs.Notifier. A failed publish is not reported: other
// nodes' long polls then end on their fallback timer.
func (n *Notifier) Notify(ctx context.Context, id uuid.UUID) {
	n.wake(id)
	_ = n.opts.Breaker.do("redisindex.Notify", func() error {
		ctx, cancel := context.WithTimeout(ctx, n.opts.Timeout)
		defer cancel()
		return wrapErr("redisindex.Notify", n.client.Publish(ctx, channelOf(n.opts.Prefix, id), "").Err())
	})
}

// Wait implements sqs.Notifier. The channel is closed by the next Notify
// of id on any node (once this node's subscription is in place).
func (n *Notifier) Wait(id uuid.UUID) (<-chan struct{}, func()) {
	w := &waiter{ch: make(chan struct{})}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		close(w.ch)
		return w.ch, func() {}
	}
	ws := n.waiters[id]
	if ws == nil {
		ws = make(map[*waiter]struct{})
		n.waiters[id] = ws
		n.markDirty()
	}
	ws[w] = struct{}{}
	n.mu.Unlock()
	return w.ch, func() { n.cancel(id, w) }
}

func (n *Notifier) cancel(id uuid.UUID, w *waiter) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ws := n.waiters[id]
	if _, ok := ws[w]; !ok {
		return // woken or closed already
	}
	delete(ws, w)
	if len(ws) == 0 {
		delete(n.waiters, id)
		n.markDirty()
	}
}

// wake closes the channels of every waiter of id.
func (n *Notifier) wake(id uuid.UUID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ws := n.waiters[id]
	if ws == nil {
		return
	}
	for w := range ws {
		close(w.ch)
	}
	delete(n.waiters, id)
	n.markDirty()
}

// markDirty asks reconcile to run; n.mu is held.
func (n *Notifier) markDirty() {
	select {
	case n.dirty <- struct{}{}:
	default:
	}
}

// receive wakes the waiters of each queue named by a published message.
func (n *Notifier) receive(msgs <-chan *redis.Message) {
	defer n.wg.Done()
	prefix := channelOf(n.opts.Prefix, uuid.Nil)
	prefix = prefix[:len(prefix)-len(uuid.Nil.String())]
	for m := range msgs {
		id, err := uuid.Parse(strings.TrimPrefix(m.Channel, prefix))
		if err == nil {
			n.wake(id)
		}
	}
}

// reconcile subscribes to the channels of the queues waited on and
// unsubscribes from the others, whenever they change.
func (n *Notifier) reconcile() {
	defer n.wg.Done()
	subscribed := make(map[uuid.UUID]struct{})
	for {
		select {
		case <-n.done:
			return
		case <-n.dirty:
		}
		var sub, unsub []string
		n.mu.Lock()
		for id := range n.waiters {
			if _, ok := subscribed[id]; !ok {
				subscribed[id] = struct{}{}
				sub = append(sub, channelOf(n.opts.Prefix, id))
			}
		}
		for id := range subscribed {
			if _, ok := n.waiters[id]; !ok {
				delete(subscribed, id)
				unsub = append(unsub, channelOf(n.opts.Prefix, id))
			}
		}
		n.mu.Unlock()
		// go-redis records the channels even when the command fails, and
		// subscribes again when it reconnects: errors need no retry here.
		ctx, cancel := context.WithTimeout(context.Background(), n.opts.Timeout)
		if len(sub) > 0 {
			_ = n.ps.Subscribe(ctx, sub...)
		}
		if len(unsub) > 0 {
			_ = n.ps.Unsubscribe(ctx, unsub...)
		}
		cancel()
	}
}
