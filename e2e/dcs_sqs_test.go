package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
)

// drillLateDelete is how long after its receive a delete may be answered
// and still count as in time: the drill's queues have a visibility
// timeout of 5 s.
const drillLateDelete = 4 * time.Second

// sqsDrill is the accounting of producers and consumers on both data
// centers of one queue: what was acknowledged, received (and how often),
// and how long a message took from its send to its receive in the other
// data center.
type sqsDrill struct {
	url string

	mu       sync.Mutex
	acked    map[string]string    // message id → the data center that acknowledged its send
	received map[string]int       // message id → receives
	crossDC  []time.Duration      // send to first receive, in the other data center
	firstAt  map[string]time.Time // message id → first receive
	// undeleted holds the messages a receive of which was not deleted in
	// time: the delete failed, or was answered after the queue's
	// visibility timeout could have passed. Receiving one again is SQS's
	// at-least-once, not two Indexes serving the queue.
	undeleted map[string]bool
	sendErrs  atomic.Int64
	lastErr   atomic.Pointer[error] // of a receive
}

func newSQSDrill(url string) *sqsDrill {
	return &sqsDrill{url: url, acked: map[string]string{}, received: map[string]int{}, firstAt: map[string]time.Time{}, undeleted: map[string]bool{}}
}

// produce sends from dc through c until ctx ends; each body carries the
// data center and the send time.
func (d *sqsDrill) produce(ctx context.Context, wg *sync.WaitGroup, dc string, c *sqs.Client) {
	wg.Go(func() {
		for ctx.Err() == nil {
			body := fmt.Sprintf("%s|%d", dc, time.Now().UnixNano())
			call, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			out, err := c.SendMessage(call, &sqs.SendMessageInput{QueueUrl: aws.String(d.url), MessageBody: aws.String(body)})
			cancel()
			if err != nil {
				d.sendErrs.Add(1)
				time.Sleep(50 * time.Millisecond)
				continue
			}
			d.mu.Lock()
			d.acked[aws.ToString(out.MessageId)] = dc
			d.mu.Unlock()
		}
	})
}

// consume receives in dc through c and deletes what it received, until
// ctx ends.
func (d *sqsDrill) consume(ctx context.Context, wg *sync.WaitGroup, dc string, c *sqs.Client) {
	wg.Go(func() {
		for ctx.Err() == nil {
			call, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			out, err := c.ReceiveMessage(call, &sqs.ReceiveMessageInput{QueueUrl: aws.String(d.url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
			cancel()
			if err != nil {
				d.lastErr.Store(&err)
				time.Sleep(50 * time.Millisecond)
				continue
			}
			now := time.Now()
			var entries []types.DeleteMessageBatchRequestEntry
			var ids []string
			d.mu.Lock()
			for i, m := range out.Messages {
				id := aws.ToString(m.MessageId)
				ids = append(ids, id)
				d.received[id]++
				if d.received[id] == 1 {
					d.firstAt[id] = now
					from, sentNs, _ := strings.Cut(aws.ToString(m.Body), "|")
					if ns, err := strconv.ParseInt(sentNs, 10, 64); err == nil && from != dc {
						d.crossDC = append(d.crossDC, now.Sub(time.Unix(0, ns)))
					}
				}
				entries = append(entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
			}
			d.mu.Unlock()
			if len(entries) > 0 {
				call, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				res, err := c.DeleteMessageBatch(call, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(d.url), Entries: entries})
				cancel()
				late := time.Since(now) > drillLateDelete
				d.mu.Lock()
				for i, id := range ids {
					if err != nil || late {
						d.undeleted[id] = true
					} else if res != nil && slices.ContainsFunc(res.Failed, func(f types.BatchResultErrorEntry) bool { return aws.ToString(f.Id) == strconv.Itoa(i) }) {
						d.undeleted[id] = true
					}
				}
				d.mu.Unlock()
			}
		}
	})
}

// missing returns the acknowledged messages not received yet.
func (d *sqsDrill) missing() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for id := range d.acked {
		if d.received[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}

// report returns the counts: acknowledged, received, received more than
// once (extra receives, of messages whose every receive was deleted in
// time; see redelivered), and the cross-DC latency p50 and p99.
func (d *sqsDrill) report() (acked, received, duplicates int, p50, p99 time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for id, n := range d.received {
		received++
		if !d.undeleted[id] {
			duplicates += n - 1
		}
	}
	lat := slices.Clone(d.crossDC)
	slices.Sort(lat)
	if len(lat) > 0 {
		p50, p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	return len(d.acked), received, duplicates, p50, p99
}

// redelivered counts the extra receives of messages a receive of which
// was not deleted in time (SQS's at-least-once; left out of report's
// duplicates).
func (d *sqsDrill) redelivered() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for id := range d.undeleted {
		n += max(0, d.received[id]-1)
	}
	return n
}

// awaitAllReceived runs consumers through cs until every acknowledged
// message was received, or fails after d.
func (d *sqsDrill) awaitAllReceived(t *testing.T, within time.Duration, cs map[string]*sqs.Client) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for dc, c := range cs {
		d.consume(ctx, &wg, dc, c)
	}
	deadline := time.Now().Add(within)
	for len(d.missing()) > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	stop()
	wg.Wait()
	if m := d.missing(); len(m) > 0 {
		var last error
		if p := d.lastErr.Load(); p != nil {
			last = *p
		}
		t.Fatalf("%d acknowledged messages never received within %s (e.g. %s); last receive error: %v", len(m), within, m[0], last)
	}
}

// run runs producers and consumers on the given data centers for d.
func (d *sqsDrill) run(dur time.Duration, producers, consumers map[string]*sqs.Client) {
	ctx, stop := context.WithTimeout(context.Background(), dur)
	defer stop()
	var wg sync.WaitGroup
	for dc, c := range producers {
		d.produce(ctx, &wg, dc, c)
		d.produce(ctx, &wg, dc, c)
	}
	for dc, c := range consumers {
		d.consume(ctx, &wg, dc, c)
		d.consume(ctx, &wg, dc, c)
	}
	wg.Wait()
}

// start runs a producer and a consumer in each data center of cs until
// the returned stop is called (it returns once they have ended).
func (d *sqsDrill) start(cs map[string]*sqs.Client) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for dc, c := range cs {
		d.produce(ctx, &wg, dc, c)
		d.consume(ctx, &wg, dc, c)
	}
	return func() { cancel(); wg.Wait() }
}

// startActive starts a node of dc that reaches the other data center's
// Redis: queues are served from both (--dc-peer-redis).
func (r *twoDCs) startActive(t *testing.T, dc dataCenter, secret string) *server {
	t.Helper()
	peer := r.dc2
	if dc.name == r.dc2.name {
		peer = r.dc1
	}
	return r.start(t, dc, "--sqs-receipt-secret", secret, "--dc-peer-redis", peer.name+"="+peer.redis)
}

// activePair is a node in each data center of the rig, both active
// (startActive), with their SQS clients.
type activePair struct {
	r      *twoDCs
	secret string // the receipt handle secret the nodes share
	n1, n2 *server
	c1, c2 *sqs.Client
	both   map[string]*sqs.Client // by data center
}

func startActivePair(t *testing.T) *activePair {
	t.Helper()
	p := &activePair{r: requireTwoDCs(t), secret: uuid.NewString()}
	p.n1, p.n2 = p.r.startActive(t, p.r.dc1, p.secret), p.r.startActive(t, p.r.dc2, p.secret)
	p.c1, p.c2 = sqsClient(p.n1), sqsClient(p.n2)
	p.both = map[string]*sqs.Client{"dc1": p.c1, "dc2": p.c2}
	return p
}

// TestTwoDCsSQSActiveActive drives one queue from both data centers of the
// rig, then kills its home data center under load and takes it over, then
// brings it back:
//  1. Producers and consumers in both DCs: every acknowledged message is
//     received, with no duplicate (one Index serves the queue).
//  2. dc1 (the queue's home) is killed under load with the safe write
//     level, and fenced from dc2: every message acknowledged in either DC
//     is received in dc2; the take-over time is reported.
//  3. dc1 comes back and is unfenced: messages sent in dc2 during the
//     fence and not yet received come out of dc1's rebuilt Index, and
//     both DCs serve the queue again.
func TestTwoDCsSQSActiveActive(t *testing.T) {
	p := startActivePair(t)
	r, secret, n2, c1, c2, both := p.r, p.secret, p.n2, p.c1, p.c2, p.both
	url := newQueue(t, c1, "", map[string]string{"VisibilityTimeout": "5"})

	// 1. Steady state.
	steady := newSQSDrill(url)
	steady.run(drillSeconds(20), both, both)
	steady.awaitAllReceived(t, 30*time.Second, both)
	acked, received, dups, p50, p99 := steady.report()
	t.Logf("steady state, %s: %d sends acknowledged (%d failed), %d received, %d duplicate receives (and %d after a failed or late delete); cross-DC send-to-receive p50 %s p99 %s",
		drillSeconds(20), acked, steady.sendErrs.Load(), received, dups, steady.redelivered(), p50.Round(time.Millisecond), p99.Round(time.Millisecond))
	if acked < 100 {
		t.Fatalf("only %d sends acknowledged", acked)
	}
	if dups != 0 {
		t.Errorf("%d duplicate receives in the steady state, want none (one Index serves the queue)", dups)
	}

	// 2. Kill the queue's home under load, fence it from dc2.
	failover := newSQSDrill(url)
	stop := failover.start(both)
	time.Sleep(5 * time.Second)
	flushSchema(t, r.dc1)
	dcs(t, "kill", r.dc1.name)
	revived := false
	t.Cleanup(func() {
		if !revived {
			dcs(t, "revive", r.dc1.name)
			r.awaitEachQuorum(t, r.dc1)
		}
	})
	killedAt := time.Now()
	st, err := n2.client().FenceDC(ctxFor(t, time.Minute), "dc1")
	if err != nil {
		t.Fatalf("fence dc1 through dc2: %v\n%s", err, n2.logs())
	}
	if st.Fenced["dc1"] != "dc2" {
		t.Fatalf("after the fence: %+v", st)
	}
	fencedAt := time.Now()
	// Take-over: until a receive in dc2 hands out a message again.
	before := failover.receivedCount()
	for failover.receivedCount() == before && time.Since(fencedAt) < time.Minute {
		time.Sleep(20 * time.Millisecond)
	}
	takeover := time.Since(fencedAt)
	time.Sleep(10 * time.Second)
	stop()
	failover.awaitAllReceived(t, 30*time.Second, map[string]*sqs.Client{"dc2": c2})
	acked, received, dups, _, _ = failover.report()
	t.Logf("dc1 killed under load: fenced %s after the kill; dc2 received again %s after the fence; %d sends acknowledged in both DCs (%d failed), all %d received in dc2 or before the kill, %d duplicate receives (in flight in dc1 at its death)",
		fencedAt.Sub(killedAt).Round(time.Millisecond), takeover.Round(time.Millisecond), acked, failover.sendErrs.Load(), received, dups)
	if takeover >= time.Minute {
		t.Fatalf("dc2 received nothing within a minute of the fence\n%s", n2.logs())
	}

	// 3. Messages sent during the fence, left for dc1 to serve after it
	// comes back.
	left := newSQSDrill(url)
	for range 20 {
		out, err := c2.SendMessage(ctxFor(t, 10*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("dc2|0")})
		if err != nil {
			t.Fatal(err)
		}
		left.acked[aws.ToString(out.MessageId)] = "dc2"
	}
	dcs(t, "revive", r.dc1.name)
	revived = true
	r.awaitEachQuorum(t, r.dc1)
	// The runbook's repair: a DC killed outright may have lost writes it
	// had acknowledged (Cassandra skips, on replay, the writes of tables
	// whose schema it had not yet flushed), which only a repair brings
	// back; hints cover only what was written while it was away.
	repairStart := time.Now()
	dcs(t, "nodetool", r.dc1.name, "repair", "-full", r.keyspace)
	t.Logf("repair of dc1 took %s", time.Since(repairStart).Round(time.Millisecond))
	// The unfence refuses while dc2 holds hints for dc1 (the sends of the
	// fence not yet replayed to it), as the runbook says to wait for.
	refused := 0
	for {
		_, err := n2.client().UnfenceDC(ctxFor(t, 2*time.Minute), "dc1")
		if err == nil {
			break
		}
		// Refused while hints are pending; unavailable for a while if the
		// rig had to restart dc2's Cassandra (awaitEachQuorum).
		if refused > 120 {
			t.Fatalf("unfence dc1: %v\n%s", err, n2.logs())
		}
		refused++
		time.Sleep(time.Second)
	}
	t.Logf("unfence refused %d times (hints for dc1 pending, or dc2's Cassandra restarting)", refused)
	n1b := r.startActive(t, r.dc1, secret)
	c1b := sqsClient(n1b)
	// Received through dc1 only: dc1's Index serves the queue again.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("dc1 node after the unfence:\n%s", n1b.logs())
		}
	})
	left.awaitAllReceived(t, time.Minute, map[string]*sqs.Client{"dc1": c1b})
	back := newSQSDrill(url)
	back.run(5*time.Second, map[string]*sqs.Client{"dc1": c1b, "dc2": c2}, nil)
	back.awaitAllReceived(t, 30*time.Second, map[string]*sqs.Client{"dc1": c1b, "dc2": c2})
	acked, _, dups, _, _ = back.report()
	if dups != 0 {
		t.Errorf("%d duplicate receives after the switch-back, want none", dups)
	}
	t.Logf("after the unfence: the %d messages left in dc2 during the fence received through dc1; %d more sent and received in both DCs", len(left.acked), acked)
}

// receivedCount is how many distinct messages were received.
func (d *sqsDrill) receivedCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.received)
}

// drillSeconds is HERALD_DCS_DRILL_SECONDS, else def: the long form of the
// two-DC drills (docs/operations.md) runs them for minutes.
func drillSeconds(def int) time.Duration {
	if n, err := strconv.Atoi(os.Getenv("HERALD_DCS_DRILL_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return time.Duration(def) * time.Second
}

// TestTwoDCsSQSLinkCutUnderLoad cuts the link between the data centers
// under load from both, then heals it: nothing acknowledged is lost, and
// the duplicates are counted. During the cut the queue's home (dc1) goes
// on receiving and deleting; sends fail everywhere under the safe write
// level, and dc2 cannot reach the queue's Index.
func TestTwoDCsSQSLinkCutUnderLoad(t *testing.T) {
	p := startActivePair(t)
	c1, both := p.c1, p.both
	url := newQueue(t, c1, "", map[string]string{"VisibilityTimeout": "5"})
	cut := drillSeconds(20)

	d := newSQSDrill(url)
	stop := d.start(both)
	time.Sleep(5 * time.Second)
	before, _, _, _, _ := d.report()
	heal := cutLink(t)
	time.Sleep(cut)
	during, received, _, _, _ := d.report()
	heal()
	time.Sleep(5 * time.Second)
	stop()
	d.awaitAllReceived(t, time.Minute, both)
	acked, received2, dups, _, _ := d.report()
	t.Logf("link cut for %s under load: %d sends acknowledged in all (%d before the cut, %d during it), %d failed; %d received by the end of the cut, %d in all; %d duplicate receives",
		cut, acked, before, during-before, d.sendErrs.Load(), received, received2, dups)
	if acked == 0 || d.sendErrs.Load() == 0 {
		t.Errorf("acknowledged %d, failed %d: the drill did not load both sides of the cut", acked, d.sendErrs.Load())
	}
}

// TestTwoDCsSNSPublishInEitherDCReachesEverySubscriptionOnce publishes in
// both data centers to a topic with two SQS subscriptions, one queue
// homed in each: every publish reaches each queue exactly once.
func TestTwoDCsSNSPublishInEitherDCReachesEverySubscriptionOnce(t *testing.T) {
	p := startActivePair(t)
	n1, n2, q1, q2 := p.n1, p.n2, p.c1, p.c2
	topic := newTopic(t, snsClient(n1), nil)
	queues := map[string]*sqs.Client{newQueue(t, q1, "", nil): q1, newQueue(t, q2, "", nil): q2}
	for url, c := range queues {
		subscribe(t, snsClient(n1), topic, "sqs", queueArn(t, c, url), map[string]string{"RawMessageDelivery": "true"})
	}
	const n = 40
	want := map[string]bool{}
	for i := range n {
		node := []*server{n1, n2}[i%2]
		body := fmt.Sprintf("dc%d-%d", i%2+1, i)
		publish(t, snsClient(node), &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(body)})
		want[body] = true
	}
	// Each queue is read through the other data center's node than its
	// home's.
	other := map[*sqs.Client]*sqs.Client{q1: q2, q2: q1}
	readers := map[string]*sqs.Client{}
	for url, c := range queues {
		readers[url] = other[c]
	}
	for url, c := range readers {
		got := map[string]int{}
		total := 0
		deadline := time.Now().Add(time.Minute)
		// Until all arrived, then 3 s more for any duplicate.
		var extra time.Time
		for time.Now().Before(deadline) && (extra.IsZero() || time.Now().Before(extra)) {
			out, err := c.ReceiveMessage(ctxFor(t, 30*time.Second), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
			if err != nil {
				t.Fatalf("receive from %s: %v", url, err)
			}
			for _, m := range out.Messages {
				got[aws.ToString(m.Body)]++
				total++
				if _, err := c.DeleteMessage(ctxFor(t, 30*time.Second), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
					t.Fatal(err)
				}
			}
			if len(got) == len(want) && extra.IsZero() {
				extra = time.Now().Add(3 * time.Second)
			}
		}
		for body := range want {
			if got[body] != 1 {
				t.Errorf("%s: publish %q delivered %d times, want once", url, body, got[body])
			}
		}
		if total != len(want) {
			t.Errorf("%s: %d deliveries of %d publishes", url, total, len(want))
		}
	}
}

// TestTwoDCsSNSTakeOverAfterDCKill: SNS's internal queues are homed in
// dc1 (its node started first); dc1 is killed with publish jobs pending,
// and fenced from dc2: every publish acknowledged in either data center
// reaches the subscribed queue (homed in dc2), those of before the kill
// included.
func TestTwoDCsSNSTakeOverAfterDCKill(t *testing.T) {
	p := startActivePair(t)
	r, n1, n2, c2 := p.r, p.n1, p.n2, p.c2
	topic := newTopic(t, snsClient(n2), nil)
	url := newQueue(t, c2, "", nil)
	subscribe(t, snsClient(n2), topic, "sqs", queueArn(t, c2, url), map[string]string{"RawMessageDelivery": "true"})

	want := map[string]bool{}
	publishOn := func(s *server, body string) bool {
		call, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := snsClient(s).Publish(call, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(body)})
		if err == nil {
			want[body] = true
		}
		return err == nil
	}
	for i := range 200 {
		publishOn([]*server{n1, n2}[i%2], fmt.Sprintf("before-%d", i))
	}
	flushSchema(t, r.dc1)
	dcs(t, "kill", r.dc1.name)
	t.Cleanup(func() {
		dcs(t, "revive", r.dc1.name)
		r.awaitEachQuorum(t, r.dc1)
	})
	if _, err := n2.client().FenceDC(ctxFor(t, time.Minute), "dc1"); err != nil {
		t.Fatalf("fence dc1: %v", err)
	}
	for i := range 50 {
		body := fmt.Sprintf("after-%d", i)
		deadline := time.Now().Add(30 * time.Second)
		for !publishOn(n2, body) && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
		}
	}
	got := map[string]bool{}
	deadline := time.Now().Add(time.Minute)
	for len(got) < len(want) && time.Now().Before(deadline) {
		out, err := c2.ReceiveMessage(ctxFor(t, 30*time.Second), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			continue
		}
		for _, m := range out.Messages {
			got[aws.ToString(m.Body)] = true
			_, _ = c2.DeleteMessage(ctxFor(t, 30*time.Second), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
		}
	}
	var missing []string
	for body := range want {
		if !got[body] {
			missing = append(missing, body)
		}
	}
	t.Logf("%d publishes acknowledged (%d before the kill), %d of them received from the subscribed queue after the take-over", len(want), countPrefix(want, "before-"), len(got))
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Fatalf("%d acknowledged publishes never delivered, e.g. %v", len(missing), missing[:min(5, len(missing))])
	}
}

// flushSchema flushes dc's schema tables to disk before a kill. The test's
// keyspace is seconds old, where a deployment's is months old: Cassandra
// killed outright would replay the writes of its tables without their
// schema, skip them, and need minutes to pull the schema back, which
// tests Cassandra, not Herald.
func flushSchema(t *testing.T, dc dataCenter) {
	t.Helper()
	dcs(t, "nodetool", dc.name, "flush", "system_schema")
}

// countPrefix counts the keys of m that start with prefix.
func countPrefix(m map[string]bool, prefix string) int {
	n := 0
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}
