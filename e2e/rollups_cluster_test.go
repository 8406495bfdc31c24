package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestRollupTwoNodesOnCassandraExact: two Herald nodes on Cassandra and
// one Redis consume one queue feeding a rollup, every message sent twice,
// while each node is killed with SIGKILL and Redis is killed and started
// empty: once the queue is drained, every channel's total equals the
// reference, and both nodes committed.
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
	waitTotals(t, nodes[0], name, want, 2*time.Minute) // messages a killed node held come back after 30 s
	for i, s := range nodes {
		if v := metricValue(t, s, "herald_rollup_commits_total"); v == 0 {
			t.Errorf("node %d committed nothing: the test did not have two nodes consuming", i)
		}
	}
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
