package amqp

import (
	"context"
	"errors"
	"maps"
	"sync"

	rabbit "github.com/rabbitmq/amqp091-go"
)

// deadLetters publishes refused messages to the DLX with publisher
// confirms, over a publishing connection of its own that it dials when
// needed. Calls are serialized: the channel has one user at a time.
type deadLetters struct {
	o *Options

	mu   sync.Mutex
	conn *rabbit.Connection
	ch   *rabbit.Channel
}

// publish copies d to the DLX with reason in the ErrorHeader and waits for
// the broker's confirmation.
func (p *deadLetters) publish(ctx context.Context, d *rabbit.Delivery, reason string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.open(); err != nil {
		return err
	}
	headers := maps.Clone(d.Headers)
	if headers == nil {
		headers = rabbit.Table{}
	}
	headers[ErrorHeader] = reason
	headers["x-herald-exchange"] = d.Exchange
	if d.Expiration != "" {
		// Not copied as an expiration: the dead message must not vanish.
		headers["x-herald-expiration"] = d.Expiration
	}
	dc, err := p.ch.PublishWithDeferredConfirmWithContext(ctx, p.o.DLX, d.RoutingKey, false, false, rabbit.Publishing{
		Headers:         headers,
		ContentType:     d.ContentType,
		ContentEncoding: d.ContentEncoding,
		DeliveryMode:    rabbit.Persistent,
		Priority:        d.Priority,
		CorrelationId:   d.CorrelationId,
		ReplyTo:         d.ReplyTo,
		MessageId:       d.MessageId,
		Timestamp:       d.Timestamp,
		Type:            d.Type,
		UserId:          d.UserId,
		AppId:           d.AppId,
		Body:            d.Body,
	})
	if err != nil {
		p.reset()
		return err
	}
	ok, err := dc.WaitContext(ctx)
	if err != nil {
		p.reset()
		return err
	}
	if !ok {
		p.reset()
		return errors.New("RabbitMQ did not confirm the dead letter")
	}
	return nil
}

// open makes sure there is a confirming channel with the DLX declared.
func (p *deadLetters) open() error {
	if p.ch != nil && !p.ch.IsClosed() {
		return nil
	}
	p.reset()
	conn, err := dial(p.o, "dead-letter publisher")
	if err != nil {
		return err
	}
	ch, err := conn.Channel()
	if err == nil {
		err = ch.Confirm(false)
	}
	if err == nil {
		err = declareDead(ch, p.o)
	}
	if err != nil {
		conn.Close()
		return err
	}
	p.conn, p.ch = conn, ch
	return nil
}

func (p *deadLetters) reset() {
	if p.conn != nil {
		p.conn.Close()
	}
	p.conn, p.ch = nil, nil
}

func (p *deadLetters) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reset()
}
