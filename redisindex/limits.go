package redisindex

import (
	"context"
	"math"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Limits keeps the cluster's buckets of rate limits (limits.Shared) in
// Redis, so that every node takes from the same ones: each bucket is one
// key holding its theoretical arrival time, taken from by one script that
// reads Redis's clock (GCRA, github.com/go-redis/redis_rate), so that the
// nodes' clocks do not matter. Keys are "rate:" + prefix + "limit:" +
// the bucket's name, and expire once their bucket is full again.
type Limits struct {
	rl      *redis_rate.Limiter
	prefix  string
	breaker *Breaker
}

// NewLimits returns the limits' buckets kept in c, under opts.Prefix,
// guarded by opts.Breaker (the Index's: a Redis that fails is left alone
// by both).
func NewLimits(c redis.UniversalClient, opts Options) *Limits {
	opts = opts.withDefaults()
	return &Limits{rl: redis_rate.NewLimiter(c), prefix: opts.Prefix + "limit:", breaker: opts.Breaker}
}

// Take implements limits.Shared.
func (l *Limits) Take(ctx context.Context, key string, perSecond float64, burst, n int) (time.Duration, error) {
	var retry time.Duration
	err := l.breaker.do("take from a rate limit", func() error {
		res, err := l.rl.AllowN(ctx, l.prefix+key, limitOf(perSecond, burst), n)
		if err != nil {
			return err
		}
		if res.Allowed == 0 {
			retry = max(res.RetryAfter, time.Millisecond)
		}
		return nil
	})
	return retry, err
}

// limitOf is a rate of perSecond as redis_rate counts it: Rate per Period,
// whose ratio (the interval between two takes) is all the script uses.
// A rate of at least one per second keeps three decimals; a slower one is
// one take per period.
func limitOf(perSecond float64, burst int) redis_rate.Limit {
	if perSecond >= 1 {
		return redis_rate.Limit{Rate: int(math.Round(perSecond * 1000)), Period: 1000 * time.Second, Burst: burst}
	}
	period := min(float64(time.Second)/perSecond, float64(math.MaxInt64/2))
	return redis_rate.Limit{Rate: 1, Period: time.Duration(period), Burst: burst}
}
