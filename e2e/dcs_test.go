package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache/cachetest"
	"github.com/heraldmq/herald/client"
	"github.com/heraldmq/herald/internal/promtext"
)

// These tests run on the two-DC rig of scripts/dcs (issue 18): one
// Cassandra cluster of two data centers, a Redis and a RabbitMQ per data
// center (the brokers federated), Herald nodes in each data center's
// network namespace.

// putOn stores a message under path through s, with message_uuid id
// unless it is empty, and returns its message_uuid, or the HTTP status and
// error of a put that was not acknowledged.
func putOn(t *testing.T, s *server, path, id string) (got string, status int, answer string) {
	t.Helper()
	resp, created, err := s.client().Put(ctxFor(t, 30*time.Second), api.PutRequest{MessageUUID: id, Metadata: meta(path), Body: []byte("hi")})
	var refused *client.Error
	switch {
	case errors.As(err, &refused):
		return "", refused.Status, refused.Error()
	case err != nil:
		t.Fatalf("put %s on %s: %v", path, s.URL, err)
	case !created:
		return "", http.StatusOK, "a repeat of a stored message"
	}
	return resp.MessageUUID, http.StatusCreated, ""
}

// mustPut is putOn of a new message that fails the test unless the put
// is acknowledged.
func mustPut(t *testing.T, s *server, path string) string {
	t.Helper()
	id, status, answer := putOn(t, s, path, "")
	if id == "" {
		t.Fatalf("put %s on %s: HTTP %d %s", path, s.URL, status, answer)
	}
	return id
}

// getStatus is the HTTP status of GET /v1/messages/{id} on s.
func getStatus(t *testing.T, s *server, id string) int {
	t.Helper()
	_, err := s.client().Get(ctxFor(t, 30*time.Second), id)
	var answer *client.Error
	switch {
	case err == nil:
		return http.StatusOK
	case errors.As(err, &answer):
		return answer.Status
	}
	t.Fatalf("get %s on %s: %v", id, s.URL, err)
	return 0
}

// frames reads c's frames on a goroutine of its own until the connection
// ends (then it closes the channel): a read that times out would close a
// coder/websocket connection. It logs nothing: it may outlive the test.
func frames(c *wsClient) <-chan map[string]any {
	ch := make(chan map[string]any, 64)
	go func() {
		defer close(ch)
		for {
			_, b, err := c.conn.Read(c.ctx)
			if err != nil {
				return
			}
			var f map[string]any
			if json.Unmarshal(b, &f) != nil {
				continue
			}
			select {
			case ch <- f:
			case <-c.ctx.Done():
				return
			}
		}
	}()
	return ch
}

// nextOf returns the first frame of ch that keep accepts, within d.
func nextOf(t *testing.T, ch <-chan map[string]any, d time.Duration, keep func(map[string]any) bool) map[string]any {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case f, ok := <-ch:
			if !ok {
				t.Fatal("the WebSocket connection ended")
			}
			if keep(f) {
				return f
			}
		case <-timeout:
			t.Fatalf("no such frame within %v", d)
		}
	}
}

// awaitLive puts probes under word.probe through s until a message frame
// reaches ch, the frames of a device subscribed to word.#: the federation
// between the brokers carries a new subscription's binding to the other
// DC a moment after the subscription. Then it lets the probes still on
// their way arrive and drops them.
func awaitLive(t *testing.T, ch <-chan map[string]any, s *server, word string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		mustPut(t, s, word+".probe")
		select {
		case f := <-ch:
			if f["type"] != "message" {
				continue
			}
			for quiet := time.After(time.Second); ; {
				select {
				case <-ch:
					continue
				case <-quiet:
				}
				break
			}
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
	t.Fatalf("no message put through %s reached the device within 30s", s.URL)
}

// TestTwoDCsDeviceFollowsTheOtherDC: a device connected to dc2 gets live
// the messages stored in dc1; latest in dc2 shows them at once (the
// default EACH_QUORUM writes); after reconnecting to dc1 it recovers,
// with since = the last message it saw, what both DCs stored meanwhile,
// with no gap, then goes on live with messages stored in dc2.
func TestTwoDCsDeviceFollowsTheOtherDC(t *testing.T) {
	r := requireTwoDCs(t)
	a := r.start(t, r.dc1, "--ws-anonymous", "true")
	b := r.start(t, r.dc2, "--ws-anonymous", "true")
	word := "d" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")

	c := dialWS(t, b)
	in := frames(c)
	c.request(map[string]any{"type": "subscribe", "pattern": word + ".#"})
	nextOf(t, in, 10*time.Second, ofType("subscribed"))
	awaitLive(t, in, a, word)

	id1 := mustPut(t, a, word+".news.1")
	f := nextOf(t, in, 15*time.Second, func(f map[string]any) bool { return f["type"] == "message" && f["path"] == word+".news.1" })
	if got := f["message"].(map[string]any)["message_uuid"]; got != id1 || f["source"] != "live" {
		t.Errorf("dc2's device got %v, want news.1 (%s) live", f, id1)
	}
	if latest := latestJSON(t, b, word+".news.*"); !strings.Contains(latest, id1) {
		t.Errorf("latest in dc2 right after the put in dc1: %s, want %s", latest, id1)
	}
	c.conn.Close(websocket.StatusNormalClosure, "moving to the other DC")

	id2 := mustPut(t, a, word+".news.2")
	id3 := mustPut(t, b, word+".news.3")
	c2 := dialWS(t, a)
	in2 := frames(c2)
	c2.request(map[string]any{"type": "subscribe", "pattern": word + ".#", "mode": "recover", "since": id1})
	var got []string
	for {
		f := nextOf(t, in2, 15*time.Second, func(f map[string]any) bool { return f["type"] == "message" || f["type"] == "recovered" })
		if f["type"] == "recovered" {
			if f["truncated"] != false {
				t.Errorf("recovered frame %v says truncated", f)
			}
			break
		}
		got = append(got, f["message"].(map[string]any)["message_uuid"].(string))
	}
	if want := []string{id2, id3}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("recovered in dc1 after news.1: %v, want news.2 and news.3 %v", got, want)
	}
	awaitLive(t, in2, b, word)
	id4 := mustPut(t, b, word+".news.4")
	f = nextOf(t, in2, 15*time.Second, func(f map[string]any) bool { return f["type"] == "message" && f["path"] == word+".news.4" })
	if got := f["message"].(map[string]any)["message_uuid"]; got != id4 {
		t.Errorf("dc1's device got %v live, want news.4 (%s) stored in dc2", f, id4)
	}
}

// TestTwoDCsLossWindowOfEachWriteSetting places writes around a cut link
// and the death of dc1, and checks what dc2 still has:
//
//   - with the safe default (EACH_QUORUM), every acknowledged put, and no
//     put is acknowledged while dc2 cannot confirm it;
//   - with --cassandra-write-consistency LOCAL_QUORUM, puts go on being
//     acknowledged through the cut, and those dc1 acknowledged while dc2
//     could not receive them are gone with dc1: the loss window
//     docs/deploy.md states.
func TestTwoDCsLossWindowOfEachWriteSetting(t *testing.T) {
	r := requireTwoDCs(t)
	safe := r.start(t, r.dc1)
	fast := r.start(t, r.dc1, "--cassandra-write-consistency", "LOCAL_QUORUM")
	other := r.start(t, r.dc2)
	word := "l" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")

	var kept []string // acknowledged while both DCs could confirm
	for i := range 10 {
		kept = append(kept, mustPut(t, safe, fmt.Sprintf("%s.safe.%d", word, i)))
		kept = append(kept, mustPut(t, fast, fmt.Sprintf("%s.fast.%d", word, i)))
	}
	// Replication of the fast puts is asynchronous: give it well over its
	// usual milliseconds before the cut.
	time.Sleep(2 * time.Second)

	heal := cutLink(t)
	if id, status, answer := putOn(t, safe, word+".safe.cut", ""); id != "" {
		t.Errorf("a safe put was acknowledged (%s) while dc2 was cut off", id)
	} else if status != http.StatusServiceUnavailable {
		t.Errorf("a safe put during the cut: HTTP %d %s, want 503", status, answer)
	}
	var window []string // acknowledged by dc1 alone
	for i := range 5 {
		window = append(window, mustPut(t, fast, fmt.Sprintf("%s.window.%d", word, i)))
	}
	r.killDC(t, r.dc1)
	heal() // dc1 is gone: the link no longer matters, and its revival needs it

	for _, id := range kept {
		if s := getStatus(t, other, id); s != http.StatusOK {
			t.Errorf("message %s, acknowledged before the cut, is HTTP %d in dc2 after dc1 died", id, s)
		}
	}
	for _, id := range window {
		if s := getStatus(t, other, id); s != http.StatusNotFound {
			t.Errorf("message %s, acknowledged by dc1 alone during the cut, is HTTP %d in dc2: want 404 (the documented loss window)", id, s)
		}
	}
}

// replicationLag is herald_dc_replication_lag_seconds{peer} on s's
// /metrics, or -1 before the node has seen the peer.
func replicationLag(t *testing.T, s *server, peer string) float64 {
	t.Helper()
	key := `herald_dc_replication_lag_seconds{peer="` + peer + `"}`
	m, err := promtext.Fetch(ctxFor(t, 10*time.Second), http.DefaultClient, s.URL+"/metrics", key)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := m[key]; ok {
		return v
	}
	return -1
}

// awaitLag waits up to d for cond to hold of s's lag from peer and
// returns the last lag read.
func awaitLag(t *testing.T, s *server, peer string, d time.Duration, cond func(float64) bool) float64 {
	t.Helper()
	lag := -1.0
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if lag = replicationLag(t, s, peer); cond(lag) {
			return lag
		}
	}
	return lag
}

// TestTwoDCsReplicationLagShowsACut: each node reports the replication lag
// from the other data center on /metrics: about the heartbeat's second
// while the link is up, growing while it is cut, back once it heals.
func TestTwoDCsReplicationLagShowsACut(t *testing.T) {
	r := requireTwoDCs(t)
	a := r.start(t, r.dc1)
	b := r.start(t, r.dc2)
	healthy := func(lag float64) bool { return lag >= 0 && lag < 3 }
	if lag := awaitLag(t, a, "dc2", 30*time.Second, healthy); !healthy(lag) {
		t.Fatalf("dc1's lag from dc2 with the link up: %v s, want under 3", lag)
	}
	if lag := awaitLag(t, b, "dc1", 30*time.Second, healthy); !healthy(lag) {
		t.Fatalf("dc2's lag from dc1 with the link up: %v s, want under 3", lag)
	}
	heal := cutLink(t)
	cut := func(lag float64) bool { return lag > 6 }
	if lag := awaitLag(t, a, "dc2", 30*time.Second, cut); !cut(lag) {
		t.Errorf("dc1's lag from dc2 with the link cut: %v s, want it past 6 s", lag)
	}
	if lag := awaitLag(t, b, "dc1", 30*time.Second, cut); !cut(lag) {
		t.Errorf("dc2's lag from dc1 with the link cut: %v s, want it past 6 s", lag)
	}
	heal()
	if lag := awaitLag(t, a, "dc2", 60*time.Second, healthy); !healthy(lag) {
		t.Errorf("dc1's lag from dc2 after the link healed: %v s, want under 3", lag)
	}

	// The alerts and dashboard panels on the data centers' metrics name
	// metrics such a node exports (TestOpsCassandraDegradedAndDeployFiles
	// checks the others).
	exported := map[string]bool{}
	for name := range scrape(t, a) {
		exported[name] = true
	}
	alerts, _ := splitByMetric(alertExpressions(t, "../deploy/prometheus/alerts.yml"), dcMetrics)
	panels, _ := splitByMetric(dashboardExpressions(t, "../deploy/grafana/herald.json"), dcMetrics)
	if len(alerts) == 0 || len(panels) == 0 {
		t.Errorf("no alert (%d) or no panel (%d) on the data centers' metrics", len(alerts), len(panels))
	}
	checkExpressions(t, alerts, exported)
	checkExpressions(t, panels, exported)
}

// putID stores a message with the given message_uuid under path through
// s, failing the test unless it is acknowledged.
func putID(t *testing.T, s *server, path string, id uuid.UUID) {
	t.Helper()
	if got, status, answer := putOn(t, s, path, id.String()); got == "" {
		t.Fatalf("put %s on %s: HTTP %d %s", id, s.URL, status, answer)
	}
}

// TestTwoDCsLatestConvergesAfterACut: with writes that go on through a cut
// (LOCAL_QUORUM), each data center takes a message of one path the other
// cannot see; they disagree on the path's latest while cut, and once the
// link heals (Cassandra's hints replay the writes) both answer the message
// with the newest message time, though it arrived first.
func TestTwoDCsLatestConvergesAfterACut(t *testing.T) {
	r := requireTwoDCs(t)
	fast := []string{"--cassandra-write-consistency", "LOCAL_QUORUM"}
	a := r.start(t, r.dc1, fast...)
	b := r.start(t, r.dc2, fast...)
	path := "c" + strings.ReplaceAll(uuid.NewString()[:8], "-", "") + ".latest"
	now := time.Now()
	newer, older := cachetest.UUIDAt(now), cachetest.UUIDAt(now.Add(-time.Minute))

	heal := cutLink(t)
	putID(t, b, path, newer) // arrives first, but is the newer message
	putID(t, a, path, older)
	if got := latestJSON(t, a, path); !strings.Contains(got, older.String()) {
		t.Errorf("latest in dc1 during the cut: %s, want its own message %s", got, older)
	}
	if got := latestJSON(t, b, path); !strings.Contains(got, newer.String()) {
		t.Errorf("latest in dc2 during the cut: %s, want its own message %s", got, newer)
	}
	// Past the write timeout, so that each node has written its hints.
	time.Sleep(6 * time.Second)
	heal()
	// Both data centers converge: the latest is the newer message, and
	// each holds both messages (the older one in the path's history).
	deadline := time.Now().Add(90 * time.Second)
	for {
		ga, gb := latestJSON(t, a, path), latestJSON(t, b, path)
		sa, sb := getStatus(t, a, newer.String()), getStatus(t, b, older.String())
		if strings.Contains(ga, newer.String()) && strings.Contains(gb, newer.String()) && sa == http.StatusOK && sb == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("90 s after the link healed: latest in dc1 %s, in dc2 %s (want both %s); the other DC's message: HTTP %d in dc1, %d in dc2 (want 200)",
				ga, gb, newer, sa, sb)
		}
		time.Sleep(time.Second)
	}
}

// TestTwoDCsCreateQueueRaceHasOneWinner creates queues of one name in both
// data centers at once, each with its own visibility timeout: queue
// records are lightweight transactions at SERIAL across the data centers,
// so for each name exactly one creation wins, the other is told the queue
// exists with other attributes, and both data centers then show the
// winner's attributes (at LOCAL_SERIAL each data center could have won in
// its own half of the cluster, making two queues of one name).
func TestTwoDCsCreateQueueRaceHasOneWinner(t *testing.T) {
	r := requireTwoDCs(t)
	a := r.start(t, r.dc1)
	b := r.start(t, r.dc2)
	ca, cb := sqsClient(a), sqsClient(b)
	ctx := ctxFor(t, 2*time.Minute)
	for i := range 8 {
		name := fmt.Sprintf("race-%s-%d", uuid.NewString()[:8], i)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, c := range []*awssqs.Client{ca, cb} {
			wg.Go(func() {
				_, errs[j] = c.CreateQueue(ctx, &awssqs.CreateQueueInput{QueueName: aws.String(name),
					Attributes: map[string]string{"VisibilityTimeout": fmt.Sprint(31 + j)}})
			})
		}
		wg.Wait()
		winner := -1
		for j, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("%s: both data centers created the queue", name)
			case err == nil:
				winner = j
			case !strings.Contains(err.Error(), "QueueAlreadyExists"):
				t.Fatalf("%s: CreateQueue in dc%d: %v", name, j+1, err)
			}
		}
		if winner < 0 {
			t.Fatalf("%s: neither creation won: %v", name, errs)
		}
		for j, c := range []*awssqs.Client{ca, cb} {
			url, err := c.GetQueueUrl(ctx, &awssqs.GetQueueUrlInput{QueueName: aws.String(name)})
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.GetQueueAttributes(ctx, &awssqs.GetQueueAttributesInput{QueueUrl: url.QueueUrl,
				AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameVisibilityTimeout}})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := out.Attributes["VisibilityTimeout"], fmt.Sprint(31+winner); got != want {
				t.Errorf("%s in dc%d: VisibilityTimeout %s, want the winner's %s", name, j+1, got, want)
			}
		}
	}
}

// TestTwoDCsSQSSwitchBackStrandsNothing plays SQS's active-standby across
// the rig's data centers (switchBack): dc1 serves a queue, clients fail
// over to dc2 and send there, then switch back to dc1, whose Redis
// survived. Before the reindex of the runbook dc1 does not see the message
// sent in dc2 (stranded behind its stale marker); after `sqs-reindex`
// against a dc1 node it is delivered, and nothing is lost.
func TestTwoDCsSQSSwitchBackStrandsNothing(t *testing.T) {
	r := requireTwoDCs(t)
	switchBack(t, r.start(t, r.dc1), r.start(t, r.dc2))
}
