package pebblestore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// clock is a fake clock for Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(t time.Time) *clock { return &clock{now: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// t0 is the start time of the fake clocks of the tests.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// openDB opens a store in a fresh directory and closes it at the end of
// the test. A nil clock means the real one; the reaper is off unless opts
// asks for it.
func openDB(t testing.TB, c *clock, opts Options) *DB {
	t.Helper()
	return openDBIn(t, t.TempDir(), c, opts)
}

func openDBIn(t testing.TB, dir string, c *clock, opts Options) *DB {
	t.Helper()
	if c != nil {
		opts.Now = c.Now
	}
	if opts.ReapInterval == 0 {
		opts.ReapInterval = -1
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// v1 returns a version 1 UUID whose timestamp is at (to 100 ns) and whose
// other bits are random.
func v1(at time.Time) uuid.UUID {
	ticks, _, _, _ := ticksOf(at)
	return v1Ticks(ticks, rand.Uint64())
}

// v1Ticks returns a version 1 UUID with the given timestamp, and clock
// sequence and node taken from r.
func v1Ticks(ticks, r uint64) uuid.UUID {
	var id uuid.UUID
	binary.BigEndian.PutUint32(id[0:], uint32(ticks))
	binary.BigEndian.PutUint16(id[4:], uint16(ticks>>32))
	binary.BigEndian.PutUint16(id[6:], uint16(ticks>>48)&0x0fff|0x1000)
	binary.BigEndian.PutUint16(id[8:], uint16(r)&0x3fff|0x8000)
	binary.BigEndian.PutUint32(id[10:], uint32(r>>16))
	binary.BigEndian.PutUint16(id[14:], uint16(r>>48))
	return id
}

// msg returns a message with message time at, received at received, living
// for ttl, addressed to paths.
func msg(at, received time.Time, ttl time.Duration, paths ...string) *cache.Message {
	id := v1(at)
	meta, _ := json.Marshal(map[string]any{"paths": paths})
	received = received.UTC().Truncate(time.Millisecond)
	return &cache.Message{
		ID:         id,
		ReplicaID:  v1(received),
		Metadata:   meta,
		Paths:      paths,
		Body:       []byte("body of " + id.String()),
		ReceivedAt: received,
		ExpiresAt:  received.Add(ttl),
	}
}

func put(t testing.TB, db *DB, ms ...*cache.Message) {
	t.Helper()
	for _, m := range ms {
		stored, created, err := db.PutMessage(context.Background(), m)
		if err != nil {
			t.Fatalf("PutMessage(%s): %v", m.ID, err)
		}
		if !created || stored != m {
			t.Fatalf("PutMessage(%s) = %v, %v; want the message, true", m.ID, stored.ID, created)
		}
	}
}

// countKeys returns the number of keys starting with prefix.
func countKeys(t testing.TB, db *DB, prefix byte) int {
	t.Helper()
	return prefixKeyCount(t, db, []byte{prefix})
}

// prefixKeyCount returns the number of visible keys starting with prefix.
func prefixKeyCount(t testing.TB, db *DB, prefix []byte) int {
	t.Helper()
	it, err := db.newIter(context.Background(), prefix, prefixEnd(prefix))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for valid := it.First(); valid; valid = it.Next() {
		n++
	}
	if err := closeIter(it, nil); err != nil {
		t.Fatal(err)
	}
	return n
}

// keyCounts returns the number of keys of each data keyspace.
func keyCounts(t testing.TB, db *DB) string {
	t.Helper()
	return fmt.Sprintf("m=%d h=%d j=%d x=%d",
		countKeys(t, db, prefixMessage), countKeys(t, db, prefixHistory),
		countKeys(t, db, prefixJournal), countKeys(t, db, prefixExpiry))
}

// refIDs returns the ids of refs.
func refIDs(refs []cache.Ref) []uuid.UUID {
	out := make([]uuid.UUID, len(refs))
	for i, r := range refs {
		out[i] = r.ID
	}
	return out
}

func msgIDs(ms ...*cache.Message) []uuid.UUID {
	out := make([]uuid.UUID, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func words(cs []cache.Child) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Word
	}
	return out
}
