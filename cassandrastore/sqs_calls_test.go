package cassandrastore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// statementLog records the statements a store sends, batched or not.
type statementLog struct {
	mu    sync.Mutex
	stmts []string
}

func (l *statementLog) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stmts = append(l.stmts, q.Statement)
}

func (l *statementLog) ObserveBatch(_ context.Context, b gocql.ObservedBatch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stmts = append(l.stmts, b.Statements...)
}

// take returns the statements recorded since the last take.
func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.stmts
	l.stmts = nil
	return out
}

// TestSQSHotPathStatements checks what the store sends for the calls of a
// send, receive and delete cycle: each is one statement on one message
// partition, with no read before a write and no lightweight transaction,
// and a put writes the bucket registry only when this process has not yet
// written that bucket's row (not on every put).
func TestSQSHotPathStatements(t *testing.T) {
	ctx := context.Background()
	sharedStore(t)
	var log statementLog
	qs := openTest(t, shared.addr, Options{Keyspace: shared.ks, configure: func(c *gocql.ClusterConfig) {
		c.QueryObserver, c.BatchObserver = &log, &log
	}}).Queues()
	q := mustCreateQueue(t, qs, 4)
	log.take()

	now := time.Now()
	calls := []struct {
		name, want string
		call       func(m *sqs.Message) error
	}{
		{"PutMessages", "INSERT INTO " + shared.ks + ".sqs_messages", func(m *sqs.Message) error {
			return qs.PutMessages(ctx, q, []*sqs.Message{m})
		}},
		{"GetMessages", "SELECT", func(m *sqs.Message) error {
			got, err := qs.GetMessages(ctx, q, []uuid.UUID{m.ID})
			if err == nil && len(got) != 1 {
				t.Errorf("GetMessages found %d messages, want 1", len(got))
			}
			return err
		}},
		{"SaveStates", "UPDATE " + shared.ks + ".sqs_messages", func(m *sqs.Message) error {
			return qs.SaveStates(ctx, q, []sqs.State{{ID: m.ID, ReceiveCount: 1, VisibleAt: time.Now().Add(time.Minute)}})
		}},
		{"DeleteMessages", "DELETE FROM " + shared.ks + ".sqs_messages", func(m *sqs.Message) error {
			return qs.DeleteMessages(ctx, q, []uuid.UUID{m.ID})
		}},
	}
	registered := map[int]bool{} // shards whose registry row this process wrote
	crossed := false             // a registry row written again at a rounding step
	for i := range 20 {          // one bucket: every message within a millisecond
		m := newSQSMsg(now.Add(time.Duration(i)*time.Microsecond), q.Shards, time.Hour, "m")
		for _, c := range calls {
			if err := c.call(m); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got := log.take()
			if c.name == "PutMessages" && len(got) == 2 && countWith(got, "sqs_buckets") == 1 {
				switch {
				case !registered[m.Shard]:
					registered[m.Shard] = true
					continue
				case !crossed:
					crossed = true
					continue
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], c.want) || strings.Contains(got[0], " IF ") {
				t.Fatalf("%s of message %d sent %q, want one %s", c.name, i, got, c.want)
			}
		}
	}
	if len(registered) < 2 {
		t.Fatalf("20 messages in %d shards of 4", len(registered))
	}
}

func countWith(stmts []string, s string) int {
	n := 0
	for _, st := range stmts {
		if strings.Contains(st, s) {
			n++
		}
	}
	return n
}
