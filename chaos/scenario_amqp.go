package chaos

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	rabbit "github.com/rabbitmq/amqp091-go"
)

// amqpScenario publishes messages to Herald's ingest exchange (persistent,
// with publisher confirms, the drill's id as message-id, one routing key
// = path per producer) straight to RabbitMQ; Herald consumes them through
// its proxied link and stores them in the cache. A message is
// acknowledged when RabbitMQ confirmed it, received when GET
// /v1/messages/{uuid} returns it intact.
type amqpScenario struct {
	reader cacheReader

	mu   sync.Mutex
	pubs map[int]*amqpPublisher
}

func (s *amqpScenario) uses() uses                 { return uses{amqp: true} }
func (s *amqpScenario) subscribers() int           { return 1 }
func (s *amqpScenario) heraldArgs(*world) []string { return nil }

// setup waits until Herald declared its ingest exchange and queue (they
// are durable: a message published from then on is kept).
func (s *amqpScenario) setup(ctx context.Context, r *scenarioRun) error {
	s.reader.init(r)
	s.pubs = map[int]*amqpPublisher{}
	exchange, queue, _, _ := r.w.amqpNames()
	var last error
	for ctx.Err() == nil {
		if last = declaredPassively(r.cfg.AMQPURL, exchange, queue); last == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("herald did not declare %s: %v", exchange, last)
}

func declaredPassively(amqpURL, exchange, queue string) error {
	conn, err := rabbit.Dial(amqpURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if err := ch.ExchangeDeclarePassive(exchange, rabbit.ExchangeTopic, true, false, false, false, nil); err != nil {
		return err
	}
	_, err = ch.QueueDeclarePassive(queue, true, false, false, false, nil)
	return err
}

func (s *amqpScenario) produce(ctx context.Context, r *scenarioRun, worker, n int) error {
	s.mu.Lock()
	p := s.pubs[worker]
	if p == nil {
		p = &amqpPublisher{}
		s.pubs[worker] = p
	}
	s.mu.Unlock()
	exchange, _, _, _ := r.w.amqpNames()
	err := p.publish(ctx, r, exchange, r.pathPrefix()+".w"+strconv.Itoa(worker), n, s.reader.enqueue)
	if err != nil {
		p.close()
	}
	return err
}

func (s *amqpScenario) consume(ctx context.Context, r *scenarioRun, worker int, stop <-chan struct{}) {
	s.reader.consume(ctx, r, worker, stop)
}

func (s *amqpScenario) finish(*scenarioRun) {}

func (s *amqpScenario) teardown(context.Context, *scenarioRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pubs {
		p.close()
	}
}

// afterStop deletes the drill's exchanges and ingest queue once Herald
// stopped (it would declare them again).
func (s *amqpScenario) afterStop(ctx context.Context, r *scenarioRun) {
	conn, err := rabbit.Dial(r.cfg.AMQPURL)
	if err != nil {
		return
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return
	}
	ingest, queue, dlx, events := r.w.amqpNames()
	ch.QueueDelete(queue, false, false, false)
	for _, x := range []string{ingest, dlx, events} {
		ch.ExchangeDelete(x, false, false)
	}
}

// amqpPublisher is one producer's connection, with a confirming channel,
// made on first use and again after a failure.
type amqpPublisher struct {
	conn *rabbit.Connection
	ch   *rabbit.Channel
}

func (p *amqpPublisher) connect(amqpURL string) error {
	conn, err := rabbit.DialConfig(amqpURL, rabbit.Config{Dial: rabbit.DefaultDial(5 * time.Second), Heartbeat: 5 * time.Second})
	if err != nil {
		return err
	}
	ch, err := conn.Channel()
	if err == nil {
		err = ch.Confirm(false)
	}
	if err != nil {
		conn.Close()
		return err
	}
	p.conn, p.ch = conn, ch
	return nil
}

func (p *amqpPublisher) close() {
	if p.conn != nil {
		p.conn.Close()
	}
	p.conn, p.ch = nil, nil
}

// publish publishes n messages and waits for their confirms; each
// confirmed (acked) one is acknowledged and handed to confirmed.
func (p *amqpPublisher) publish(ctx context.Context, r *scenarioRun, exchange, routingKey string, n int, confirmed func(uuid.UUID)) error {
	if p.ch == nil || p.conn.IsClosed() {
		p.close()
		if err := p.connect(r.cfg.AMQPURL); err != nil {
			return err
		}
	}
	ids := make([]uuid.UUID, 0, n)
	dcs := make([]*rabbit.DeferredConfirmation, 0, n)
	started := time.Now()
	var err error
	for range n {
		id, body := r.newMessage("")
		var dc *rabbit.DeferredConfirmation
		dc, err = p.ch.PublishWithDeferredConfirmWithContext(ctx, exchange, routingKey, false, false, rabbit.Publishing{
			MessageId: id.String(), Body: []byte(body), DeliveryMode: rabbit.Persistent, ContentType: "application/octet-stream",
		})
		if err != nil {
			break
		}
		ids, dcs = append(ids, id), append(dcs, dc)
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	nacked := 0
	for i, dc := range dcs {
		ok, werr := dc.WaitContext(wctx)
		if werr != nil {
			return fmt.Errorf("waiting for a publisher confirm: %w", werr)
		}
		if !ok {
			nacked++
			continue
		}
		r.tally.ack(ids[i], started)
		confirmed(ids[i])
	}
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if nacked > 0 {
		return fmt.Errorf("%d of %d publishes not confirmed", nacked, len(dcs))
	}
	return nil
}
