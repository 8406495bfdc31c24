package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/internal/promtext"
)

// wsClient is a device on Herald's WebSocket gateway, through the real
// coder/websocket client.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
	ctx  context.Context
	seq  int
}

func dialWS(t *testing.T, s *server) *wsClient {
	t.Helper()
	ctx := ctxFor(t, time.Minute)
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.URL, "http")+"/v1/ws", nil)
	if err != nil {
		t.Fatalf("dial /v1/ws: %v", err)
	}
	conn.SetReadLimit(4 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	return &wsClient{t: t, conn: conn, ctx: ctx}
}

// request sends a frame with a fresh id and returns the id.
func (c *wsClient) request(frame map[string]any) string {
	c.t.Helper()
	c.seq++
	id := fmt.Sprintf("r%d", c.seq)
	frame["id"] = id
	b, _ := json.Marshal(frame)
	if err := c.conn.Write(c.ctx, websocket.MessageText, b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
	return id
}

// next reads frames until one satisfies keep (others are skipped), within d.
func (c *wsClient) next(d time.Duration, keep func(map[string]any) bool) map[string]any {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, d)
	defer cancel()
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		var f map[string]any
		if err := json.Unmarshal(b, &f); err != nil {
			c.t.Fatalf("frame %s: %v", b, err)
		}
		if keep(f) {
			return f
		}
	}
}

func ofType(typ string) func(map[string]any) bool {
	return func(f map[string]any) bool { return f["type"] == typ }
}

func putHTTP(t *testing.T, s *server, path, body64 string) {
	t.Helper()
	resp, err := http.Post(s.URL+"/v1/messages", "application/json",
		strings.NewReader(fmt.Sprintf(`{"metadata":{"paths":[%q]},"body":%q}`, path, body64)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("put %s: HTTP %d", path, resp.StatusCode)
	}
}

// TestWebSocketLiveAndRecover subscribes a device to a pattern, gets a
// message stored through the HTTP API pushed, disconnects, misses three
// messages, and reconnects with since = the last message it saw: it gets
// exactly the three, then live ones.
func TestWebSocketLiveAndRecover(t *testing.T) {
	s := startServer(t, "")
	word := "w" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	c := dialWS(t, s)
	c.request(map[string]any{"type": "subscribe", "pattern": word + ".#"})
	c.next(10*time.Second, ofType("subscribed"))
	putHTTP(t, s, word+".news.1", "Zmlyc3Q=")
	first := c.next(10*time.Second, ofType("message"))
	last := first["message"].(map[string]any)["message_uuid"].(string)
	c.conn.Close(websocket.StatusNormalClosure, "bye")

	for i := 2; i <= 4; i++ {
		putHTTP(t, s, fmt.Sprintf("%s.news.%d", word, i), "bWlzc2Vk")
	}
	c2 := dialWS(t, s)
	c2.request(map[string]any{"type": "subscribe", "pattern": word + ".#", "mode": "recover", "since": last})
	var got []string
	for {
		f := c2.next(10*time.Second, func(f map[string]any) bool { return f["type"] == "message" || f["type"] == "recovered" })
		if f["type"] == "recovered" {
			if f["truncated"] != false {
				t.Errorf("recovered frame %v says truncated", f)
			}
			break
		}
		got = append(got, f["path"].(string))
	}
	want := []string{word + ".news.2", word + ".news.3", word + ".news.4"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("recovered %v, want %v", got, want)
	}
	putHTTP(t, s, word+".news.5", "bGl2ZQ==")
	live := c2.next(10*time.Second, ofType("message"))
	if live["path"] != word+".news.5" || live["source"] != "live" {
		t.Errorf("after recovery got %v, want the live message news.5", live)
	}
	// The gateway's counters are on /metrics: one connection open now, two
	// accepted, and the frames sent to both.
	m, err := promtext.Fetch(testContext(t), http.DefaultClient, s.URL+"/metrics",
		"herald_ws_connections", "herald_ws_connections_total", "herald_ws_subscriptions", "herald_ws_frames_sent_total")
	if err != nil {
		t.Fatal(err)
	}
	if m["herald_ws_connections"] != 1 || m["herald_ws_connections_total"] != 2 || m["herald_ws_subscriptions"] != 1 || m["herald_ws_frames_sent_total"] < 8 {
		t.Errorf("/metrics: %v, want 1 open, 2 accepted, 1 subscription, at least 8 frames", m)
	}
}

// TestWebSocketLimitsAreFlags: the gateway's limits are configuration;
// with --ws-recover-limit 2 a recover that names no limit sends 2 of the
// 3 missed messages and says it was truncated.
func TestWebSocketLimitsAreFlags(t *testing.T) {
	s := startServer(t, "", "--ws-recover-limit", "2", "--ws-ping-interval", "5s")
	word := "l" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	since := time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
	for i := 1; i <= 3; i++ {
		putHTTP(t, s, fmt.Sprintf("%s.m.%d", word, i), "bWlzc2Vk")
	}
	c := dialWS(t, s)
	c.request(map[string]any{"type": "subscribe", "pattern": word + ".#", "mode": "recover", "since": since})
	var got int
	for {
		f := c.next(10*time.Second, func(f map[string]any) bool { return f["type"] == "message" || f["type"] == "recovered" })
		if f["type"] == "recovered" {
			if f["count"] != float64(2) || f["truncated"] != true {
				t.Errorf("recovered frame %v, want count 2, truncated", f)
			}
			break
		}
		got++
	}
	if got != 2 {
		t.Errorf("recovered %d messages, want the limit of 2", got)
	}
}

// TestWebSocketQueuePushWithAck is the set-top-box pattern: messages sent
// to a device's SQS queue are pushed over its WebSocket; an acked message
// is deleted, an unacked one goes back to the queue when the device
// disconnects.
func TestWebSocketQueuePushWithAck(t *testing.T) {
	s := startServer(t, "")
	q := sqsClient(s)
	name := "device-" + uuid.NewString()[:8]
	url := newQueueNamed(t, q, name)
	for _, body := range []string{"first", "second"} {
		if _, err := q.SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	c := dialWS(t, s)
	c.request(map[string]any{"type": "subscribe_queue", "queue": name, "visibility_timeout": 60, "max_in_flight": 10})
	c.next(10*time.Second, ofType("subscribed"))
	pushed := map[string]map[string]any{}
	for len(pushed) < 2 {
		f := c.next(15*time.Second, ofType("queue_message"))
		pushed[f["body"].(string)] = f
	}
	id := c.request(map[string]any{"type": "ack", "queue": name, "receipt_handle": pushed["first"]["receipt_handle"]})
	c.next(10*time.Second, func(f map[string]any) bool { return f["type"] == "acked" && f["id"] == id })
	// Disconnect without acking "second": it must be receivable at once.
	c.conn.Close(websocket.StatusNormalClosure, "device off")
	got := receiveN(t, q, url, 1, 10*time.Second, 30)
	if len(got) != 1 || aws.ToString(got[0].Body) != "second" {
		t.Fatalf("after the device left, the queue holds %v, want only the unacked message", got)
	}
}

func newQueueNamed(t *testing.T, c *sqs.Client, name string) string {
	t.Helper()
	out, err := c.CreateQueue(ctxFor(t, 30*time.Second), &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.QueueUrl)
}

// TestWebSocketAcrossNodes: two Herald nodes on one Cassandra and
// RabbitMQ; a device on node B gets a message published by a device on
// node A.
func TestWebSocketAcrossNodes(t *testing.T) {
	requireCassandra(t)
	u := amqpURL(t)
	names := newAMQPNames()
	a := cassandra.start(t, "", append(names.args(u), "--ws-anonymous", "true")...)
	b := cassandra.start(t, "", append(names.args(u), "--ws-anonymous", "true")...)
	word := "y" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	cb := dialWS(t, b)
	cb.request(map[string]any{"type": "subscribe", "pattern": word + ".*"})
	cb.next(10*time.Second, ofType("subscribed"))
	time.Sleep(300 * time.Millisecond) // node B binds its queue to the pattern
	ca := dialWS(t, a)
	ca.request(map[string]any{"type": "publish", "message": map[string]any{"metadata": map[string]any{"paths": []string{word + ".alert"}}, "body": "aGk="}})
	ca.next(10*time.Second, ofType("published"))
	f := cb.next(15*time.Second, ofType("message"))
	if f["path"] != word+".alert" {
		t.Errorf("node B's device got %v", f)
	}
}

// TestWebSocketClosedWithGoingAwayOnShutdown stops Herald with SIGTERM
// while a device is connected: the device sees close code 1001, and the
// process exits cleanly.
func TestWebSocketClosedWithGoingAwayOnShutdown(t *testing.T) {
	s := startServer(t, "")
	c := dialWS(t, s)
	c.request(map[string]any{"type": "subscribe", "pattern": "shutdown.#"})
	c.next(10*time.Second, ofType("subscribed"))
	go s.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		if _, _, err := c.conn.Read(ctx); err != nil {
			if code := websocket.CloseStatus(err); code != websocket.StatusGoingAway {
				t.Fatalf("on shutdown the device saw %v (close code %d), want 1001", err, code)
			}
			break
		}
	}
	<-s.done
}

// TestEventStreamEndsOnShutdown: an open GET /v1/events stream does not hold
// up a SIGTERM shutdown.
func TestEventStreamEndsOnShutdown(t *testing.T) {
	s := startServer(t, "")
	resp, err := http.Get(s.URL + "/v1/events?pattern=shutdown.%23")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	s.stop(t)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("shutdown with an open event stream took %v", took)
	}
	if !strings.Contains(s.logs(), "herald shutting down") || strings.Contains(s.logs(), "context deadline exceeded") {
		t.Errorf("unclean shutdown:\n%s", s.logs())
	}
}
