package amqp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald/cache"
)

// ErrClosed is returned by Events after Close.
var ErrClosed = errors.New("amqp: events closed")

// Events implements cache.Events through RabbitMQ: every event is published
// to the events exchange (persistent, routed by its path, with publisher
// confirms), and each node consumes the events its subscribers' patterns
// select from one exclusive queue of its own. Publish and Subscribe are
// safe for concurrent use.
type Events struct {
	o Options

	// slots bounds the events accepted but not yet confirmed: Publish puts
	// one token per event, a confirmation takes it out.
	slots  chan struct{}
	mu     sync.Mutex
	queue  []*event // accepted, not yet published (or to be published again)
	wake   chan struct{}
	closed chan struct{}
	close1 sync.Once

	subs     subscriptions
	resumers resumers

	cancel           context.CancelFunc
	wg               sync.WaitGroup
	pubUp, subUp     chan struct{}
	pubOnce, subOnce sync.Once

	blocked, dropped, published, confirmed, republished, received, unmatched, resumes atomic.Uint64
}

var _ cache.Events = (*Events)(nil)

// event is one (message, path) pair ready to publish.
type event struct {
	key  string // routing key: the path
	id   string // message_uuid
	at   time.Time
	body []byte // the Event JSON
}

// EventsStats are counters and gauges for metrics.
type EventsStats struct {
	Buffered    int    // events accepted and not yet confirmed
	Capacity    int    // the bound of Buffered (Options.PublishBuffer)
	Blocked     uint64 // events whose Publish had to wait for room
	Dropped     uint64 // events refused because Publish's ctx ended while waiting
	Published   uint64 // publications to RabbitMQ, republications included
	Confirmed   uint64 // events RabbitMQ confirmed
	Republished uint64 // events published again (nacked or unconfirmed at a connection loss)
	Received    uint64 // events this node's queue delivered
	Unmatched   uint64 // of those, events no local subscriber wanted
	Resumes     uint64 // consumer sessions begun while the node had subscribers (OnResume)
}

// NewEvents starts publishing and consuming with the given options.
func NewEvents(o Options) (*Events, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Events{
		o:      o,
		slots:  make(chan struct{}, o.PublishBuffer),
		wake:   make(chan struct{}, 1),
		closed: make(chan struct{}),
		cancel: cancel,
		pubUp:  make(chan struct{}),
		subUp:  make(chan struct{}),
	}
	e.subs.init()
	e.wg.Go(func() { keepConnected(ctx, &e.o, "events publisher", e.publishSession) })
	e.wg.Go(func() { keepConnected(ctx, &e.o, "events consumer", e.consumeSession) })
	return e, nil
}

// Ready waits until both the publisher and the consumer were connected.
func (e *Events) Ready(ctx context.Context) error {
	for _, up := range []chan struct{}{e.pubUp, e.subUp} {
		select {
		case <-up:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Stats returns the current counters.
func (e *Events) Stats() EventsStats {
	return EventsStats{
		Buffered:    len(e.slots),
		Capacity:    cap(e.slots),
		Blocked:     e.blocked.Load(),
		Dropped:     e.dropped.Load(),
		Published:   e.published.Load(),
		Confirmed:   e.confirmed.Load(),
		Republished: e.republished.Load(),
		Received:    e.received.Load(),
		Unmatched:   e.unmatched.Load(),
		Resumes:     e.resumes.Load(),
	}
}

// Publish accepts one event per path of m. When the buffer is full it
// waits for room; if ctx ends first, the events not yet accepted are
// dropped (counted) and ctx's error returned.
func (e *Events) Publish(ctx context.Context, m *cache.Message) error {
	for i, p := range m.Paths {
		body, err := encodeEvent(p, m)
		if err != nil {
			return fmt.Errorf("amqp: encoding an event: %w", err)
		}
		if err := e.acquire(ctx); err != nil {
			e.dropped.Add(uint64(len(m.Paths) - i))
			return err
		}
		e.mu.Lock()
		e.queue = append(e.queue, &event{key: p, id: m.ID.String(), at: m.ReceivedAt, body: body})
		e.mu.Unlock()
		e.signal()
	}
	return nil
}

func (e *Events) acquire(ctx context.Context) error {
	select {
	case <-e.closed:
		return ErrClosed
	default:
	}
	select {
	case e.slots <- struct{}{}:
		return nil
	default:
	}
	e.blocked.Add(1)
	select {
	case e.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-e.closed:
		return ErrClosed
	}
}

func (e *Events) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// take removes up to n events from the front of the queue.
func (e *Events) take(n int) []*event {
	e.mu.Lock()
	defer e.mu.Unlock()
	n = min(n, len(e.queue))
	out := slices.Clone(e.queue[:n])
	clear(e.queue[:n])
	e.queue = e.queue[n:]
	return out
}

// giveBack returns events to the front of the queue, in order.
func (e *Events) giveBack(evs []*event) {
	if len(evs) == 0 {
		return
	}
	e.mu.Lock()
	e.queue = append(slices.Clip(evs), e.queue...)
	e.mu.Unlock()
	e.signal()
}

// Close stops accepting events, waits until the buffered ones are confirmed
// or ctx ends, then stops. It reports how many events were left unconfirmed.
func (e *Events) Close(ctx context.Context) error {
	e.close1.Do(func() { close(e.closed) })
	var err error
	for len(e.slots) > 0 {
		if !sleep(ctx, 10*time.Millisecond) {
			err = fmt.Errorf("amqp: closing with %d events unconfirmed: %w", len(e.slots), ctx.Err())
			break
		}
	}
	e.cancel()
	e.wg.Wait()
	return err
}

// publishSession publishes buffered events on one connection until it
// closes. At most ConfirmWindow events await confirmation at a time; those
// unconfirmed when the session ends go back to the front of the queue.
func (e *Events) publishSession(ctx context.Context, conn *rabbit.Connection) error {
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := declareEvents(ch, &e.o); err != nil {
		return err
	}
	if err := ch.Confirm(false); err != nil {
		return err
	}
	confirms := ch.NotifyPublish(make(chan rabbit.Confirmation, e.o.ConfirmWindow))
	chClosed := ch.NotifyClose(make(chan *rabbit.Error, 1))
	inflight := make(map[uint64]*event, e.o.ConfirmWindow)
	defer func() {
		tags := slices.Sorted(maps.Keys(inflight))
		evs := make([]*event, len(tags))
		for i, t := range tags {
			evs[i] = inflight[t]
		}
		e.republished.Add(uint64(len(evs)))
		e.giveBack(evs)
	}()
	e.pubOnce.Do(func() { close(e.pubUp) })

	for {
		if room := e.o.ConfirmWindow - len(inflight); room > 0 {
			batch := e.take(room)
			for i, ev := range batch {
				tag := ch.GetNextPublishSeqNo()
				err := ch.PublishWithContext(ctx, e.o.EventsExchange, ev.key, false, false, rabbit.Publishing{
					ContentType:  "application/json",
					DeliveryMode: rabbit.Persistent,
					MessageId:    ev.id,
					Timestamp:    ev.at,
					Type:         "herald.message",
					Body:         ev.body,
				})
				if err != nil {
					e.giveBack(batch[i:])
					return err
				}
				e.published.Add(1)
				inflight[tag] = ev
			}
		}
		select {
		case c, ok := <-confirms:
			if !ok {
				return errors.New("the events channel closed")
			}
			e.settle(inflight, c)
		case <-e.wake:
		case err := <-chClosed:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// settle handles one confirmation: an ack frees the event's slot, a nack
// queues the event to be published again.
func (e *Events) settle(inflight map[uint64]*event, c rabbit.Confirmation) {
	ev, ok := inflight[c.DeliveryTag]
	if !ok {
		return
	}
	delete(inflight, c.DeliveryTag)
	if c.Ack {
		e.confirmed.Add(1)
		<-e.slots
		return
	}
	e.republished.Add(1)
	e.giveBack([]*event{ev})
}
