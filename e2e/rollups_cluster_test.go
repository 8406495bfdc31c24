package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestRollupTwoNodesOnCassandraExact: two Herald nodes on Cassandra and
// one Redis consume one queue feeding a rollup, every message sent twice,
// while each node is killed with SIGKILL and Redis is killed and started
// empty, then each node alone while the other is paused: once the queue is
// drained, every channel's total equals the reference, and both nodes
// committed.
func TestRollupTwoNodesOnCassandraExact(t *testing.T) {
	requireCassandra(t)
	redis := startPrivateRedis(t, 0)
	args := []string{"--store", "cassandra", "--cassandra-hosts", cassandraAddr(), "--cassandra-keyspace", cassandraKeyspace, "--redis-addr", redis.addr}
	start := func() *server {
		return startProcess(t, t.TempDir(), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...))
	}
	nodes := []*server{start(), start()}
	ctx := testContext(t)
	name := fmt.Sprintf("plays%d", time.Now().UnixNano()%1e9)
	if _, err := sqsClient(nodes[0]).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	queueURL := nodes[0].URL + "/000000000000/" + name
	def := map[string]any{"event": map[string]string{"id": "id", "time": "time"}, "scopes": [][]string{{"channel"}},
		"metrics": []string{"plays"}, "periods": []map[string]string{{"unit": "all"}}, "sources": map[string]string{"queue": queueURL}}
	if st := call(t, nodes[1], http.MethodPut, "/v1/rollups/"+name, def, nil); st != http.StatusCreated {
		t.Fatalf("PUT: %d", st)
	}
	want := map[string]int64{}
	n := 0
	for round := range 10 {
		sendEventsTwice(ctx, t, nodes[round%2], queueURL, 20, &n, want)
		time.Sleep(time.Duration(100+round*37) * time.Millisecond) // mid-flush, at different points
		switch round {
		case 1, 5: // each node killed once, the other one committing meanwhile
			i := round / 4
			nodes[i].kill(t)
			nodes[i] = start()
		case 3:
			redis.kill()
			redis = startPrivateRedis(t, redis.port())
		}
	}
	// Each node alone for a while, the other paused (SIGSTOP): whichever
	// wins the race for messages, both consume.
	for i, s := range nodes {
		resume := nodes[1-i].pause(t)
		sendEventsTwice(ctx, t, s, queueURL, 5, &n, want)
		for deadline := time.Now().Add(time.Minute); metricValue(t, s, "herald_rollup_commits_total") == 0; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("node %d committed nothing within a minute alone", i)
			}
		}
		resume()
	}
	waitTotals(t, nodes[0], name, want, 2*time.Minute) // messages a killed or paused node held come back after 30 s
	waitTotals(t, nodes[1], name, want, 10*time.Second)
}

// sendEventsTwice sends messages messages of ten events each (channels
// c0..c2, 1 to 4 plays) to queueURL through s, each message twice,
// numbering the events from *n and adding them to want.
func sendEventsTwice(ctx context.Context, t *testing.T, s *server, queueURL string, messages int, n *int, want map[string]int64) {
	t.Helper()
	q := sqsClient(s)
	for range messages {
		var events []map[string]any
		for range 10 {
			c := fmt.Sprint("c", *n%3)
			events = append(events, map[string]any{"id": fmt.Sprint(*n), "time": time.Now().UTC().Format(time.RFC3339), "channel": c, "plays": *n%4 + 1})
			want[c] += int64(*n%4 + 1)
			*n++
		}
		body, _ := json.Marshal(events)
		for range 2 {
			if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queueURL), MessageBody: aws.String(string(body))}); err != nil {
				t.Fatalf("send: %v", err)
			}
		}
	}
}

// waitTotals waits until rollup name's all-time plays per channel, read
// from s, equal want.
func waitTotals(t *testing.T, s *server, name string, want map[string]int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := map[string]int64{}
		for c := range want {
			var tot struct{ Values []int64 }
			call(t, s, http.MethodGet, "/v1/rollups/"+name+"/totals?"+url.Values{"scope.channel": {c}, "unit": {"all"}}.Encode(), nil, &tot)
			if len(tot.Values) == 1 {
				got[c] = tot.Values[0]
			}
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("totals %v, want %v", got, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRollupTriggersFireOnceAcrossTwoNodes: two Herald nodes on Cassandra
// take the same events (every batch posted to both), one node is killed
// half-way; a threshold trigger and a sliding-window trigger each fire
// once, and their firings reach an SQS queue and an HTTP endpoint through
// a topic (at least once: receivers dedupe by firing_id); both nodes then
// show each trigger's last firing, the one received, published.
func TestRollupTriggersFireOnceAcrossTwoNodes(t *testing.T) {
	requireCassandra(t)
	requireRedis(t)
	dirA := t.TempDir() // node A makes the SNS signing key there; node B signs with it too, as a cluster must
	nodes := []*server{cassandra.start(t, dirA)}
	nodes = append(nodes, cassandra.start(t, "", "--sns-signing-key-file", filepath.Join(dirA, "sns-signing-key.pem"),
		"--sns-signing-cert-file", filepath.Join(dirA, "sns-signing-cert.pem")))
	c, q := snsClient(nodes[0]), sqsClient(nodes[0])
	topic := newTopic(t, c, nil)
	queueURL := newQueue(t, q, "", nil)
	subscribe(t, c, topic, "sqs", queueArn(t, q, queueURL), map[string]string{"RawMessageDelivery": "true"})
	ep := newSNSEndpoint(t, 0)
	subscribe(t, c, topic, "http", ep.URL(), map[string]string{"RawMessageDelivery": "true"})
	waitConfirmed(t, c, topic, ep.URL())

	name := fmt.Sprintf("fires%d", time.Now().UnixNano()%1e9)
	def := map[string]any{"event": map[string]string{"id": "id", "time": "time"}, "scopes": [][]string{{"channel"}},
		"metrics": []string{"plays"}, "periods": []map[string]string{{"unit": "minute"}, {"unit": "all"}}}
	if st := call(t, nodes[1], http.MethodPut, "/v1/rollups/"+name, def, nil); st != http.StatusCreated {
		t.Fatalf("PUT: %d", st)
	}
	triggers := map[string]map[string]any{
		"hundred": {"metric": "plays", "scope": map[string]string{"channel": "*"}, "unit": "all", "threshold": 100, "topic_arn": topic},
		"burst":   {"metric": "plays", "scope": map[string]string{"channel": "*"}, "unit": "minute", "window": "5m", "threshold": 50, "topic_arn": topic},
	}
	for id, tr := range triggers {
		if st := call(t, nodes[0], http.MethodPut, "/v1/rollups/"+name+"/triggers/"+id, tr, nil); st != http.StatusOK {
			t.Fatalf("PUT trigger %s: %d", id, st)
		}
	}
	for batch := range 15 { // 150 events of one play, 10 a post
		var events []map[string]any
		for i := range 10 {
			events = append(events, map[string]any{"id": fmt.Sprint(batch*10 + i), "time": time.Now().UTC().Format(time.RFC3339), "channel": "c", "plays": 1})
		}
		for _, s := range nodes {
			if st := call(t, s, http.MethodPost, "/v1/rollups/"+name+"/events", events, nil); st != http.StatusOK {
				t.Fatalf("batch %d: POST events: %d", batch, st)
			}
		}
		if batch == 7 {
			nodes[0].kill(t)
			nodes[0] = cassandra.start(t, dirA)
		}
	}
	// Both triggers' firings, at least once each, on both receivers.
	want := map[string]int64{"hundred": 100, "burst": 50}
	collect := func(bodies []string) map[string]map[string]int64 { // trigger -> firing_id -> total
		out := map[string]map[string]int64{}
		for _, b := range bodies {
			var f struct {
				ID      string `json:"firing_id"`
				Trigger string
				Total   int64
			}
			if err := json.Unmarshal([]byte(b), &f); err != nil {
				t.Fatalf("a firing that is not JSON: %s", b)
			}
			if out[f.Trigger] == nil {
				out[f.Trigger] = map[string]int64{}
			}
			out[f.Trigger][f.ID] = f.Total
		}
		return out
	}
	check := func(where string, got map[string]map[string]int64) {
		t.Helper()
		for trig, total := range want {
			if len(got[trig]) != 1 {
				t.Errorf("%s: trigger %s fired %d distinct times: %v, want once", where, trig, len(got[trig]), got[trig])
			}
			for _, v := range got[trig] {
				if v != total {
					t.Errorf("%s: trigger %s fired at %d, want %d", where, trig, v, total)
				}
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: firings of triggers %v", where, got)
		}
	}
	q = sqsClient(nodes[1]) // node A moved when it restarted; B serves the same queue
	var fromQueue []string
	endpoint := func() []string {
		ep.mu.Lock()
		defer ep.mu.Unlock()
		return append([]string(nil), ep.raw...)
	}
	// Wait for every trigger on each receiver, not for a count: both nodes
	// publish a firing, so two deliveries may be one trigger twice, and a
	// publish job in flight on the killed node comes back only after its
	// visibility timeout (15 s; 30 s for a delivery job).
	firedAll := func(got map[string]map[string]int64) bool {
		for trig := range want {
			if len(got[trig]) == 0 {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) && !(firedAll(collect(fromQueue)) && firedAll(collect(endpoint()))) {
		for _, m := range receiveN(t, q, queueURL, 1, 2*time.Second, 30) {
			fromQueue = append(fromQueue, aws.ToString(m.Body))
		}
	}
	time.Sleep(3 * time.Second)                                          // a second publish of a firing (both nodes publish) would be in by now
	for _, m := range receiveN(t, q, queueURL, 100, 2*time.Second, 30) { // whatever else came
		fromQueue = append(fromQueue, aws.ToString(m.Body))
	}
	fromEndpoint := endpoint()
	check("queue", collect(fromQueue))
	check("endpoint", collect(fromEndpoint))
	waitTotals(t, nodes[1], name, map[string]int64{"c": 150}, 10*time.Second)
	received := collect(fromQueue)
	for i, s := range nodes {
		waitLastFirings(t, s, name, func(id, firing string, total int64, published bool) bool {
			_, ok := received[id][firing]
			return ok && total == want[id] && published
		}, fmt.Sprintf("node %d", i))
	}
}

// waitLastFirings waits until every trigger of rollup name, read from s,
// has a last firing that ok accepts, or fails after 10 s.
func waitLastFirings(t *testing.T, s *server, name string, ok func(trigger, firing string, total int64, published bool) bool, where string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var d struct {
			Triggers []struct {
				ID         string
				LastFiring *struct {
					FiringID  string `json:"firing_id"`
					Total     int64
					Published bool
				} `json:"last_firing"`
			}
		}
		call(t, s, http.MethodGet, "/v1/rollups/"+name, nil, &d)
		good := len(d.Triggers) > 0
		for _, tr := range d.Triggers {
			lf := tr.LastFiring
			good = good && lf != nil && ok(tr.ID, lf.FiringID, lf.Total, lf.Published)
		}
		if good {
			return
		}
		if time.Now().After(deadline) {
			b, _ := json.Marshal(d.Triggers)
			t.Fatalf("%s: triggers %s", where, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
