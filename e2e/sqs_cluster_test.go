package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestSQSLongPollWakesAcrossNodes runs two Herald nodes on one Cassandra +
// Redis: a long poll waiting on node B wakes when node A takes a send.
func TestSQSLongPollWakesAcrossNodes(t *testing.T) {
	requireCassandra(t)
	requireRedis(t)
	a := cassandra.start(t, "")
	b := cassandra.start(t, "")
	ca, cb := sqsClient(a), sqsClient(b)
	url := newQueue(t, ca, "", nil)
	// The queue URL names node A's host; node B serves the same queue.
	took := longPollAgainstSend(t, cb, ca, url)
	if took > 3*time.Second {
		t.Errorf("node B's long poll returned %v after node A's send; it should wake at once", took)
	}
}

// TestSQSRestartKeepsQueueState stops the embedded engine with SIGKILL while
// a message is in flight: after the restart the queue, the messages and the
// receive count are all there. Sends are synced before they are answered;
// receive states are synced within a few milliseconds (pebblestore's lazy
// sync), so the test gives them 100 ms before the kill.
func TestSQSRestartKeepsQueueState(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	c := sqsClient(s)
	url := newQueue(t, c, "", map[string]string{"VisibilityTimeout": "2"})
	for i := range 20 {
		if _, err := c.SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(fmt.Sprintf("m%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	inFlight := receiveN(t, c, url, 1, 5*time.Second, 2)
	if len(inFlight) == 0 {
		t.Fatal("nothing received")
	}
	time.Sleep(100 * time.Millisecond)
	s.kill(t)

	// A queue URL names the queue by its path; any node answers it.
	s2 := startServer(t, dir)
	c2 := sqsClient(s2)
	got := receiveN(t, c2, url, 20, 15*time.Second, 60)
	bodies := map[string]bool{}
	for _, m := range got {
		bodies[aws.ToString(m.Body)] = true
		if aws.ToString(m.MessageId) == aws.ToString(inFlight[0].MessageId) && m.Attributes["ApproximateReceiveCount"] != "2" {
			t.Errorf("the message received before the crash has ApproximateReceiveCount %s after it, want 2", m.Attributes["ApproximateReceiveCount"])
		}
	}
	if len(bodies) != 20 {
		t.Errorf("after a SIGKILL and restart %d of 20 messages were received", len(bodies))
	}
}

// privateRedis is a redis-server process of one test, so that the test can
// kill it without disturbing others.
type privateRedis struct {
	addr string
	cmd  *exec.Cmd
}

func startPrivateRedis(t *testing.T, port int) *privateRedis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed")
		}
		t.Skip("redis-server is not installed")
	}
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	r := &privateRedis{addr: "127.0.0.1:" + strconv.Itoa(port)}
	r.cmd = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.kill)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", r.addr); err == nil {
			c.Close()
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("redis-server on %s did not start", r.addr)
	return nil
}

func (r *privateRedis) kill() {
	if r.cmd.Process != nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
	}
}

func (r *privateRedis) port() int {
	_, p, _ := net.SplitHostPort(r.addr)
	n, _ := strconv.Atoi(p)
	return n
}

// TestSQSRedisKilledLosesNoMessage kills the Redis of a Cassandra-backed
// node in the middle of a load and starts an empty one in its place: every
// acknowledged message is still delivered (duplicates allowed).
func TestSQSRedisKilledLosesNoMessage(t *testing.T) {
	requireCassandra(t)
	redis := startPrivateRedis(t, 0)
	s := startProcess(t, t.TempDir(), []string{"serve", "--listen", "127.0.0.1:0",
		"--store", "cassandra", "--cassandra-hosts", cassandraAddr(), "--cassandra-keyspace", cassandraKeyspace,
		"--redis-addr", redis.addr})
	c := sqsClient(s)
	url := newQueue(t, c, "", map[string]string{"VisibilityTimeout": "3"})
	ctx := ctxFor(t, 3*time.Minute)

	var mu sync.Mutex
	sent := map[string]bool{}
	received := map[string]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // producer
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			out, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(strconv.Itoa(i))})
			if err != nil {
				continue // not acknowledged: the client would retry; nothing is owed
			}
			mu.Lock()
			sent[aws.ToString(out.MessageId)] = true
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	consume := func() {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			return
		}
		for _, m := range out.Messages {
			mu.Lock()
			received[aws.ToString(m.MessageId)] = true
			mu.Unlock()
			c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
		}
	}
	go func() { // consumer
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			consume()
		}
	}()

	time.Sleep(2 * time.Second)
	redis.kill()
	time.Sleep(3 * time.Second) // Herald serves from Cassandra alone
	// Degraded mode is visible: /healthz, the gauge, a WARN line.
	waitHealth(t, s, "redis", "degraded")
	if v := metricValue(t, s, "herald_redis_degraded"); v != 1 {
		t.Errorf("herald_redis_degraded = %v while Redis is down, want 1", v)
	}
	redis = startPrivateRedis(t, redis.port())
	waitHealth(t, s, "redis", "ok")
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	for _, line := range []string{"entering degraded mode", "leaving degraded mode"} {
		if !strings.Contains(s.logs(), line) {
			t.Errorf("the log has no %q line", line)
		}
	}

	// Drain: everything acknowledged must arrive.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		missing := 0
		for id := range sent {
			if !received[id] {
				missing++
			}
		}
		mu.Unlock()
		if missing == 0 {
			break
		}
		consume()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) < 100 {
		t.Fatalf("only %d sends were acknowledged; the load did not run", len(sent))
	}
	var lost []string
	for id := range sent {
		if !received[id] {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d acknowledged messages were never delivered after Redis was killed, e.g. %s", len(lost), len(sent), lost[0])
	}
	t.Logf("%d messages sent and delivered across a Redis kill and restart", len(sent))
}

// healthOf returns s's /healthz document.
func healthOf(t *testing.T, s *server) map[string]string {
	t.Helper()
	h := map[string]string{}
	resp, err := http.Get(s.URL + "/healthz")
	if err != nil {
		return h
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&h)
	return h
}

// waitHealth waits until /healthz reports component in state.
func waitHealth(t *testing.T, s *server, component, state string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last map[string]string
	for time.Now().Before(deadline) {
		if last = healthOf(t, s); last[component] == state {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("/healthz never said %s is %s (last: %v)", component, state, last)
}

// metricValue reads one unlabelled sample of s's /metrics.
func metricValue(t *testing.T, s *server, name string) float64 {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("no %s on /metrics", name)
	return 0
}
