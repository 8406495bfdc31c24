package cassandrastore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// Store is the Cassandra implementation of cache.Store. It is safe for
// concurrent use.
type Store struct {
	opts Options
	q    queries

	// conn is set once the session is up and the schema is in place.
	conn   atomic.Pointer[conn]
	ready  chan struct{} // closed when conn is first set
	closed atomic.Bool

	mu      sync.Mutex // guards lastErr and the hand-over of the session at Close
	lastErr error      // why the last connection attempt failed

	stop   context.CancelFunc // ends the connection loop
	gaveUp chan struct{}      // closed when the loop ends without connecting

	// stripes serialise puts of the same id within this process, so that
	// "look up, then write" cannot interleave for one id (across
	// processes, see PutMessage).
	stripes [stripeCount]sync.Mutex

	// marks remembers which liveness rows this process has written.
	marks marks

	// queues is the SQS store on the same connection (Queues).
	queues *queueStore
	// topics is the SNS store on the same connection (Topics).
	topics *topicStore
	// rollups is the rollup store on the same connection (Rollups).
	rollups *rollupStore
	// life ends when the store closes (background loops).
	life context.Context

	// heartbeat measures the replication lag from the other data
	// centers (LocalDC set).
	heartbeat heartbeat
	// fences are the fenced data centers as last read (fences.go).
	fences fenceState
}

// conn is an established session and the layout of the keyspace.
type conn struct {
	s *gocql.Session
	w gocql.Consistency // of writes (Options.WriteConsistency)
	// peerFenced is the Store's fence flag (fences.go): while another
	// data center is fenced, writes and lightweight transactions stop
	// waiting for it.
	peerFenced *atomic.Bool
	l          layout
	epoch      string
}

const stripeCount = 1024

var errClosed = errors.New("cassandra store is closed")

// Open returns a Store for the cluster and keyspace of opts. It returns at
// once: a background goroutine connects, retrying with backoff until it
// succeeds or the Store is closed, then creates the keyspace and tables
// that are missing. Until then every method fails with a
// herald.Unavailable error; Ready waits for the connection.
//
// Open fails only for invalid options or an already cancelled ctx; ctx
// does not bound the background connection.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("cassandrastore: %w", err)
	}
	loopCtx, stop := context.WithCancel(context.Background())
	st := &Store{
		life:    loopCtx,
		opts:    o,
		q:       newQueries(o.Keyspace),
		ready:   make(chan struct{}),
		stop:    stop,
		gaveUp:  make(chan struct{}),
		lastErr: errors.New("connecting to Cassandra"),
	}
	st.marks.init()
	st.queues = newQueueStore(st)
	st.topics = newTopicStore(st)
	st.rollups = newRollupStore(st)
	go st.connectLoop(loopCtx)
	return st, nil
}

// Ready reports whether the store can serve requests, as a health check:
// until the first connection succeeded it waits for it (or for ctx to end,
// returning a herald.Unavailable error carrying the last connection
// failure); once connected it checks that Cassandra still answers, with one
// cheap query (the local node's system.local row). It fails once the store
// is closed.
func (st *Store) Ready(ctx context.Context) error {
	const op = "ready"
	select {
	case <-st.ready:
	case <-st.gaveUp:
		return herald.Unavailable(op, errClosed)
	case <-ctx.Done():
		return herald.Unavailable(op, fmt.Errorf("%w; last attempt: %w", ctx.Err(), st.lastError()))
	}
	c, err := st.enter(ctx, op)
	if err != nil {
		return err
	}
	err = c.s.Query(`SELECT release_version FROM system.local`).Consistency(gocql.One).WithContext(ctx).Exec()
	if err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// Close ends the connection loop and closes the session. Calls in flight
// fail with an Unavailable error.
func (st *Store) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed.Swap(true) {
		return nil
	}
	st.stop()
	if c := st.conn.Load(); c != nil {
		c.s.Close()
	}
	return nil
}

// connectLoop connects and creates the schema, retrying with exponential
// backoff (250 ms doubling up to 10 s, with jitter), until it succeeds or
// the store is closed.
func (st *Store) connectLoop(ctx context.Context) {
	connected := false
	defer func() {
		if !connected {
			close(st.gaveUp)
		}
	}()
	log := st.opts.Logger.With("keyspace", st.opts.Keyspace, "hosts", st.opts.Hosts)
	backoff := 250 * time.Millisecond
	var sess *gocql.Session
	for attempt := 1; ; attempt++ {
		err := ctx.Err()
		if err == nil && sess == nil {
			sess, err = st.opts.clusterConfig().CreateSession()
		}
		if err == nil {
			var l layout
			var epoch string
			schemaCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			l, err = ensureSchema(schemaCtx, sess, st.opts)
			if err == nil {
				epoch, err = ensureEpoch(schemaCtx, sess, st.opts.Keyspace)
			}
			cancel()
			if err == nil && st.publish(&conn{s: sess, w: st.opts.writeConsistency(), peerFenced: &st.fences.peerFenced, l: l, epoch: epoch}) {
				connected = true
				log.Info("cassandra: connected", "attempts", attempt)
				if st.opts.LocalDC != "" {
					go st.runHeartbeat(ctx)
				}
				return
			}
		}
		if ctx.Err() != nil {
			if sess != nil {
				sess.Close()
			}
			return
		}
		st.setLastError(err)
		log.Warn("cassandra: cannot connect; retrying", "err", err, "attempt", attempt, "retry_in", backoff)
		t := time.NewTimer(backoff/2 + rand.N(backoff/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			if sess != nil {
				sess.Close()
			}
			return
		case <-t.C:
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}

// publish makes c the store's connection, unless the store was closed
// meanwhile (then it closes c's session and returns false).
func (st *Store) publish(c *conn) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed.Load() {
		c.s.Close()
		return false
	}
	st.conn.Store(c)
	close(st.ready)
	return true
}

func (st *Store) setLastError(err error) {
	st.mu.Lock()
	st.lastErr = err
	st.mu.Unlock()
}

func (st *Store) lastError() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.lastErr
}

// enter returns the connection for one call of op, or the Unavailable
// error to return when ctx is done, the store is closed or not connected.
func (st *Store) enter(ctx context.Context, op string) (*conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	if st.closed.Load() {
		return nil, herald.Unavailable(op, errClosed)
	}
	c := st.conn.Load()
	if c == nil {
		return nil, herald.Unavailable(op, fmt.Errorf("not connected to Cassandra: %w", st.lastError()))
	}
	return c, nil
}

// Queues returns the SQS store (queue records and messages) on the same
// keyspace and connection; it is usable, and unavailable, exactly when st is.
func (st *Store) Queues() sqs.Store { return st.queues }

// Topics returns the SNS store (topic records and subscriptions) on the
// same keyspace and connection; like Queues, usable exactly when st is.
func (st *Store) Topics() sns.Store { return st.topics }

// nowMs returns the store's clock in Unix milliseconds.
func (st *Store) nowMs() int64 { return st.opts.Now().UnixMilli() }

// stripeOf returns the put lock of id.
func (st *Store) stripeOf(id uuid.UUID) *sync.Mutex {
	var h uint64
	for _, b := range id {
		h = h*31 + uint64(b)
	}
	return &st.stripes[h%stripeCount]
}

// Check that Store implements the contract.
var _ cache.Store = (*Store)(nil)
