package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
)

// cacheScenario puts messages into the cache (POST /v1/messages with the
// drill's message_uuid, one path per producer); a message is received
// when GET /v1/messages/{uuid} returns it with an intact body.
type cacheScenario struct {
	c      *client.Client
	reader cacheReader
}

func (s *cacheScenario) uses() uses                              { return uses{} }
func (s *cacheScenario) subscribers() int                        { return 1 }
func (s *cacheScenario) heraldArgs(*world) []string              { return nil }
func (s *cacheScenario) afterStop(context.Context, *scenarioRun) {}

func (s *cacheScenario) setup(ctx context.Context, r *scenarioRun) error {
	s.c = newCacheClient(r)
	s.reader.init(r)
	return nil
}

func (s *cacheScenario) produce(ctx context.Context, r *scenarioRun, worker, n int) error {
	metadata := json.RawMessage(`{"paths":["` + r.pathPrefix() + ".w" + strconv.Itoa(worker) + `"]}`)
	for range n {
		id, body := r.newMessage("")
		started := time.Now()
		if _, _, err := s.c.Put(ctx, api.PutRequest{MessageUUID: id.String(), Metadata: metadata, Body: []byte(body)}); err != nil {
			return err
		}
		r.tally.ack(id, started)
		s.reader.enqueue(id)
	}
	return nil
}

func (s *cacheScenario) consume(ctx context.Context, r *scenarioRun, worker int, stop <-chan struct{}) {
	s.reader.consume(ctx, r, worker, stop)
}

func (s *cacheScenario) finish(*scenarioRun)                    {}
func (s *cacheScenario) teardown(context.Context, *scenarioRun) {}

func newCacheClient(r *scenarioRun) *client.Client {
	n := r.cfg.Producers + r.cfg.Consumers + 4
	return client.New(r.url, &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
		Proxy: nil, MaxIdleConns: n, MaxIdleConnsPerHost: n, IdleConnTimeout: time.Minute}})
}

// cacheReader reads acknowledged messages back from the cache by id: the
// ids the producers hand it at once, again a little later when a read
// found nothing or failed (AMQP ingest stores a message some time after
// RabbitMQ confirmed it), and, by a rescan several times a second, the
// oldest acknowledged ids still missing.
type cacheReader struct {
	c       *client.Client
	pending chan pendingRead
	queued  sync.Map // ids in pending or being read: an id is queued once at a time
}

// pendingRead is an id to read, and how often it was read before.
type pendingRead struct {
	id    uuid.UUID
	tries int
}

// Retries of one id: after readRetry, at most readTries times; then only
// the idle scan asks again.
const (
	readRetry = 250 * time.Millisecond
	readTries = 40
)

func (cr *cacheReader) init(r *scenarioRun) {
	cr.c = newCacheClient(r)
	cr.pending = make(chan pendingRead, 100000)
}

// enqueue asks for id to be read, unless it is queued already; when the
// queue is full the rescan finds it later.
func (cr *cacheReader) enqueue(id uuid.UUID) {
	if _, dup := cr.queued.LoadOrStore(id, true); !dup {
		cr.push(pendingRead{id: id})
	}
}

func (cr *cacheReader) push(p pendingRead) {
	select {
	case cr.pending <- p:
	default:
		cr.queued.Delete(p.id)
	}
}

// retry reads p again after readRetry, unless it was tried too often
// (then the rescan asks for it again, in its turn).
func (cr *cacheReader) retry(p pendingRead) {
	if p.tries++; p.tries < readTries {
		time.AfterFunc(readRetry, func() { cr.push(p) })
		return
	}
	cr.queued.Delete(p.id)
}

// consume reads ids until stop. Worker 0 also rescans the tally for
// missing ids every rescanEvery while fewer than rescanBelow wait.
func (cr *cacheReader) consume(ctx context.Context, r *scenarioRun, worker int, stop <-chan struct{}) {
	var rescan <-chan time.Time
	if worker == 0 {
		t := time.NewTicker(rescanEvery)
		defer t.Stop()
		rescan = t.C
	}
	for !stopped(stop) && ctx.Err() == nil {
		select {
		case p := <-cr.pending:
			if !cr.read(ctx, r, p) && !sleep(ctx, stop, 20*time.Millisecond) {
				return
			}
		case <-rescan:
			if len(cr.pending) < rescanBelow && r.tally.missing() > 0 {
				// In the order acknowledged, the order Herald stores an
				// ingest backlog in, more or less (not after RabbitMQ
				// restarts): a window that moves on, so that ids still
				// missing do not hold back the others.
				for _, id := range r.tally.nextMissing(2 * rescanBelow) {
					cr.enqueue(id)
				}
			}
		case <-stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// The rescan of missing ids.
const (
	rescanEvery = 250 * time.Millisecond
	rescanBelow = 2000
)

// read gets one message; found and intact, it is received. It returns
// false when the server could not answer (the caller backs off).
func (cr *cacheReader) read(ctx context.Context, r *scenarioRun, p pendingRead) bool {
	id := p.id
	if r.tally.delivered(id, 0) {
		cr.queued.Delete(id)
		return true // read already
	}
	started := time.Now()
	m, err := cr.c.Get(ctx, id.String())
	var ce *client.Error
	switch {
	case errors.As(err, &ce) && ce.Status == http.StatusNotFound:
		cr.retry(p) // not (yet) there
		return true
	case err != nil:
		r.fail("get", err)
		cr.retry(p)
		return false
	}
	cr.queued.Delete(id)
	got, _, _, ok := r.received(string(m.Body), 0, started)
	if ok && (got != id || m.MessageUUID != id.String()) {
		r.tally.corruptBody("GET " + id.String() + " returned message " + m.MessageUUID + " with the body of " + got.String())
	}
	return true
}
