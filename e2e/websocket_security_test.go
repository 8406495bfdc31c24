package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// deviceToken signs a token for the shared setup's token secret.
func deviceToken(t *testing.T, account string, ttl time.Duration, grants map[string]any) string {
	t.Helper()
	claims := jwt.MapClaims{"sub": "device-7", "exp": time.Now().Add(ttl).Unix(), "herald": grants}
	if account != "" {
		claims["account"] = account
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(tokenSecret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestWebSocketTokenExpiry: a connected device whose token expires is
// closed with 4003 at that moment, not only checked when it connected.
func TestWebSocketTokenExpiry(t *testing.T) {
	s := startServer(t, "", sharedArgs()...)
	tok := deviceToken(t, "", 2*time.Second, map[string]any{"subscribe": []string{"devices.7.#"}})
	c, err := dialWSWith(t, s, "?token="+tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.request(map[string]any{"type": "subscribe", "pattern": "devices.7.#"})
	c.next(10*time.Second, ofType("subscribed"))
	if code := c.closeCode(); code != 4003 {
		t.Fatalf("closed with %d, want 4003 (token expired)", code)
	}
	if waited := time.Since(start); waited > 4*time.Second {
		t.Fatalf("closed %s after connecting, the token lived under 2 s", waited)
	}
}

// TestWebSocketQueuesStayInTheirAccount: a device consumes queues of its
// token's account; naming another account's queue by URL is refused, as
// the SQS API refuses it.
func TestWebSocketQueuesStayInTheirAccount(t *testing.T) {
	s := startServer(t, "", sharedArgs()...)
	alice, bob := sqsAs(s, keyA), sqsAs(s, keyB)
	name := "device-" + uuid.NewString()[:8]
	aliceURL := newQueueNamed(t, alice, name)
	newQueueNamed(t, bob, name)
	if _, err := bob.SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(strings.Replace(aliceURL, acctA, acctB, 1)), MessageBody: aws.String("for bob's device")}); err != nil {
		t.Fatal(err)
	}
	tok := deviceToken(t, acctB, time.Hour, map[string]any{"queues": []string{name}})
	c, err := dialWSWith(t, s, "?token="+tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := c.request(map[string]any{"type": "subscribe_queue", "queue": aliceURL})
	if f := c.next(10*time.Second, func(f map[string]any) bool { return f["id"] == id }); f["type"] != "error" || f["code"] != "forbidden" {
		t.Fatalf("subscribe_queue with alice's queue URL: %v, want forbidden", f)
	}
	c.request(map[string]any{"type": "subscribe_queue", "queue": name})
	c.next(10*time.Second, ofType("subscribed"))
	if f := c.next(15*time.Second, ofType("queue_message")); f["body"] != "for bob's device" {
		t.Fatalf("pushed %v, want bob's message", f)
	}
}
