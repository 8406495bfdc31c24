package limits

import (
	"fmt"
	"slices"
	"strings"
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

	mu    sync.Mutex
	rules []Rule
	byKey map[ruleKey]Rule
	named map[string]bool // doors (and ScopePath) with a rule naming a queue, topic or subtree
	// anyNamed is whether named has a door: Names answers false without
	// a lock while none does.
	anyNamed atomic.Bool
	buckets  map[ruleKey]*bucket // by the account admitted, door and kind
	now      func() time.Time

	writers *Writers // always on, limits or not

	// throttled counts refusals by door (and ScopePath), for /metrics.
	throttled map[string]*atomic.Uint64

	admission *Admission

	sharedCounters // the cluster's buckets, when SetShared gave a store
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

// Begin admits one request of account at door, and its bytes, naming
// name (AdmitOn),
// then enters it into admission control (Enter): what a service does
// before an action that holds the node's capacity while it runs. leave
// must be called when the action is done.
func (l *Limiter) Begin(account, door, name string, bytes int) (leave func(), err error) {
	if err := l.AdmitOn(account, door, name, bytes); err != nil {
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
	// sharedUntil is when the shared store's twin of this bucket will
	// hold enough again, after it refused: until then the node refuses
	// without asking it.
	sharedUntil time.Time
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
	named := map[string]bool{}
	limiting := false
	for _, r := range rules {
		byKey[r.key()] = r
		limiting = limiting || !r.Off
		if r.Name != "" {
			named[r.Door] = true
		}
	}
	l.mu.Lock()
	l.rules = append([]Rule(nil), rules...)
	l.byKey = byKey
	l.named = named
	l.anyNamed.Store(len(named) > 0)
	l.buckets = map[ruleKey]*bucket{}
	l.mu.Unlock()
	l.any.Store(limiting)
}

// Names reports whether a rule names one queue or topic of door (or a
// subtree, for ScopePath): only then is the name of a request worth
// finding for AdmitOn.
func (l *Limiter) Names(door string) bool {
	if l == nil || !l.anyNamed.Load() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.named[door]
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
// be admitted. A refused request takes nothing from either bucket. With a
// Shared store (SetShared), the request is taken from the cluster's
// buckets too, after this node's.
func (l *Limiter) Admit(account, door string, bytes int) error {
	return l.AdmitOn(account, door, "", bytes)
}

// AdmitOn admits, as Admit does, a request that names one queue (door
// sqs) or topic (sns): when a rule names it ("sqs:NAME", the account's
// else every account's), the request is taken from buckets of its own,
// by that rule, instead of the account's buckets of the door.
func (l *Limiter) AdmitOn(account, door, name string, bytes int) error {
	if l == nil {
		return nil
	}
	l.writers.Observe(WriterAccount, account+"\x00"+door)
	if !l.any.Load() {
		return nil
	}
	var buf [2]take
	takes := buf[:0]
	l.mu.Lock()
	now := l.now()
	if !l.named[door] {
		name = ""
	}
	if b, rule, k := l.bucketLocked(account, door, name, false); b != nil {
		takes = append(takes, take{b: b, rule: rule, key: k, n: 1})
	}
	if bytes > 0 {
		if b, rule, k := l.bucketLocked(account, door, name, true); b != nil {
			// A payload larger than the burst takes it all.
			takes = append(takes, take{b: b, rule: rule, key: k, n: min(bytes, b.lim.Burst())})
		}
	}
	err := l.takeLocked(now, account, takes)
	l.mu.Unlock()
	if err != nil {
		return err
	}
	return l.takeShared(now, account, takes)
}

// Quota returns the quota name of account (QuotaQueues, ...): its own
// rule's count, else every account's; ok false when no rule bounds it.
func (l *Limiter) Quota(account, name string) (n int, ok bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	rule, found := l.ruleLocked(account, name, "", false)
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
	if l.named[door] {
		return false // the request may name a queue or topic of its own rule
	}
	b := l.buckets[ruleKey{account: account, door: door}]
	if b == nil || b.rule != l.byKey[b.rule.key()] {
		return false
	}
	now := l.now()
	if now.After(b.sharedUntil) && b.lim.TokensAt(now) >= 1 {
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
// the rule of the path's deepest subtree that one names ("path:news.live"),
// else the rule "path" (ScopePath): each path has a bucket of its own. It
// refuses the write, taking nothing, when any path is over its rate.
func (l *Limiter) AdmitPaths(account string, paths []string) error {
	if l == nil || !l.any.Load() {
		return nil
	}
	takes := make([]take, 0, len(paths))
	l.mu.Lock()
	now := l.now()
	for _, p := range paths {
		rule, ok := l.pathRuleLocked(account, p)
		if !ok {
			continue
		}
		k := ruleKey{account: account, door: ScopePath, name: p}
		if b := l.bucketForLocked(rule, k); b != nil {
			takes = append(takes, take{b: b, rule: rule, key: k, n: 1, path: p})
		}
	}
	err := l.takeLocked(now, account, takes)
	l.mu.Unlock()
	if err != nil {
		return err
	}
	return l.takeShared(now, account, takes)
}

// pathRuleLocked returns the rule of path p: that of its deepest subtree
// a rule names, else the rule "path".
func (l *Limiter) pathRuleLocked(account, p string) (Rule, bool) {
	if l.named[ScopePath] {
		for sub := p; sub != ""; {
			if r, ok := l.ruleLocked(account, ScopePath, sub, false); ok {
				return r, true
			}
			i := strings.LastIndexByte(sub, '.')
			if i < 0 {
				break
			}
			sub = sub[:i]
		}
	}
	return l.ruleLocked(account, ScopePath, "", false)
}

// take is what one action takes from one bucket.
type take struct {
	b    *bucket
	rule Rule
	key  ruleKey // the bucket's, which names its shared twin too
	n    int
	path string // for a path's bucket: the path, for the refusal
	res  *rate.Reservation
}

// refusal is the throttling answer when t's bucket holds too little.
func (t *take) refusal(account string, retry time.Duration) error {
	if t.path != "" {
		return throttledPath(account, t.path, t.rule, retry)
	}
	return throttled(account, t.rule, retry)
}

// takeLocked takes every one of takes from this node's buckets, or none:
// it refuses when one holds too little, or when the shared store refused
// it until later (bucket.sharedUntil).
func (l *Limiter) takeLocked(now time.Time, account string, takes []take) error {
	for i := range takes {
		t := &takes[i]
		d := t.b.sharedUntil.Sub(now)
		if d <= 0 {
			t.res = t.b.lim.ReserveN(now, t.n)
			if d = t.res.DelayFrom(now); d > 0 {
				t.res.CancelAt(now)
			}
		}
		if d > 0 {
			cancelAll(now, takes[:i])
			l.countThrottled(t.rule.Door)
			return t.refusal(account, d)
		}
	}
	return nil
}

func cancelAll(now time.Time, takes []take) {
	for _, t := range takes {
		if t.res != nil {
			t.res.CancelAt(now)
		}
	}
}

// bucketLocked returns the bucket limiting account's requests (or bytes)
// at door that name name (a queue or topic; "" for none), the rule it
// follows and its key, or nil when no rule does: a rule naming name, else
// the door's.
func (l *Limiter) bucketLocked(account, door, name string, bytes bool) (*bucket, Rule, ruleKey) {
	if name != "" {
		if rule, ok := l.ruleLocked(account, door, name, bytes); ok {
			k := ruleKey{account: account, door: door, name: name, bytes: bytes}
			return l.bucketForLocked(rule, k), rule, k
		}
	}
	rule, ok := l.ruleLocked(account, door, "", bytes)
	if !ok {
		return nil, Rule{}, ruleKey{}
	}
	k := ruleKey{account: account, door: door, bytes: bytes}
	return l.bucketForLocked(rule, k), rule, k
}

// ruleLocked returns the rule of account for door, name and kind: its
// own, else every account's.
func (l *Limiter) ruleLocked(account, door, name string, bytes bool) (Rule, bool) {
	if r, ok := l.byKey[ruleKey{account: account, door: door, name: name, bytes: bytes}]; ok {
		return r, true
	}
	r, ok := l.byKey[ruleKey{door: door, name: name, bytes: bytes}]
	return r, ok
}

// bucketForLocked returns the bucket kept under k for rule, made when
// missing or made by another rule; nil for a rule that is off.
func (l *Limiter) bucketForLocked(rule Rule, k ruleKey) *bucket {
	if rule.Off {
		return nil
	}
	b := l.buckets[k]
	if b == nil || b.rule != rule {
		if len(l.buckets) >= maxBuckets {
			l.evictLocked()
		}
		b = &bucket{lim: rate.NewLimiter(rate.Limit(rule.PerSecond), rule.burst()), rule: rule}
		l.buckets[k] = b
	}
	return b
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
