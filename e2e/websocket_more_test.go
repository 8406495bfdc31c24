package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// dialWSWith dials /v1/ws with extra request headers and query, returning
// the dial error instead of failing.
func dialWSWith(t *testing.T, s *server, query string, header http.Header) (*wsClient, error) {
	t.Helper()
	ctx := ctxFor(t, time.Minute)
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.URL, "http")+"/v1/ws"+query, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(4 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	return &wsClient{t: t, conn: conn, ctx: ctx}, nil
}

// closeCode reads until the server ends the connection.
func (c *wsClient) closeCode() websocket.StatusCode {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	for {
		if _, _, err := c.conn.Read(ctx); err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

// TestWebSocketAuthWithJWT runs Herald with an HS256 secret and anonymous
// access off: no token or a forged one closes with 4501; a token's claims
// bound what its device may subscribe to and publish on.
func TestWebSocketAuthWithJWT(t *testing.T) {
	const secret = "e2e-secret-of-the-gateway"
	s := startServer(t, "", "--ws-jwt-secret", secret, "--ws-anonymous", "false")
	word := "j" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	sign := func(key string) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"sub": "device-42", "exp": time.Now().Add(time.Hour).Unix(),
			"herald": map[string]any{"subscribe": []string{word + ".42.#"}, "publish": []string{word + ".42.#"}},
		})
		signed, err := tok.SignedString([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		return signed
	}

	for name, query := range map[string]string{"no token": "", "forged token": "?token=" + sign("not-the-secret")} {
		c, err := dialWSWith(t, s, query, nil)
		if err != nil {
			t.Fatalf("%s: dial: %v", name, err)
		}
		if code := c.closeCode(); code != 4501 {
			t.Errorf("%s: closed with %d, want 4501", name, code)
		}
	}

	byHeader, err := dialWSWith(t, s, "", http.Header{"Authorization": {"Bearer " + sign(secret)}})
	if err != nil {
		t.Fatal(err)
	}
	byQuery, err := dialWSWith(t, s, "?token="+sign(secret), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*wsClient{"header": byHeader, "query": byQuery} {
		id := c.request(map[string]any{"type": "subscribe", "pattern": word + ".#"})
		if f := c.next(10*time.Second, ofType("error")); f["id"] != id || f["code"] != "forbidden" {
			t.Errorf("%s: subscribing beyond the grant: %v, want forbidden", name, f)
		}
		id = c.request(map[string]any{"type": "publish", "message": map[string]any{"metadata": map[string]any{"paths": []string{word + ".43.x"}}, "body": "aGk="}})
		if f := c.next(10*time.Second, ofType("error")); f["id"] != id || f["code"] != "forbidden" {
			t.Errorf("%s: publishing beyond the grant: %v, want forbidden", name, f)
		}
	}
	byHeader.request(map[string]any{"type": "subscribe", "pattern": word + ".42.*"})
	byHeader.next(10*time.Second, ofType("subscribed"))
	byQuery.request(map[string]any{"type": "publish", "message": map[string]any{"metadata": map[string]any{"paths": []string{word + ".42.x"}}, "body": "aGk="}})
	byQuery.next(10*time.Second, ofType("published"))
	if f := byHeader.next(10*time.Second, ofType("message")); f["path"] != word+".42.x" {
		t.Errorf("the granted subscription got %v", f)
	}
}

// TestWebSocketLatestAndMalformedFrames: a latest subscription first sends
// the newest message of every matching path, then live ones; malformed
// frames get error frames, and five in a row close the connection with
// 1008.
func TestWebSocketLatestAndMalformedFrames(t *testing.T) {
	s := startServer(t, "")
	word := "t" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	putHTTP(t, s, word+".a", "b2xk")     // "old": replaced by the next
	putHTTP(t, s, word+".a", "bmV3")     // "new"
	putHTTP(t, s, word+".b", "b25seQ==") // "only"
	c := dialWS(t, s)
	c.request(map[string]any{"type": "subscribe", "pattern": word + ".*", "mode": "latest"})
	c.next(10*time.Second, ofType("subscribed"))
	got := map[string]string{}
	for range 2 {
		f := c.next(10*time.Second, ofType("message"))
		if f["source"] != "latest" {
			t.Errorf("frame %v, want source latest", f)
		}
		got[f["path"].(string)] = f["message"].(map[string]any)["body"].(string)
	}
	if got[word+".a"] != "bmV3" || got[word+".b"] != "b25seQ==" {
		t.Errorf("latest sent %v, want the newest of each path", got)
	}
	putHTTP(t, s, word+".b", "bGl2ZQ==")
	if f := c.next(10*time.Second, ofType("message")); f["source"] != "live" || f["path"] != word+".b" {
		t.Errorf("then %v, want the live message", f)
	}

	for i := range 5 {
		if err := c.conn.Write(c.ctx, websocket.MessageText, []byte("not json")); err != nil {
			t.Fatal(err)
		}
		if i < 4 {
			if f := c.next(10*time.Second, ofType("error")); f["code"] != "invalid_frame" {
				t.Errorf("malformed frame %d: %v, want invalid_frame", i+1, f)
			}
		}
	}
	if code := c.closeCode(); code != websocket.StatusPolicyViolation {
		t.Errorf("after 5 malformed frames closed with %d, want 1008", code)
	}
}

// TestWebSocketQueuePushNackAndTimeout: a nacked message is pushed again
// at once, and one left unacked past its visibility timeout comes again,
// with a higher receive count, while the device stays connected.
func TestWebSocketQueuePushNackAndTimeout(t *testing.T) {
	s := startServer(t, "")
	q := sqsClient(s)
	name := "device-" + uuid.NewString()[:8]
	url := newQueueNamed(t, q, name)
	if _, err := q.SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("again")}); err != nil {
		t.Fatal(err)
	}
	c := dialWS(t, s)
	// The visibility timeout leaves the nack 3 s to arrive, so that a
	// starved machine does not let the first receive time out before it.
	c.request(map[string]any{"type": "subscribe_queue", "queue": name, "visibility_timeout": 3, "max_in_flight": 1})
	c.next(10*time.Second, ofType("subscribed"))
	first := c.next(15*time.Second, ofType("queue_message"))
	if mid, _ := first["message_id"].(string); mid == "" || first["body"] != "again" {
		t.Fatalf("pushed %v, want the message with its id", first)
	}
	id := c.request(map[string]any{"type": "nack", "queue": name, "receipt_handle": first["receipt_handle"]})
	// The message pushed again may come before the nack's reply: keep it.
	var early []map[string]any
	c.next(10*time.Second, func(f map[string]any) bool {
		if f["type"] == "queue_message" {
			early = append(early, f)
			return false
		}
		return f["id"] == id
	})
	var second map[string]any
	if len(early) > 0 {
		second = early[0]
	} else {
		second = c.next(15*time.Second, ofType("queue_message"))
	}
	if second["message_id"] != first["message_id"] {
		t.Fatalf("after a nack got %v, want the same message again", second)
	}
	// Not acked: after its 3 s visibility timeout it is pushed once more.
	third := c.next(15*time.Second, ofType("queue_message"))
	if third["message_id"] != first["message_id"] || third["receipt_handle"] == second["receipt_handle"] {
		t.Fatalf("after the visibility timeout got %v, want the message again under a new receipt", third)
	}
	for i, f := range []map[string]any{first, second, third} {
		if f["receive_count"] != float64(i+1) {
			t.Errorf("push %d has receive_count %v, want %d", i+1, f["receive_count"], i+1)
		}
	}
}
