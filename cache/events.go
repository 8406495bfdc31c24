package cache

import "context"

// Events carries every stored message to whoever follows its paths: live
// subscribers on this node or any other (WebSocket clients, the event
// stream endpoint) and, with AMQP, backend systems bound to the
// herald.events exchange. There is one implementation per deployment: in
// process on one node (LocalEvents), through RabbitMQ across nodes
// (package amqp).
//
// An event is one (message, path) pair: a message stored under three paths
// is three events, each routed by its own path.
type Events interface {
	// Publish hands a stored message over for fan-out, one event per path.
	// It returns once the events are accepted (buffered); when the fan-out
	// is behind it blocks (back-pressure) until there is room or ctx ends.
	Publish(ctx context.Context, m *Message) error
	// Subscribe calls fn for each event, published on any node from now
	// on, whose path matches pattern (AMQP topic syntax, package paths).
	// fn runs on a goroutine of the implementation and must not block for
	// long. cancel stops the subscription and releases its resources.
	Subscribe(pattern string, fn func(path string, m *Message)) (cancel func(), err error)
}

// Interruptible is implemented by the Events whose feed to this node can
// be interrupted (package amqp's, while its connection to RabbitMQ is
// down): the node's subscribers miss the events published meanwhile, and
// no callback of theirs tells them. OnResume registers fn, called on a
// goroutine of the implementation each time the feed resumes after an
// interruption during which the node had subscribers (including
// subscribers made while the feed was still down, and at start-up). The
// returned cancel unregisters fn.
//
// A live subscriber that must not miss an event resynchronises then: the
// WebSocket endpoint closes its connections that hold subscriptions with a
// code that says "reconnect and recover".
type Interruptible interface {
	OnResume(fn func()) (cancel func())
}
