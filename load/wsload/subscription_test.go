package wsload

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
)

// A Subscription gets the messages of its pattern only, each with the
// number and time Body gave it, and Read returns once it is closed.
func TestSubscriptionReadsItsPattern(t *testing.T) {
	srv := newServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub, err := Subscribe(ctx, srv.URL+"/", "sub.a.#", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		n    int
		sent time.Time
	}
	deliveries := make(chan got, 10)
	done := make(chan error, 1)
	go func() {
		done <- sub.Read(func(n int, sent, received time.Time) {
			if received.Before(sent) {
				t.Errorf("message %d received at %v, before it was sent at %v", n, received, sent)
			}
			deliveries <- got{n, sent}
		})
	}()
	c := client.New(srv.URL, nil)
	sent := time.Now()
	for _, m := range []struct {
		n    int
		path string
	}{{1, "sub.b.x"}, {7, "sub.a.x"}} {
		meta, _ := json.Marshal(map[string]any{"paths": []string{m.path}, "text": "not a body member"})
		if _, _, err := c.Put(ctx, api.PutRequest{Metadata: meta, Body: Body(m.n, sent)}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case d := <-deliveries:
		if d.n != 7 || !d.sent.Equal(sent.Round(0)) {
			t.Errorf("delivery %d sent at %v, want message 7 sent at %v", d.n, d.sent, sent)
		}
	case <-ctx.Done():
		t.Fatal("no delivery")
	}
	sub.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Read after Close: nil error, want the close's")
		}
	case <-ctx.Done():
		t.Fatal("Read did not return after Close")
	}
	if len(deliveries) != 0 {
		t.Errorf("%d more deliveries: the message of another pattern came too", len(deliveries))
	}
	if _, err := Subscribe(ctx, "h:1", "a.#", time.Second); err == nil {
		t.Error("a server without a scheme: accepted")
	}
	if _, err := Subscribe(ctx, srv.URL, "not a pattern!", time.Second); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an invalid pattern: error %v, want the server's", err)
	}
}
