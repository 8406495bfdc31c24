package sqstest

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// storeTTL is how long the expiry subtest's short-lived messages live.
// Engines may keep TTLs in whole seconds, so it is more than one; every
// check before expiry must be done by then, also on a remote engine that
// has just started.
const storeTTL = 2 * time.Second

// expiryGrace is how long after ExpiresAt the suite requires a message to
// be gone.
const expiryGrace = 250 * time.Millisecond

// testStoreExpiry stores messages some of which expire shortly, checks
// them, waits once for the expiry and checks that GetMessages and
// ScanMessages no longer return the expired ones.
func testStoreExpiry(e *storeEnv) {
	q := e.createSharded("q", 2)
	exp := NowMilli().Add(storeTTL)
	short := msgs(e.now.Add(-time.Minute), "short", 3)
	long := msgs(e.now.Add(-time.Minute+10*time.Millisecond), "long", 3)
	for _, m := range short {
		m.ExpiresAt = exp
	}
	all := append(slices.Clone(short), long...)
	e.put(q, all...) // each to its ShardOf
	ids := make([]uuid.UUID, len(all))
	for i, m := range all {
		ids[i] = m.ID
	}
	byShard := func(ms []*sqs.Message, shard int) []*sqs.Message {
		var out []*sqs.Message
		for _, m := range ms {
			if m.Shard == shard {
				out = append(out, m)
			}
		}
		slices.SortFunc(out, func(a, b *sqs.Message) int { return CompareIDs(a.ID, b.ID) })
		return out
	}
	sameMessages(e.t, "GetMessages before expiry", all, e.get(q, ids...))
	for shard := range 2 {
		sameMessages(e.t, "ScanMessages before expiry", byShard(all, shard), e.scanAll(q, shard, 10))
	}
	if time.Now().After(exp) {
		e.t.Fatalf("storing and checking took longer than the %s the messages live; the engine is too slow for this check", storeTTL)
	}
	time.Sleep(time.Until(exp.Add(expiryGrace)))
	sameMessages(e.t, "GetMessages after expiry", long, e.get(q, ids...))
	for shard := range 2 {
		sameMessages(e.t, "ScanMessages after expiry", byShard(long, shard), e.scanAll(q, shard, 10))
	}
}
