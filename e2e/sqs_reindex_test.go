package e2e

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/internal/promtext"
)

// TestSQSReindexAfterSwitchBack plays a fail-over and switch-back between
// two data centers on one Cassandra keyspace: node A and node B keep their
// queue indexes under different Redis key prefixes, as two data centers'
// Redis would. A's index of the queue is built (a receive through A); a
// message sent through B (the other data center took over) is in
// Cassandra but not in A's Redis, so A, marked built, does not deliver it
// (stranded) until 'sqs-reindex' bumps A's data center's index epoch
// through the admin API; then a receive through A rebuilds the queue from
// Cassandra and delivers it, without flushing anything else of that Redis.
func TestSQSReindexAfterSwitchBack(t *testing.T) {
	requireCassandra(t)
	requireRedis(t)
	run := uuid.NewString()[:8]
	a := cassandra.start(t, "", "--redis-key-prefix", "herald:e2e:"+run+":dc1:")
	b := cassandra.start(t, "", "--redis-key-prefix", "herald:e2e:"+run+":dc2:")
	epoch := switchBack(t, a, b)
	if epoch == 0 {
		t.Fatalf("reindex answered epoch 0")
	}
	key := "herald_sqs_index_epoch"
	if m, err := promtext.Fetch(ctxFor(t, 10*time.Second), http.DefaultClient, a.URL+"/metrics", key); err != nil || m[key] != float64(epoch) {
		t.Errorf("%s on A after the reindex: %v (%v), want %d", key, m[key], err, epoch)
	}
}

// switchBack plays a fail-over from node a's data center to node b's and
// back on a new queue: a message sent and received through a (a's Redis
// builds the queue), one sent through b while a's data center was away,
// which a does not see (stranded behind its built marker) until
// 'sqs-reindex' through a's admin API bumps its data center's index
// epoch; then a receive through a rebuilds the queue from Cassandra and
// delivers it. It returns the epoch the reindex answered.
func switchBack(t *testing.T, a, b *server) uint64 {
	t.Helper()
	ca, cb := sqsClient(a), sqsClient(b)
	url := newQueue(t, ca, "", nil)
	send := func(c *sqs.Client, body string) {
		t.Helper()
		if _, err := c.SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)}); err != nil {
			t.Fatalf("SendMessage %q: %v", body, err)
		}
	}
	receive := func(what string, want ...string) {
		t.Helper()
		got := receiveN(t, ca, url, max(len(want), 1), 3*time.Second, 30)
		deleteAll(t, ca, url, got)
		if bodies := bodiesOf(got); !slices.Equal(bodies, want) {
			t.Fatalf("%s: received %q, want %q", what, bodies, want)
		}
	}
	send(ca, "before the fail-over")
	receive("through A before the fail-over (A's Redis builds the queue)", "before the fail-over")
	send(cb, "through B while A's data center was away")
	receive("through A after the switch-back, before the reindex (stranded)")
	r, err := a.client().Reindex(ctxFor(t, 30*time.Second))
	if err != nil {
		t.Fatalf("reindex through A's admin API: %v\n%s", err, a.logs())
	}
	receive("through A after the reindex", "through B while A's data center was away")
	return r.Epoch
}

// bodiesOf is the bodies of msgs, for messages.
func bodiesOf(msgs []types.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = aws.ToString(m.Body)
	}
	return out
}

// TestSQSReindexEmbedded: the embedded engine keeps its index in the
// process, rebuilt at every start: it has no epoch to bump, and says so.
func TestSQSReindexEmbedded(t *testing.T) {
	s := startServer(t, "")
	if code := call(t, s, "POST", "/v1/admin/sqs/reindex", nil, nil); code != 400 {
		t.Fatalf("reindex on the embedded engine: %d, want 400", code)
	}
}

// TestDCAdminEmbedded: the data center commands need several data
// centers; the embedded engine says so, and a malformed body is refused
// before anything is looked at.
func TestDCAdminEmbedded(t *testing.T) {
	s := startServer(t, "")
	for _, tc := range []struct {
		method, path, body string
	}{
		{"GET", "/v1/admin/dc", ""},
		{"POST", "/v1/admin/dc/fence", `{"dc":"dc1"}`},
		{"POST", "/v1/admin/dc/unfence", `{"dc":"dc1"}`},
		{"POST", "/v1/admin/dc/fence", `{"datacenter":"dc1"}`},
		{"POST", "/v1/admin/dc/fence", `{"dc":1}`},
	} {
		var out map[string]any
		if code := call(t, s, tc.method, tc.path, []byte(tc.body), &out); code != 400 {
			t.Errorf("%s %s %s: %d %v, want 400", tc.method, tc.path, tc.body, code, out)
		}
	}
}
