package limits

import (
	"context"
	"sync/atomic"
	"time"
)

// Shared keeps a twin of each bucket that every node of a cluster takes
// from, so that a rate holds for the cluster, not for each node
// (redisindex.Limits keeps them in Redis).
type Shared interface {
	// Take takes n from the bucket named key, which fills at perSecond up
	// to burst, and returns 0; or takes nothing and returns how long until
	// it holds n. An error (the store unreachable) decides nothing.
	Take(ctx context.Context, key string, perSecond float64, burst, n int) (retry time.Duration, err error)
}

// sharedTimeout bounds one call to the shared store: past it, the node
// decides alone.
const sharedTimeout = 100 * time.Millisecond

// SetShared makes the limiter take every admitted action from store's
// buckets as well as from its own. Call it before serving.
func (l *Limiter) SetShared(store Shared) { l.shared = store }

// SharedErrors is how many actions were decided by this node alone
// because the shared store failed to answer.
func (l *Limiter) SharedErrors() uint64 { return l.sharedErrors.Load() }

// takeShared takes, after this node's buckets admitted them, takes from
// the shared store's twins, in order. When one refuses, the node's
// reservations are given back, and the node refuses that bucket's actions
// itself until the shared one holds one again (bucket.sharedUntil), so that
// a flood over a limit costs the store about one call per node per
// refusal period. The shared takes before it are not given back (a
// shared bucket cannot be refunded), which errs towards refusing. When
// the store fails, the action is admitted on this node's buckets alone.
func (l *Limiter) takeShared(now time.Time, account string, takes []take) error {
	if l.shared == nil {
		return nil
	}
	for i := range takes {
		t := &takes[i]
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		retry, err := l.shared.Take(ctx, sharedKey(t.key), t.rule.PerSecond, t.rule.burst(), t.n)
		cancel()
		if err != nil {
			l.sharedErrors.Add(1)
			return nil
		}
		if retry > 0 {
			l.mu.Lock()
			cancelAll(now, takes)
			// Until the shared bucket holds one (a request, a byte): a
			// smaller payload may pass before a larger one would.
			empty := retry - time.Duration(float64(t.n-1)/t.rule.PerSecond*float64(time.Second))
			if until := now.Add(empty); until.After(t.b.sharedUntil) {
				t.b.sharedUntil = until
			}
			l.mu.Unlock()
			l.countThrottled(t.rule.Door)
			return t.refusal(account, retry)
		}
	}
	return nil
}

// sharedKey names a bucket in the shared store: its door, kind, the
// queue, topic or path it counts if any, and its account.
func sharedKey(k ruleKey) string {
	key := k.door
	if k.bytes {
		key += ".bytes"
	}
	if k.name != "" {
		key += ":" + k.name
	}
	return key + "/" + k.account
}

// sharedCounters is the limiter's count of the shared store's failures.
type sharedCounters struct {
	shared       Shared
	sharedErrors atomic.Uint64
}
