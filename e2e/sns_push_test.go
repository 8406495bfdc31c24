package e2e

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/google/uuid"
)

// SNS mobile push through a real herald serve and aws-sdk-go-v2, on both
// engines: HERALD endpoints reach devices on Herald's own WebSocket
// gateway (real coder/websocket clients), other platforms reach a push
// gateway (--push-gateway-url) that runs in this process.

// pushGateway records the pushes it is posted; tokens in invalid are
// answered 410 {"invalidToken": true}.
type pushGateway struct {
	srv     *httptest.Server
	mu      sync.Mutex
	got     []map[string]string
	invalid map[string]bool
}

func newPushGateway(t *testing.T, invalid ...string) *pushGateway {
	t.Helper()
	g := &pushGateway{invalid: map[string]bool{}}
	for _, tok := range invalid {
		g.invalid[tok] = true
	}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		g.got = append(g.got, m)
		if g.invalid[m["token"]] {
			w.WriteHeader(http.StatusGone)
			_, _ = io.WriteString(w, `{"invalidToken": true}`)
		}
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *pushGateway) to(token string) []map[string]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []map[string]string
	for _, m := range g.got {
		if m["token"] == token {
			out = append(out, m)
		}
	}
	return out
}

func (g *pushGateway) wait(t *testing.T, token string, n int) map[string]string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(g.to(token)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d pushes to %s, want %d", len(g.to(token)), token, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return g.to(token)[n-1]
}

func createPlatformApp(t *testing.T, c *sns.Client, platform string, attrs map[string]string) string {
	t.Helper()
	if attrs == nil {
		attrs = map[string]string{} // required by the model, even empty
	}
	out, err := c.CreatePlatformApplication(ctxFor(t, 30*time.Second), &sns.CreatePlatformApplicationInput{
		Name: aws.String("app-" + uuid.NewString()[:8]), Platform: aws.String(platform), Attributes: attrs})
	if err != nil {
		t.Fatalf("CreatePlatformApplication %s: %v", platform, err)
	}
	return aws.ToString(out.PlatformApplicationArn)
}

func createPlatformEndpoint(t *testing.T, c *sns.Client, app, token string) string {
	t.Helper()
	out, err := c.CreatePlatformEndpoint(ctxFor(t, 30*time.Second), &sns.CreatePlatformEndpointInput{
		PlatformApplicationArn: aws.String(app), Token: aws.String(token)})
	if err != nil {
		t.Fatalf("CreatePlatformEndpoint %s: %v", token, err)
	}
	return aws.ToString(out.EndpointArn)
}

// deviceOnQueue connects a device to the gateway and subscribes it to its
// own queue (its token).
func deviceOnQueue(t *testing.T, s *server, token string) *wsClient {
	t.Helper()
	d := dialWS(t, s)
	d.request(map[string]any{"type": "subscribe_queue", "queue": token, "visibility_timeout": 5})
	if f := d.next(10*time.Second, func(f map[string]any) bool { return f["type"] == "subscribed" || f["type"] == "error" }); f["type"] != "subscribed" {
		t.Fatalf("subscribe_queue %s: %v", token, f)
	}
	return d
}

// push waits for the next queue_message of queue, acks it and returns
// its body.
func (c *wsClient) push(t *testing.T, queue string) string {
	t.Helper()
	f := c.next(30*time.Second, ofType("queue_message"))
	id := c.request(map[string]any{"type": "ack", "queue": queue, "receipt_handle": f["receipt_handle"]})
	if r := c.next(10*time.Second, func(f map[string]any) bool { return f["id"] == id }); r["type"] != "acked" {
		t.Fatalf("ack: %v", r)
	}
	body, _ := f["body"].(string)
	return body
}

func TestSNSPushHeraldOverWebSocket(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "", "--ws-anonymous", "true") // Cassandra's default is false
		c := snsClient(s)
		ctx := ctxFor(t, 2*time.Minute)
		app := createPlatformApp(t, c, "HERALD", nil)

		t.Run("a connected device gets the push live", func(t *testing.T) {
			token := "box-" + uuid.NewString()[:8]
			ep := createPlatformEndpoint(t, c, app, token) // creates the queue
			d := deviceOnQueue(t, s, token)
			publish(t, c, &sns.PublishInput{TargetArn: aws.String(ep), MessageStructure: aws.String("json"),
				Message: aws.String(`{"default": "plain", "HERALD": "{\"channel\": 7}", "GCM": "not mine"}`)})
			if body := d.push(t, token); body != `{"channel": 7}` {
				t.Errorf("the device got %q, want its HERALD payload", body)
			}
		})

		t.Run("an offline device gets the push when it reconnects", func(t *testing.T) {
			token := "box-" + uuid.NewString()[:8]
			ep := createPlatformEndpoint(t, c, app, token)
			d := deviceOnQueue(t, s, token)
			d.conn.CloseNow()
			publish(t, c, &sns.PublishInput{TargetArn: aws.String(ep), Message: aws.String("while you were away")})
			time.Sleep(time.Second) // delivered to the queue while nobody listens
			again := deviceOnQueue(t, s, token)
			if body := again.push(t, token); body != "while you were away" {
				t.Errorf("the reconnected device got %q", body)
			}
		})

		t.Run("a topic's application subscription reaches the device", func(t *testing.T) {
			token := "box-" + uuid.NewString()[:8]
			ep := createPlatformEndpoint(t, c, app, token)
			topic := newTopic(t, c, nil)
			sub := subscribe(t, c, topic, "application", ep, nil)
			if !strings.HasPrefix(sub, topic+":") {
				t.Fatalf("subscription ARN %s", sub)
			}
			d := deviceOnQueue(t, s, token)
			publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("to every box")})
			if body := d.push(t, token); body != "to every box" {
				t.Errorf("the device got %q from the topic", body)
			}
		})

		t.Run("a disabled endpoint is refused", func(t *testing.T) {
			token := "box-" + uuid.NewString()[:8]
			ep := createPlatformEndpoint(t, c, app, token)
			if _, err := c.SetEndpointAttributes(ctx, &sns.SetEndpointAttributesInput{EndpointArn: aws.String(ep),
				Attributes: map[string]string{"Enabled": "false"}}); err != nil {
				t.Fatal(err)
			}
			_, err := c.Publish(ctx, &sns.PublishInput{TargetArn: aws.String(ep), Message: aws.String("m")})
			var de *types.EndpointDisabledException
			if !errors.As(err, &de) || de.ErrorMessage() != "Endpoint is disabled" {
				t.Errorf("Publish to a disabled endpoint: %v", err)
			}
		})
	})
}

func TestSNSPushGateway(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		gw := newPushGateway(t, "stale-token")
		s := e.start(t, "", "--push-gateway-url", gw.srv.URL+"/push")
		c := snsClient(s)
		ctx := ctxFor(t, 2*time.Minute)
		gcm := createPlatformApp(t, c, "GCM", map[string]string{"PlatformCredential": "server-key"})
		apns := createPlatformApp(t, c, "APNS", map[string]string{"PlatformCredential": "key", "PlatformPrincipal": "cert"})

		phone := createPlatformEndpoint(t, c, gcm, "gcm-token")
		msg := `{"default": "plain", "GCM": "{\"data\":{\"m\":1}}", "APNS": "{\"aps\":{\"alert\":\"hi\"}}"}`
		id := publish(t, c, &sns.PublishInput{TargetArn: aws.String(phone), MessageStructure: aws.String("json"), Message: aws.String(msg)})
		m := gw.wait(t, "gcm-token", 1)
		if m["platform"] != "GCM" || m["payload"] != `{"data":{"m":1}}` || m["endpointArn"] != phone || m["platformApplicationArn"] != gcm ||
			m["messageId"] != id || m["timestamp"] == "" || m["topicArn"] != "" {
			t.Errorf("the gateway got %v", m)
		}

		iphone := createPlatformEndpoint(t, c, apns, "apns-token")
		topic := newTopic(t, c, nil)
		sub := subscribe(t, c, topic, "application", iphone, nil)
		publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), MessageStructure: aws.String("json"), Message: aws.String(msg)})
		m = gw.wait(t, "apns-token", 1)
		if m["platform"] != "APNS" || m["payload"] != `{"aps":{"alert":"hi"}}` || m["topicArn"] != topic || m["subscriptionArn"] != sub {
			t.Errorf("the gateway got %v from the topic", m)
		}

		// The gateway says the token is invalid: the endpoint is disabled.
		stale := createPlatformEndpoint(t, c, gcm, "stale-token")
		publish(t, c, &sns.PublishInput{TargetArn: aws.String(stale), Message: aws.String("m")})
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, err := c.GetEndpointAttributes(ctx, &sns.GetEndpointAttributesInput{EndpointArn: aws.String(stale)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Attributes["Enabled"] == "false" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the endpoint of an invalid token stays %v", out.Attributes)
			}
			time.Sleep(100 * time.Millisecond)
		}
		_, err := c.Publish(ctx, &sns.PublishInput{TargetArn: aws.String(stale), Message: aws.String("m")})
		var de *types.EndpointDisabledException
		if !errors.As(err, &de) {
			t.Errorf("Publish to the disabled endpoint: %v", err)
		}
		if n := len(gw.to("stale-token")); n != 1 {
			t.Errorf("the invalid token was posted %d times, want once", n)
		}
	})
}
