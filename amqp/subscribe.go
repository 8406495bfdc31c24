package amqp

import (
	"context"
	"errors"
	"sync"

	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/paths"
)

// subscriptions are this node's live subscribers and the bindings of its
// event queue. bindMu orders binding changes with (re)connections, so that
// the broker's bindings always follow the reference counts.
type subscriptions struct {
	idx *paths.Index[*subscriber]

	bindMu sync.Mutex
	refs   map[string]int     // pattern → local subscribers using it
	conn   *rabbit.Connection // the consuming connection, nil while down
	queue  string             // this node's queue on conn
}

type subscriber struct {
	fn func(path string, m *cache.Message)
}

func (s *subscriptions) init() {
	s.idx = paths.NewIndex[*subscriber]()
	s.refs = make(map[string]int)
}

// Subscribe calls fn for each event whose path matches pattern, from any
// node. While connected, it returns once the pattern is bound; while not,
// the binding is made on reconnection: events published meanwhile are
// missed, and OnResume's callbacks are called then.
func (e *Events) Subscribe(pattern string, fn func(path string, m *cache.Message)) (func(), error) {
	p, err := paths.ParsePattern(pattern)
	if err != nil {
		return nil, herald.Errorf(herald.EInvalid, "%v", err)
	}
	select {
	case <-e.closed:
		return nil, ErrClosed
	default:
	}
	key := p.String()
	sub := &subscriber{fn: fn}
	s := &e.subs
	s.bindMu.Lock()
	s.refs[key]++
	if s.refs[key] == 1 && s.conn != nil {
		e.changeBinding(s.conn, s.queue, key, true)
	}
	s.idx.Add(p, sub)
	s.bindMu.Unlock()

	var once sync.Once
	return func() {
		once.Do(func() {
			s.bindMu.Lock()
			defer s.bindMu.Unlock()
			s.idx.Remove(p, sub)
			if s.refs[key]--; s.refs[key] > 0 {
				return
			}
			delete(s.refs, key)
			if s.conn != nil {
				e.changeBinding(s.conn, s.queue, key, false)
			}
		})
	}, nil
}

// changeBinding binds or unbinds key on a short-lived channel of the
// caller's own. If that fails the connection is closed, so that the
// consumer reconnects and binds every active pattern afresh.
func (e *Events) changeBinding(conn *rabbit.Connection, queue, key string, bind bool) {
	ch, err := conn.Channel()
	if err == nil {
		if bind {
			err = ch.QueueBind(queue, key, e.o.EventsExchange, false, nil)
		} else {
			err = ch.QueueUnbind(queue, key, e.o.EventsExchange, nil)
		}
		ch.Close()
	}
	if err != nil {
		e.o.Logger.Warn("cannot change an events binding; reconnecting", "amqp", "events consumer",
			"pattern", key, "bind", bind, "err", err)
		conn.Close()
	}
}

// consumeSession declares this node's queue on conn, binds the active
// patterns and dispatches deliveries until the connection closes.
func (e *Events) consumeSession(ctx context.Context, conn *rabbit.Connection) error {
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := declareEvents(ch, &e.o); err != nil {
		return err
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		return err
	}
	if err := ch.Qos(e.o.EventPrefetch, 0, false); err != nil {
		return err
	}
	deliveries, err := ch.Consume(q.Name, "", false, true, false, false, nil)
	if err != nil {
		return err
	}
	s := &e.subs
	s.bindMu.Lock()
	for key := range s.refs {
		if err := ch.QueueBind(q.Name, key, e.o.EventsExchange, false, nil); err != nil {
			s.bindMu.Unlock()
			return err
		}
	}
	s.conn, s.queue = conn, q.Name
	missed := len(s.refs) > 0 // subscribers of the node missed what was published with no queue bound
	s.bindMu.Unlock()
	if missed {
		e.resumed()
	}
	defer func() {
		s.bindMu.Lock()
		if s.conn == conn {
			s.conn, s.queue = nil, ""
		}
		s.bindMu.Unlock()
	}()
	e.subOnce.Do(func() { close(e.subUp) })

	var unacked int
	var last uint64
	for {
		select {
		case d, ok := <-deliveries:
			if !ok {
				return errors.New("the events consumer stopped")
			}
			e.dispatch(d.Body)
			unacked, last = unacked+1, d.DeliveryTag
			if unacked >= max(e.o.EventPrefetch/2, 1) || len(deliveries) == 0 {
				if err := ch.Ack(last, true); err != nil {
					return err
				}
				unacked = 0
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// dispatch hands one event to the local subscribers whose pattern matches.
func (e *Events) dispatch(body []byte) {
	e.received.Add(1)
	path, m, err := decodeEvent(body)
	if err != nil {
		e.unmatched.Add(1)
		e.o.Logger.Warn("ignoring an undecodable event", "amqp", "events consumer", "err", err)
		return
	}
	var fns []func(string, *cache.Message)
	e.subs.idx.Match(path, func(s *subscriber) { fns = append(fns, s.fn) })
	if len(fns) == 0 {
		e.unmatched.Add(1)
		return
	}
	for _, fn := range fns {
		fn(path, m)
	}
}
