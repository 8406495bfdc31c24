package redisindex

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// newNotifier returns a Notifier on a client of its own (a node), on prefix.
func newNotifier(t testing.TB, prefix string) *Notifier {
	t.Helper()
	n := NewNotifier(newClient(t), Options{Prefix: prefix})
	t.Cleanup(func() { n.Close() })
	return n
}

// waitSubscribers waits until channel has want subscribers.
func waitSubscribers(t testing.TB, c redis.UniversalClient, channel string, want int64) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		n := c.PubSubNumSub(context.Background(), channel).Val()[channel]
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("channel %s: %d subscribers, want %d", channel, n, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func isClosed(ch <-chan struct{}, within time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(within):
		return false
	}
}

func TestNotifierAcrossNodes(t *testing.T) {
	c := newClient(t)
	prefix := freshPrefix(t, c)
	a, b := newNotifier(t, prefix), newNotifier(t, prefix)
	id, other := uuid.New(), uuid.New()
	channel := channelOf(prefix, id)

	ch1, cancel1 := b.Wait(id)
	defer cancel1()
	ch2, cancel2 := b.Wait(id) // a second long poll on the same node shares the subscription
	defer cancel2()
	chOther, cancelOther := b.Wait(other)
	defer cancelOther()
	waitSubscribers(t, c, channel, 1)

	a.Notify(context.Background(), id)
	if !isClosed(ch1, 2*time.Second) || !isClosed(ch2, 2*time.Second) {
		t.Fatal("a Notify on node a did not wake the waiters on node b")
	}
	if isClosed(chOther, 100*time.Millisecond) {
		t.Fatal("a Notify of one queue woke a waiter of another")
	}
	// Woken waiters are gone: the node unsubscribes from the queue.
	waitSubscribers(t, c, channel, 0)
}

func TestNotifierWaitsOnlyForLaterNotify(t *testing.T) {
	c := newClient(t)
	prefix := freshPrefix(t, c)
	a, b := newNotifier(t, prefix), newNotifier(t, prefix)
	id := uuid.New()
	a.Notify(context.Background(), id)
	ch, cancel := b.Wait(id)
	defer cancel()
	if isClosed(ch, 100*time.Millisecond) {
		t.Fatal("woken by a Notify before Wait")
	}
}

func TestNotifierCancelUnsubscribes(t *testing.T) {
	c := newClient(t)
	prefix := freshPrefix(t, c)
	n := newNotifier(t, prefix)
	id := uuid.New()
	channel := channelOf(prefix, id)

	_, cancel1 := n.Wait(id)
	_, cancel2 := n.Wait(id)
	waitSubscribers(t, c, channel, 1)
	cancel1()
	cancel1() // twice is harmless
	time.Sleep(50 * time.Millisecond)
	waitSubscribers(t, c, channel, 1) // the other waiter still waits
	cancel2()
	waitSubscribers(t, c, channel, 0)
}

func TestNotifierClose(t *testing.T) {
	n := NewNotifier(newClient(t), Options{Prefix: "herald:test:close:"})
	ch, cancel := n.Wait(uuid.New())
	defer cancel()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if !isClosed(ch, time.Second) {
		t.Fatal("Close left a waiter waiting")
	}
	after, cancelAfter := n.Wait(uuid.New())
	defer cancelAfter()
	if !isClosed(after, time.Second) {
		t.Fatal("Wait after Close blocks")
	}
}
