package redisindex

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/sqs"
)

// Index is sqs.Index in Redis. It is safe for concurrent use by any number
// of goroutines and nodes.
type Index struct {
	client  redis.UniversalClient
	scripts sender // client, or its automatic pipeline (pipeline.go)
	opts    Options
}

var _ sqs.Index = (*Index)(nil)

// New returns an Index on client. The client is the caller's to close.
func New(client redis.UniversalClient, opts Options) *Index {
	opts = opts.withDefaults()
	return &Index{client: client, scripts: newSender(client, opts), opts: opts}
}

// ClientOptions returns client options for addrs (one address: a plain
// client; several: a cluster) whose operations honour the Index's
// timeouts, with a dial timeout of the same order.
func ClientOptions(addrs ...string) *redis.UniversalOptions {
	return &redis.UniversalOptions{
		Addrs:                 addrs,
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
		MaxRetries:            1,
	}
}

func (ix *Index) keys(id uuid.UUID) queueKeys { return keysOf(ix.opts.Prefix, id) }

// call runs one Redis operation within the Index's timeout, through the
// circuit breaker when there is one.
func (ix *Index) call(ctx context.Context, op string, f func(ctx context.Context) error) error {
	return ix.opts.Breaker.do(op, func() error {
		ctx, cancel := context.WithTimeout(ctx, ix.opts.Timeout)
		defer cancel()
		return wrapErr(op, f(ctx))
	})
}

func fifoArg(q sqs.IndexQueue) string {
	if q.FIFO {
		return "1"
	}
	return "0"
}

// millis is t in Unix milliseconds, 0 for the zero time.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// timeOf is the inverse of millis.
func timeOf(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Add implements sqs.Index.
func (ix *Index) Add(ctx context.Context, q sqs.IndexQueue, entries []sqs.Entry) error {
	k := ix.keys(q.ID)
	for len(entries) > 0 {
		n := min(len(entries), batchSize)
		args := make([]any, 0, 2+6*n)
		args = append(args, k.groupPrefix, fifoArg(q))
		args = appendEntries(args, q, entries[:n])
		err := ix.call(ctx, "redisindex.Add", func(ctx context.Context) error {
			return scriptAdd.Run(ctx, ix.scripts, k.state, args...).Err()
		})
		if err != nil {
			return err
		}
		entries = entries[n:]
	}
	return nil
}

// appendEntries appends the script arguments of entries (6 each; see
// add_entries in lua/common.lua).
func appendEntries(args []any, q sqs.IndexQueue, entries []sqs.Entry) []any {
	for _, e := range entries {
		group := e.Group
		if !q.FIFO {
			group = ""
		}
		args = append(args, e.ID[:], millis(e.VisibleAt), e.ReceiveCount, millis(e.FirstReceiveAt), boolArg(e.InFlight), group)
	}
	return args
}

// Receive implements sqs.Index.
func (ix *Index) Receive(ctx context.Context, q sqs.IndexQueue, r sqs.ReceiveRequest) (sqs.ReceiveResult, error) {
	k := ix.keys(q.ID)
	var reply []any
	err := ix.call(ctx, "redisindex.Receive", func(ctx context.Context) (err error) {
		reply, err = scriptReceive.Run(ctx, ix.scripts, k.state,
			k.groupPrefix, fifoArg(q), ix.opts.idleMillis(),
			millis(r.Now), max(r.Max, 0), millis(r.Until),
			ix.opts.GroupScan, ix.opts.BlockLift, q.Epoch).Slice()
		return err
	})
	if err != nil {
		return sqs.ReceiveResult{}, err
	}
	if err := builtErr(reply, 2); err != nil {
		return sqs.ReceiveResult{}, err
	}
	res := sqs.ReceiveResult{NextVisibleAt: timeOf(asInt(reply[1]))}
	for i := 2; i+3 < len(reply); i += 4 {
		id, err := uuid.FromBytes([]byte(asString(reply[i])))
		if err != nil {
			return sqs.ReceiveResult{}, fmt.Errorf("redisindex: Receive: bad id in queue %s: %w", q.ID, err)
		}
		res.Claims = append(res.Claims, sqs.Claim{
			ID:             id,
			Group:          asString(reply[i+1]),
			ReceiveCount:   int(asInt(reply[i+2])),
			FirstReceiveAt: timeOf(asInt(reply[i+3])),
		})
	}
	return res, nil
}

// Remove implements sqs.Index.
func (ix *Index) Remove(ctx context.Context, q sqs.IndexQueue, ids []uuid.UUID) error {
	k := ix.keys(q.ID)
	for len(ids) > 0 {
		n := min(len(ids), batchSize)
		args := make([]any, 0, 3+n)
		args = append(args, k.groupPrefix, fifoArg(q), ix.opts.idleMillis())
		for _, id := range ids[:n] {
			args = append(args, id[:])
		}
		err := ix.call(ctx, "redisindex.Remove", func(ctx context.Context) error {
			return scriptRemove.Run(ctx, ix.scripts, k.state, args...).Err()
		})
		if err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// SetVisibleAt implements sqs.Index. The script compares receiveCount with
// the stored receive count, so that the check and the change are atomic.
func (ix *Index) SetVisibleAt(ctx context.Context, q sqs.IndexQueue, id uuid.UUID, receiveCount int, now, visibleAt time.Time) error {
	k := ix.keys(q.ID)
	var res int64
	err := ix.call(ctx, "redisindex.SetVisibleAt", func(ctx context.Context) (err error) {
		res, err = scriptSetVisible.Run(ctx, ix.scripts, k.state,
			k.groupPrefix, fifoArg(q), id[:], millis(now), millis(visibleAt), max(receiveCount, 0)).Int64()
		return err
	})
	switch {
	case err != nil:
		return err
	case res == 0:
		return sqs.ErrNotInFlight
	case res < 0:
		return sqs.ErrStaleReceipt
	}
	return nil
}

// Hide implements sqs.Index.
func (ix *Index) Hide(ctx context.Context, q sqs.IndexQueue, id uuid.UUID, now, visibleAt time.Time) (sqs.Claim, error) {
	k := ix.keys(q.ID)
	var reply []any
	err := ix.call(ctx, "redisindex.Hide", func(ctx context.Context) (err error) {
		reply, err = scriptHide.Run(ctx, ix.scripts, k.state, k.groupPrefix, fifoArg(q), id[:], millis(visibleAt)).Slice()
		return err
	})
	if err != nil {
		return sqs.Claim{}, err
	}
	if len(reply) != 4 || reply[0] != int64(1) {
		return sqs.Claim{}, sqs.ErrNotInFlight
	}
	return sqs.Claim{ID: id, Group: asString(reply[3]), ReceiveCount: int(asInt(reply[1])), FirstReceiveAt: timeOf(asInt(reply[2]))}, nil
}

// Counts implements sqs.Index.
func (ix *Index) Counts(ctx context.Context, q sqs.IndexQueue, now time.Time) (sqs.Counts, error) {
	k := ix.keys(q.ID)
	var reply []any
	err := ix.call(ctx, "redisindex.Counts", func(ctx context.Context) (err error) {
		reply, err = scriptCounts.Run(ctx, ix.scripts, k.state, millis(now), q.Epoch).Slice()
		return err
	})
	if err != nil {
		return sqs.Counts{}, err
	}
	if err := builtErr(reply, 4); err != nil {
		return sqs.Counts{}, err
	}
	return sqs.Counts{Visible: asInt(reply[1]), InFlight: asInt(reply[2]), Delayed: asInt(reply[3])}, nil
}

// Missing implements sqs.Index, batchSize ids per script call.
func (ix *Index) Missing(ctx context.Context, q sqs.IndexQueue, ids []uuid.UUID) ([]uuid.UUID, error) {
	k := ix.keys(q.ID)
	var missing []uuid.UUID
	for start := 0; start < len(ids); start += batchSize {
		chunk := ids[start:min(start+batchSize, len(ids))]
		args := make([]any, 1+len(chunk))
		args[0] = q.Epoch
		for i, id := range chunk {
			args[1+i] = id[:]
		}
		var reply []any
		err := ix.call(ctx, "redisindex.Missing", func(ctx context.Context) (err error) {
			reply, err = scriptMissing.Run(ctx, ix.scripts, k.state, args...).Slice()
			return err
		})
		if err != nil {
			return nil, err
		}
		if err := builtErr(reply, 1); err != nil {
			return nil, err
		}
		for _, v := range reply[1:] {
			if i := asInt(v); i >= 1 && int(i) <= len(chunk) {
				missing = append(missing, chunk[i-1])
			}
		}
	}
	return missing, nil
}

// Drop implements sqs.Index.
func (ix *Index) Drop(ctx context.Context, q sqs.IndexQueue) error {
	k := ix.keys(q.ID)
	return ix.call(ctx, "redisindex.Drop", func(ctx context.Context) error {
		return scriptDrop.Run(ctx, ix.scripts, k.withLock(), k.groupPrefix).Err()
	})
}

// MarkBuilt implements sqs.Index.
func (ix *Index) MarkBuilt(ctx context.Context, q sqs.IndexQueue) error {
	_, err := ix.markBuilt(ctx, q, "")
	return err
}

// markBuilt marks q built under q.Epoch, under the lease token when one
// is given; false when that lease no longer holds, sqs.ErrStaleEpoch when
// the state is of a newer epoch.
func (ix *Index) markBuilt(ctx context.Context, q sqs.IndexQueue, token string) (bool, error) {
	k := ix.keys(q.ID)
	var n int64
	err := ix.call(ctx, "redisindex.MarkBuilt", func(ctx context.Context) (err error) {
		n, err = scriptMarkBuilt.Run(ctx, ix.scripts, k.withLock(), ix.opts.idleMillis(), token, q.Epoch).Int64()
		return err
	})
	if err == nil && n < 0 {
		return false, sqs.ErrStaleEpoch
	}
	return n == 1, err
}

// LockRebuild implements sqs.Index: a lease (SET NX PX) under a random
// token, released only by its holder, so that an unlock after the lease
// ran out never frees another node's lock. Commit marks the queue built
// only while the lock still holds the token (lua/markbuilt.lua).
func (ix *Index) LockRebuild(ctx context.Context, q sqs.IndexQueue, lease time.Duration) (sqs.RebuildLease, bool, error) {
	key := ix.keys(q.ID).lock()
	token := randomToken()
	lease = max(lease, time.Millisecond)
	var ok bool
	err := ix.call(ctx, "redisindex.LockRebuild", func(ctx context.Context) (err error) {
		ok, err = ix.client.SetNX(ctx, key, token, lease).Result()
		return err
	})
	if err != nil || !ok {
		return nil, false, err
	}
	return &rebuildLease{ix: ix, q: q, key: key, token: token, lease: lease}, true, nil
}

// rebuildLease is one holder's rebuild lock on a queue.
type rebuildLease struct {
	ix    *Index
	q     sqs.IndexQueue
	key   string
	token string
	lease time.Duration
}

func (l *rebuildLease) Renew(ctx context.Context) error {
	var n int64
	err := l.ix.call(ctx, "redisindex.Renew", func(ctx context.Context) (err error) {
		n, err = scriptRenew.Run(ctx, l.ix.scripts, []string{l.key}, l.token, l.lease.Milliseconds()).Int64()
		return err
	})
	if err == nil && n != 1 {
		return sqs.ErrLeaseLost
	}
	return err
}

func (l *rebuildLease) Commit(ctx context.Context) error {
	ok, err := l.ix.markBuilt(ctx, l.q, l.token)
	if err == nil && !ok {
		return sqs.ErrLeaseLost
	}
	return err
}

// Progress reads the position saved in the queue's meta hash.
func (l *rebuildLease) Progress(ctx context.Context) (string, error) {
	var pos string
	err := l.ix.call(ctx, "redisindex.Progress", func(ctx context.Context) (err error) {
		pos, err = l.ix.client.HGet(ctx, l.ix.keys(l.q.ID).state[0], "rp").Result()
		if err == redis.Nil {
			pos, err = "", nil
		}
		return err
	})
	return pos, err
}

// Add adds entries under the lease, batchSize per script call, saving
// position with the last call only: it never runs ahead of the entries.
func (l *rebuildLease) Add(ctx context.Context, entries []sqs.Entry, position string) error {
	k := l.ix.keys(l.q.ID)
	for len(entries) > 0 || position != "" {
		n := min(len(entries), batchSize)
		pos := ""
		if n == len(entries) {
			pos = position
		}
		args := make([]any, 0, 5+6*n)
		args = append(args, k.groupPrefix, fifoArg(l.q), l.token, pos, l.q.Epoch)
		args = appendEntries(args, l.q, entries[:n])
		var added int64
		err := l.ix.call(ctx, "redisindex.RebuildAdd", func(ctx context.Context) (err error) {
			added, err = scriptRebuildAdd.Run(ctx, l.ix.scripts, k.withLock(), args...).Int64()
			return err
		})
		if err != nil {
			return err
		}
		if added < 0 {
			return sqs.ErrLeaseLost
		}
		entries = entries[n:]
		if pos != "" {
			return nil
		}
	}
	return nil
}

func (l *rebuildLease) Release() {
	// Best effort: if Redis is unreachable, the lease runs out.
	_ = l.ix.call(context.Background(), "redisindex.Unlock", func(ctx context.Context) error {
		return scriptUnlock.Run(ctx, l.ix.scripts, []string{l.key}, l.token).Err()
	})
}

// Deduplicate implements sqs.Index.
func (ix *Index) Deduplicate(ctx context.Context, q sqs.IndexQueue, key string, id uuid.UUID, window time.Duration) (existing uuid.UUID, dup bool, err error) {
	rkey := ix.keys(q.ID).dedup(key)
	windowMs := max(window.Milliseconds(), 1)
	var old string
	err = ix.call(ctx, "redisindex.Deduplicate", func(ctx context.Context) (err error) {
		old, err = scriptDedup.Run(ctx, ix.scripts, []string{rkey}, id[:], windowMs).Text()
		if err == redis.Nil {
			old, err = "", nil
		}
		return err
	})
	if err != nil || old == "" {
		return uuid.Nil, false, err
	}
	existing, err = uuid.FromBytes([]byte(old))
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("redisindex: Deduplicate: bad id under %q: %w", rkey, err)
	}
	return existing, true, nil
}

// builtErr reads the first element of a reply of a script that checks the
// built marker (built in lua/common.lua): nil when built and the reply has
// at least n elements, else sqs.ErrStaleEpoch or sqs.ErrNotBuilt.
func builtErr(reply []any, n int) error {
	switch {
	case len(reply) > 0 && reply[0] == int64(-1):
		return sqs.ErrStaleEpoch
	case len(reply) < n || reply[0] != int64(1):
		return sqs.ErrNotBuilt
	}
	return nil
}

func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func asInt(v any) int64 {
	n, _ := v.(int64)
	return n
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}
