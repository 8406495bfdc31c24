package limits

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heraldmq/herald"
	"golang.org/x/time/rate"
)

// fakeShared is a cluster's store of buckets in memory, on the test's
// clock, counting the calls made to it.
type fakeShared struct {
	clock   *fakeClock
	buckets map[string]*rate.Limiter
	calls   int
	down    bool
}

func (f *fakeShared) Take(_ context.Context, key string, perSecond float64, burst, n int) (time.Duration, error) {
	f.calls++
	if f.down {
		return 0, errors.New("connection refused")
	}
	b := f.buckets[key]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(perSecond), burst)
		f.buckets[key] = b
	}
	r := b.ReserveN(f.clock.now(), n)
	if d := r.DelayFrom(f.clock.now()); d > 0 {
		r.CancelAt(f.clock.now())
		return d, nil
	}
	return 0, nil
}

// twoNodes returns two limiters sharing one store, with the same rules.
func twoNodes(t *testing.T, specs ...string) (a, b *Limiter, store *fakeShared, clock *fakeClock) {
	a, clock = newAt(t, specs...)
	b, _ = newAt(t, specs...)
	b.now = clock.now
	store = &fakeShared{clock: clock, buckets: map[string]*rate.Limiter{}}
	a.SetShared(store)
	b.SetShared(store)
	return a, b, store, clock
}

// alternately admits n requests of account acct at sqs, through a and b
// in turn, and returns how many were admitted.
func alternately(a, b *Limiter, n int) (admitted int) {
	for i := range n {
		node := a
		if i%2 == 1 {
			node = b
		}
		if node.Admit("acct", DoorSQS, 0) == nil {
			admitted++
		}
	}
	return admitted
}

func TestSharedRateHoldsForTwoNodes(t *testing.T) {
	a, b, store, clock := twoNodes(t, "sqs=10/s:10")
	admitted := alternately(a, b, 40)
	if admitted != 10 {
		t.Errorf("two nodes admitted %d of 40 at once, want the shared burst of 10 (each alone would admit 10)", admitted)
	}
	calls := store.calls
	for range 100 {
		if err := a.Admit("acct", DoorSQS, 0); err == nil {
			t.Fatal("admitted while the shared bucket is empty")
		} else if d, ok := herald.RetryAfter(err); !ok || d <= 0 || d > 100*time.Millisecond {
			t.Fatalf("refusal %v: want a throttling with a retry of at most 100ms", err)
		}
	}
	if store.calls != calls {
		t.Errorf("a node refused by the store asked it %d times more before the retry time; want none", store.calls-calls)
	}
	if !a.Exhausted("acct", DoorSQS) {
		t.Error("Exhausted is false while the shared bucket refused until later")
	}
	clock.add(time.Second)
	admitted = alternately(a, b, 40)
	if admitted != 10 {
		t.Errorf("a second later the two nodes admitted %d, want 10 (10/s shared)", admitted)
	}
	if err := b.Admit("other", DoorSQS, 0); err != nil {
		t.Errorf("another account shares no bucket with acct: %v", err)
	}
}

func TestSharedRefusalGivesBackTheNodesTokens(t *testing.T) {
	a, b, _, _ := twoNodes(t, "sqs=5/s:5")
	for range 5 {
		if err := b.Admit("acct", DoorSQS, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Admit("acct", DoorSQS, 0); err == nil {
		t.Fatal("node a admitted past the shared burst")
	}
	a.mu.Lock()
	tokens := a.buckets[ruleKey{account: "acct", door: DoorSQS}].lim.TokensAt(a.now())
	a.mu.Unlock()
	if tokens != 5 {
		t.Errorf("node a's own bucket holds %v after the store refused, want 5 (nothing taken)", tokens)
	}
}

func TestSharedStoreDownLeavesEachNodeItsOwnLimit(t *testing.T) {
	a, b, store, _ := twoNodes(t, "sqs=5/s:5")
	store.down = true
	admitted := 0
	for range 20 {
		if a.Admit("acct", DoorSQS, 0) == nil {
			admitted++
		}
		if b.Admit("acct", DoorSQS, 0) == nil {
			admitted++
		}
	}
	if admitted != 10 {
		t.Errorf("with the store down two nodes admitted %d, want 5 each", admitted)
	}
	if a.SharedErrors() != 5 || b.SharedErrors() != 5 {
		t.Errorf("shared errors %d and %d, want 5 each (one per action the node admitted alone)", a.SharedErrors(), b.SharedErrors())
	}
}

func TestSharedBytesAndPaths(t *testing.T) {
	a, b, _, _ := twoNodes(t, "cache.bytes=1000/s:1000", "path=2/s:2")
	if err := a.Admit("acct", DoorCache, 800); err != nil {
		t.Fatal(err)
	}
	if err := b.Admit("acct", DoorCache, 800); err == nil {
		t.Error("node b admitted 800 bytes after node a took 800 of the shared 1000")
	}
	if err := b.Admit("acct", DoorCache, 200); err != nil {
		t.Errorf("200 bytes are left in the shared bucket: %v", err)
	}
	for _, n := range []*Limiter{a, b} {
		if err := n.AdmitPaths("acct", []string{"x.y"}); err != nil {
			t.Fatal(err)
		}
	}
	err := a.AdmitPaths("acct", []string{"x.z", "x.y"})
	if err == nil {
		t.Fatal("a third write to x.y across the two nodes was admitted at 2/s")
	}
	if err := a.AdmitPaths("acct", []string{"x.z"}); err != nil {
		t.Errorf("x.z has its own bucket: %v", err)
	}
}
