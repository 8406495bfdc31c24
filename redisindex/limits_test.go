package redisindex

import (
	"context"
	"testing"
	"time"
)

// TestLimitsSharedByTwoClients takes from one bucket through two clients
// of the test Redis, as two nodes would: the burst and the rate hold for
// both together, and a refusal says when to retry.
func TestLimitsSharedByTwoClients(t *testing.T) {
	c1, c2 := newClient(t), newClient(t)
	prefix := freshPrefix(t, c1)
	a, b := NewLimits(c1, Options{Prefix: prefix}), NewLimits(c2, Options{Prefix: prefix})
	ctx := context.Background()
	taken := 0
	for i := range 20 {
		l := a
		if i%2 == 1 {
			l = b
		}
		retry, err := l.Take(ctx, "sqs/acct", 5, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		if retry == 0 {
			taken++
		} else if retry > 250*time.Millisecond {
			t.Errorf("retry after %v at 5/s, want at most 200ms", retry)
		}
	}
	if taken != 5 {
		t.Errorf("two clients took %d of 20 at once from a bucket of 5, want 5", taken)
	}
	// At 5 a second, one more is there within 200 ms: poll for it.
	deadline := time.Now().Add(2 * time.Second)
	for {
		retry, err := b.Take(ctx, "sqs/acct", 5, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		if retry == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bucket did not refill at 5/s within 2s")
		}
		time.Sleep(retry)
	}
	if retry, _ := a.Take(ctx, "sqs/other", 5, 5, 1); retry != 0 {
		t.Error("another bucket was refused")
	}
	// Bytes: a take of n, and a rate below one a second.
	if retry, _ := a.Take(ctx, "cache.bytes/acct", 1000, 1000, 900); retry != 0 {
		t.Error("900 of 1000 bytes refused")
	}
	if retry, _ := b.Take(ctx, "cache.bytes/acct", 1000, 1000, 200); retry < 50*time.Millisecond || retry > 150*time.Millisecond {
		t.Errorf("200 bytes with 100 left at 1000/s: retry after %v, want about 100ms", retry)
	}
	if retry, _ := a.Take(ctx, "sqs/slow", 0.1, 1, 1); retry != 0 {
		t.Error("the first take at 0.1/s refused")
	}
	if retry, _ := b.Take(ctx, "sqs/slow", 0.1, 1, 1); retry < 9*time.Second || retry > 10*time.Second {
		t.Errorf("the second take at 0.1/s: retry after %v, want about 10s", retry)
	}
}
