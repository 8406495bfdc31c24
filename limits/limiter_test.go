package limits

import (
	"testing"
	"time"

	"github.com/heraldmq/herald"
)

// fakeClock is the limiter's time, moved by the test.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newAt(t *testing.T, specs ...string) (*Limiter, *fakeClock) {
	t.Helper()
	rules, err := ParseRules(specs)
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := New(nil)
	l.now = c.now
	l.SetRules(rules)
	return l, c
}

func TestNoRulesAdmitsEverything(t *testing.T) {
	var nilLimiter *Limiter
	for _, l := range []*Limiter{nilLimiter, New(nil)} {
		for range 1000 {
			if err := l.Admit("a", DoorSQS, 1<<20); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestRequestRatePerAccount(t *testing.T) {
	l, clock := newAt(t, "sqs=2/s:2", "big/sqs=10/s:10", "free/sqs=off")
	admitted := func(account string, n int) (ok int, retry time.Duration) {
		for range n {
			err := l.Admit(account, DoorSQS, 0)
			if err == nil {
				ok++
				continue
			}
			d, isThrottled := herald.RetryAfter(err)
			if !isThrottled {
				t.Fatalf("refusal %v is not a throttling", err)
			}
			retry = d
		}
		return ok, retry
	}
	for _, tc := range []struct {
		account string
		want    int
	}{{"a", 2}, {"b", 2}, {"big", 10}, {"free", 100}} {
		if got, _ := admitted(tc.account, 100); got != tc.want {
			t.Errorf("account %s: %d of 100 admitted at once, want %d", tc.account, got, tc.want)
		}
	}
	if _, retry := admitted("a", 1); retry != 500*time.Millisecond {
		t.Errorf("retry after %v, want 500ms (one request at 2/s)", retry)
	}
	clock.add(500 * time.Millisecond)
	if got, _ := admitted("a", 5); got != 1 {
		t.Errorf("after half a second at 2/s: %d admitted, want 1", got)
	}
	if got, _ := admitted("a", 1); got != 0 {
		t.Error("a refused request took nothing, so the next one is refused too")
	}
	if err := l.Admit("a", DoorSNS, 0); err != nil {
		t.Errorf("another door: %v", err)
	}
}

func TestByteRate(t *testing.T) {
	l, clock := newAt(t, "cache.bytes=1000/s:1000")
	if err := l.Admit("a", DoorCache, 600); err != nil {
		t.Fatal(err)
	}
	err := l.Admit("a", DoorCache, 600)
	if d, ok := herald.RetryAfter(err); !ok || d != 200*time.Millisecond {
		t.Fatalf("second 600 bytes: %v, want throttled for 200ms", err)
	}
	if err := l.Admit("a", DoorCache, 0); err != nil {
		t.Errorf("a request without a payload is not limited by bytes: %v", err)
	}
	clock.add(time.Second)
	if err := l.Admit("a", DoorCache, 5000); err != nil {
		t.Errorf("a payload over the burst passes when the bucket is full: %v", err)
	}
	if err := l.Admit("a", DoorCache, 1); err == nil {
		t.Error("and empties it")
	}
}

func TestRefusedByBytesGivesBackTheRequest(t *testing.T) {
	l, _ := newAt(t, "sns=2/s:2", "sns.bytes=10/s:10")
	if err := l.Admit("a", DoorSNS, 10); err != nil {
		t.Fatal(err)
	}
	if err := l.Admit("a", DoorSNS, 10); err == nil {
		t.Fatal("bytes over the rate admitted")
	}
	if err := l.Admit("a", DoorSNS, 0); err != nil {
		t.Errorf("the request refused for its bytes still took a request: %v", err)
	}
}

func TestSetRulesAtRunTime(t *testing.T) {
	l, _ := newAt(t, "sqs=1/s:1")
	l.Admit("a", DoorSQS, 0)
	if l.Admit("a", DoorSQS, 0) == nil {
		t.Fatal("over 1/s admitted")
	}
	rules, _ := ParseRules([]string{"sqs=off"})
	l.SetRules(rules)
	if err := l.Admit("a", DoorSQS, 0); err != nil {
		t.Errorf("after the limit was lifted: %v", err)
	}
	if got := l.Rules(); len(got) != 1 || got[0].String() != "sqs=off" {
		t.Errorf("rules %v", got)
	}
}

func TestBucketsBounded(t *testing.T) {
	l, clock := newAt(t, "sqs=1/s:1")
	for i := range maxBuckets + 10 {
		l.Admit(string(rune('a'+i%26))+time.Duration(i).String(), DoorSQS, 0)
		if i == maxBuckets/2 {
			clock.add(time.Minute) // the first half are full again: evicted first
		}
	}
	if n := len(l.buckets); n > maxBuckets {
		t.Errorf("%d buckets, want at most %d", n, maxBuckets)
	}
}

func BenchmarkAdmit(b *testing.B) {
	for _, tc := range []struct {
		name  string
		rules []string
	}{{"no rules", nil}, {"one rule", []string{"sqs=1e9/s"}}} {
		b.Run(tc.name, func(b *testing.B) {
			rules, _ := ParseRules(tc.rules)
			l := New(rules)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					l.Admit("123456789012", DoorSQS, 100)
				}
			})
		})
	}
}

// TestExhaustedPeeksWithoutTaking: Exhausted says whether an account's
// bucket is empty, takes nothing from it, and knows nothing of accounts
// that have not been admitted yet.
func TestExhaustedPeeksWithoutTaking(t *testing.T) {
	l, clock := newAt(t, "sqs=1/s:1")
	if l.Exhausted("a", DoorSQS) {
		t.Fatal("an account never seen is exhausted")
	}
	if err := l.Admit("a", DoorSQS, 0); err != nil {
		t.Fatal(err)
	}
	if !l.Exhausted("a", DoorSQS) {
		t.Fatal("an emptied bucket is not exhausted")
	}
	if l.Exhausted("a", DoorSNS) || l.Exhausted("b", DoorSQS) {
		t.Error("another door or account is exhausted")
	}
	clock.add(time.Second)
	for range 3 {
		if l.Exhausted("a", DoorSQS) {
			t.Fatal("a refilled bucket is exhausted")
		}
	}
	if err := l.Admit("a", DoorSQS, 0); err != nil {
		t.Errorf("peeking took the request: %v", err)
	}
}

func TestQuotasAndHoldings(t *testing.T) {
	l, _ := newAt(t, "websockets=2", "big/websockets=off", "queues=10")
	if n, ok := l.Quota("a", QuotaWebSockets); !ok || n != 2 {
		t.Errorf("quota of a: %d %v", n, ok)
	}
	if _, ok := l.Quota("big", QuotaWebSockets); ok {
		t.Error("a quota lifted for an account still bounds it")
	}
	if _, ok := l.Quota("a", QuotaTopics); ok {
		t.Error("a quota no rule names bounds")
	}
	var h Holdings
	r1, err := h.Take("a", QuotaWebSockets, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Take("a", QuotaWebSockets, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Take("a", QuotaWebSockets, 2); err == nil {
		t.Fatal("a third WebSocket over a quota of 2 taken")
	}
	if _, err := h.Take("b", QuotaWebSockets, 2); err != nil {
		t.Errorf("another account: %v", err)
	}
	r1()
	r1() // a second release changes nothing
	if _, err := h.Take("a", QuotaWebSockets, 2); err != nil {
		t.Errorf("after a release: %v", err)
	}
	if _, err := h.Take("a", QuotaWebSockets, 2); err == nil {
		t.Error("a double release freed two places")
	}
}

func TestNamedRulesOverrideTheDoorsForTheirQueueOrTopic(t *testing.T) {
	l, _ := newAt(t, "sqs=2/s:2", "sqs:orders=5/s:5", "big/sqs:orders=off", "sns:alerts=1/s:1")
	count := func(account, door, name string, n int) (ok int) {
		for range n {
			if l.AdmitOn(account, door, name, 0) == nil {
				ok++
			}
		}
		return ok
	}
	if got := count("a", DoorSQS, "orders", 20); got != 5 {
		t.Errorf("queue orders: %d admitted at once, want its own 5", got)
	}
	if got := count("a", DoorSQS, "other", 20); got != 2 {
		t.Errorf("queue other: %d admitted, want the account's 2 (orders took none of them)", got)
	}
	if got := count("a", DoorSQS, "", 20); got != 0 {
		t.Errorf("a request naming no queue after other's: %d admitted, want 0 (one bucket for the door)", got)
	}
	if got := count("b", DoorSQS, "orders", 20); got != 5 {
		t.Errorf("account b's queue orders: %d admitted, want 5 (buckets are per account)", got)
	}
	if got := count("big", DoorSQS, "orders", 50); got != 50 {
		t.Errorf("account big's own rule lifts orders' limit: %d of 50 admitted", got)
	}
	if got := count("a", DoorSNS, "alerts", 5); got != 1 {
		t.Errorf("topic alerts: %d admitted, want 1", got)
	}
	if got := count("a", DoorSNS, "news", 5); got != 5 {
		t.Errorf("topic news, no rule at sns: %d of 5 admitted", got)
	}
	if l.Exhausted("a", DoorSQS) {
		t.Error("Exhausted at a door with named rules: the request may be for a queue of its own rule")
	}
}

func TestNamedPathRulesTakeTheDeepestSubtree(t *testing.T) {
	l, _ := newAt(t, "path=1/s:1", "path:news=3/s:3", "path:news.live=10/s:10")
	count := func(p string, n int) (ok int) {
		for range n {
			if l.AdmitPaths("a", []string{p}) == nil {
				ok++
			}
		}
		return ok
	}
	for _, tc := range []struct {
		path string
		want int
	}{{"weather.today", 1}, {"news", 3}, {"news.sport", 3}, {"news.live", 10}, {"news.live.match.1", 10}, {"newsy", 1}} {
		if got := count(tc.path, 30); got != tc.want {
			t.Errorf("path %s: %d admitted at once, want %d", tc.path, got, tc.want)
		}
	}
}
