package amqp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/heraldmq/herald"
	rabbit "github.com/rabbitmq/amqp091-go"
)

// backoff is a bounded, doubling wait, safe for concurrent use.
type backoff struct {
	min, max time.Duration

	mu   sync.Mutex
	next time.Duration
}

// wait returns the current wait and doubles the next one, up to max.
func (b *backoff) wait() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next < b.min {
		b.next = b.min
	}
	d := b.next
	b.next = min(2*b.next, b.max)
	return d
}

// reset makes the next wait the shortest again.
func (b *backoff) reset() {
	b.mu.Lock()
	b.next = b.min
	b.mu.Unlock()
}

// sleep waits d or until ctx ends, reporting whether the full wait passed.
func sleep(ctx context.Context, d time.Duration) bool { return herald.Sleep(ctx, d) }

// dial opens one connection named role in the broker.
func dial(o *Options, role string) (*rabbit.Connection, error) {
	props := rabbit.NewConnectionProperties()
	props.SetClientConnectionName(o.Name + " " + role)
	return rabbit.DialConfig(o.URL, rabbit.Config{
		Heartbeat:  o.Heartbeat,
		Properties: props,
		Dial:       rabbit.DefaultDial(5 * time.Second),
	})
}

// keepConnected dials a connection and runs session on it, again and again
// with backoff, until ctx ends. session returns when it is done with the
// connection (normally because it closed); the connection is then closed
// and dialled again. A session that lasted a while resets the backoff.
func keepConnected(ctx context.Context, o *Options, role string, session func(context.Context, *rabbit.Connection) error) {
	log := o.Logger.With("amqp", role)
	b := &backoff{min: o.RedialMin, max: o.RedialMax}
	o.Links.set(role, false)
	for ctx.Err() == nil {
		conn, err := dial(o, role)
		if err != nil {
			d := b.wait()
			log.Warn("cannot connect to RabbitMQ; retrying", "err", err, "in", d)
			sleep(ctx, d)
			continue
		}
		began := time.Now()
		o.Links.set(role, true)
		err = runSession(ctx, conn, session)
		o.Links.set(role, false)
		conn.Close()
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > o.RedialMax {
			b.reset()
		}
		d := b.wait()
		log.Warn("RabbitMQ connection lost; reconnecting", "err", err, "in", d)
		sleep(ctx, d)
	}
}

// runSession runs session with a context that also ends when conn closes.
func runSession(ctx context.Context, conn *rabbit.Connection, session func(context.Context, *rabbit.Connection) error) error {
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	closed := conn.NotifyClose(make(chan *rabbit.Error, 1))
	go func() {
		select {
		case e, ok := <-closed:
			if ok && e != nil {
				cancel(e)
			} else {
				cancel(errors.New("connection closed"))
			}
		case <-sctx.Done():
		}
	}()
	err := session(sctx, conn)
	if err == nil || errors.Is(err, context.Canceled) {
		if cause := context.Cause(sctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
	}
	return err
}
