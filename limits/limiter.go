package limits

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/heraldmq/herald"
)

// maxBuckets bounds the buckets a node keeps. Past it, full (idle) buckets
// are dropped first; dropping one that is not full forgets what its
// account spent, which errs towards admitting.
const maxBuckets = 100000

// Limiter admits or throttles actions by the rules it holds. Its zero
// value is not usable; New makes one. Safe for concurrent use.
type Limiter struct {
	// any is false while no rule limits anything: Admit then returns at
	// once, without a lock (the embedded default).
	any atomic.Bool

	mu      sync.Mutex
	rules   []Rule
	byKey   map[ruleKey]Rule
	buckets map[ruleKey]*bucket // by the account admitted, door and kind
	now     func() time.Time

	writers *Writers // always on, limits or not

	// throttled counts refusals by door (and ScopePath), for /metrics.
	throttled map[string]*atomic.Uint64

	admission *Admission
}

// SetMaxInFlight sets the node's capacity in concurrent requests for its
// admission control (Admission); 0, the default, admits everything.
// Call it before serving.
func (l *Limiter) SetMaxInFlight(n int) { l.admission = &Admission{MaxInFlight: n} }

// Enter enters one request of account into the node's admission control
// (see Admission.Enter).
func (l *Limiter) Enter(account string) (leave func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	return l.admission.Enter(account)
}

func (l *Limiter) countThrottled(door string) {
	if n := l.throttled[door]; n != nil {
		n.Add(1)
	}
}

// Throttled is how many requests each door refused for their rates, and
// "path" writes refused for their path's.
func (l *Limiter) Throttled() map[string]uint64 {
	out := make(map[string]uint64, len(l.throttled))
	for d, n := range l.throttled {
		out[d] = n.Load()
	}
	return out
}

// Begin admits one request of account at door, and its bytes (Admit),
// then enters it into admission control (Enter): what a service does
// before an action that holds the node's capacity while it runs. leave
// must be called when the action is done.
func (l *Limiter) Begin(account, door string, bytes int) (leave func(), err error) {
	if err := l.Admit(account, door, bytes); err != nil {
		return nil, err
	}
	return l.Enter(account)
}

// Refused is how many requests of each account admission control refused.
func (l *Limiter) Refused() map[string]uint64 {
	if l == nil {
		return nil
	}
	return l.admission.Refused()
}

type bucket struct {
	lim  *rate.Limiter
	rule Rule // the rule it was made by: a changed rule makes a new bucket
}

// New returns a Limiter holding rules.
func New(rules []Rule) *Limiter {
	l := &Limiter{now: time.Now, writers: NewWriters(), throttled: map[string]*atomic.Uint64{}}
	for _, d := range append(slices.Clone(Doors), ScopePath) {
		l.throttled[d] = new(atomic.Uint64)
	}
	l.SetRules(rules)
	return l
}

// SetRules replaces the rules. Buckets of rules that changed start full.
func (l *Limiter) SetRules(rules []Rule) {
	byKey := make(map[ruleKey]Rule, len(rules))
	limiting := false
	for _, r := range rules {
		byKey[r.key()] = r
		limiting = limiting || !r.Off
	}
	l.mu.Lock()
	l.rules = append([]Rule(nil), rules...)
	l.byKey = byKey
	l.buckets = map[ruleKey]*bucket{}
	l.mu.Unlock()
	l.any.Store(limiting)
}

// Rules returns the rules held.
func (l *Limiter) Rules() []Rule {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Rule(nil), l.rules...)
}

// Admit takes one request of account through door, and bytes bytes of it
// (0 for an action that carries no payload), or refuses it with a
// *herald.Error of code EThrottled and the time after which a retry would
// be admitted. A refused request takes nothing from either bucket.
func (l *Limiter) Admit(account, door string, bytes int) error {
	if l == nil {
		return nil
	}
	l.writers.Observe(WriterAccount, account+"\x00"+door)
	if !l.any.Load() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	req, reqRule := l.bucketLocked(account, door, false)
	var byt *bucket
	var bytRule Rule
	if bytes > 0 {
		byt, bytRule = l.bucketLocked(account, door, true)
	}
	var r *rate.Reservation
	if req != nil {
		r = req.lim.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			l.countThrottled(door)
			return throttled(account, reqRule, d)
		}
	}
	if byt != nil {
		n := min(bytes, byt.lim.Burst()) // a payload larger than the burst takes it all
		if d := byt.lim.ReserveN(now, n); d.DelayFrom(now) > 0 {
			wait := d.DelayFrom(now)
			d.CancelAt(now)
			if r != nil {
				r.CancelAt(now)
			}
			l.countThrottled(door)
			return throttled(account, bytRule, wait)
		}
	}
	return nil
}

// Quota returns the quota name of account (QuotaQueues, ...): its own
// rule's count, else every account's; ok false when no rule bounds it.
func (l *Limiter) Quota(account, name string) (n int, ok bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	rule, found := l.byKey[ruleKey{account, name, false}]
	if !found {
		rule, found = l.byKey[ruleKey{"", name, false}]
	}
	if !found || rule.Off {
		return 0, false
	}
	return rule.Count, true
}

// Exhausted reports, without taking anything, whether account has no
// request left at door right now: its bucket exists and holds less than
// one. An edge may refuse such a request before the costly part of its
// admission (a signature check); the authoritative check stays Admit's.
func (l *Limiter) Exhausted(account, door string) bool {
	if l == nil || !l.any.Load() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[ruleKey{account, door, false}]
	if b == nil || b.rule != l.byKey[b.rule.key()] {
		return false
	}
	if b.lim.TokensAt(l.now()) >= 1 {
		return false
	}
	l.countThrottled(door)
	return true
}

// Writers is the limiter's estimate of the busiest writers: every account
// admitted (or refused) at each door, and every path Wrote names.
func (l *Limiter) Writers() *Writers { return l.writers }

// Wrote counts one write to each of paths for the top writers, whoever
// made it (Herald's own writes too: a path in a tight loop is one whatever
// the source).
func (l *Limiter) Wrote(paths []string) {
	if l == nil {
		return
	}
	for _, p := range paths {
		l.writers.Observe(WriterPath, p)
	}
}

// AdmitPaths takes one write to each of paths, written by account, from
// the rule "path" (ScopePath): each path has a bucket of its own. It
// refuses the write, taking nothing, when any path is over its rate.
func (l *Limiter) AdmitPaths(account string, paths []string) error {
	if l == nil || !l.any.Load() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var taken []*rate.Reservation
	for _, p := range paths {
		b, rule := l.bucketOfLocked(account, ScopePath, false, ruleKey{account, ScopePath + "\x00" + p, false})
		if b == nil {
			return nil // no rule: none of the paths is limited
		}
		r := b.lim.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			for _, t := range taken {
				t.CancelAt(now)
			}
			l.countThrottled(ScopePath)
			return throttledPath(account, p, rule, d)
		}
		taken = append(taken, r)
	}
	return nil
}

// bucketLocked returns the bucket limiting account's door and kind, and the
// rule it follows, or nil when no rule does.
func (l *Limiter) bucketLocked(account, door string, bytes bool) (*bucket, Rule) {
	return l.bucketOfLocked(account, door, bytes, ruleKey{account, door, bytes})
}

// bucketOfLocked returns the bucket kept under k for the rule of account's
// door and kind, or nil when no rule applies.
func (l *Limiter) bucketOfLocked(account, door string, bytes bool, k ruleKey) (*bucket, Rule) {
	rule, ok := l.byKey[ruleKey{account, door, bytes}]
	if !ok {
		if rule, ok = l.byKey[ruleKey{"", door, bytes}]; !ok {
			return nil, Rule{}
		}
	}
	if rule.Off {
		return nil, Rule{}
	}
	b := l.buckets[k]
	if b == nil || b.rule != rule {
		if len(l.buckets) >= maxBuckets {
			l.evictLocked()
		}
		b = &bucket{lim: rate.NewLimiter(rate.Limit(rule.PerSecond), rule.burst()), rule: rule}
		l.buckets[k] = b
	}
	return b, rule
}

// evictLocked drops the full buckets, and if none is full, a tenth of all.
func (l *Limiter) evictLocked() {
	now := l.now()
	for k, b := range l.buckets {
		if b.lim.TokensAt(now) >= float64(b.lim.Burst()) {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < maxBuckets*9/10 {
			break
		}
		delete(l.buckets, k)
	}
}

// throttledPath is the refusal of a write to path by rule.
func throttledPath(account, path string, r Rule, retry time.Duration) error {
	return &herald.Error{
		Code:       herald.EThrottled,
		Message:    fmt.Sprintf("rate exceeded: path %s takes at most %g writes per second; retry after %s", herald.Clip(path), r.PerSecond, retry.Round(time.Millisecond)),
		RetryAfter: retry,
	}
}

// throttled is the refusal of account's action by rule, with when to retry.
func throttled(account string, r Rule, retry time.Duration) error {
	what := "requests"
	if r.Bytes {
		what = "bytes"
	}
	return &herald.Error{
		Code:       herald.EThrottled,
		Message:    fmt.Sprintf("rate exceeded: account %s is limited to %g %s per second through %s; retry after %s", herald.Clip(account), r.PerSecond, what, r.Door, retry.Round(time.Millisecond)),
		RetryAfter: retry,
	}
}
