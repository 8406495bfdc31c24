package cache_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/pebblestore"
)

// quietLog drops the engine's log lines.
var quietLog = slog.New(slog.DiscardHandler)

// openStore opens a pebblestore in a fresh temporary directory, with the
// background reaper off so that nothing changes under a test, and closes it
// when the test ends. now is the store's clock for expiry (nil: time.Now).
func openStore(t *testing.T, now func() time.Time) *pebblestore.DB {
	t.Helper()
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{ReapInterval: -1, Now: now, Logger: quietLog})
	if err != nil {
		t.Fatalf("pebblestore.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	return db
}

// newService returns a Service with limits cfg over a fresh pebblestore.
func newService(t *testing.T, cfg cache.Config) *cache.Service {
	t.Helper()
	return cache.NewService(openStore(t, nil), cfg)
}

// clock is a settable time source shared by a Service and its store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(t time.Time) *clock { return &clock{t: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newClockedService returns a Service over a fresh pebblestore where both
// the service (received_at) and the store (expiry) read the time from c.
func newClockedService(t *testing.T, cfg cache.Config, c *clock) *cache.Service {
	t.Helper()
	svc := cache.NewService(openStore(t, c.Now), cfg)
	cache.SetClock(svc, c.Now)
	return svc
}

// uuidEpochTicks is the number of 100 ns ticks from the UUID epoch
// (1582-10-15) to the Unix epoch.
const uuidEpochTicks = 122192928000000000

// v1At builds a version 1 RFC 4122 UUID whose timestamp is at (rounded down
// to 100 ns) and whose clock sequence is seq, so that tests choose the
// recency of their messages.
func v1At(at time.Time, seq uint16) uuid.UUID {
	ticks := uint64(at.UnixNano()/100) + uuidEpochTicks
	var u uuid.UUID
	binary.BigEndian.PutUint32(u[0:4], uint32(ticks))
	binary.BigEndian.PutUint16(u[4:6], uint16(ticks>>32))
	binary.BigEndian.PutUint16(u[6:8], uint16(ticks>>48)&0x0fff|0x1000)
	binary.BigEndian.PutUint16(u[8:10], seq&0x3fff|0x8000)
	copy(u[10:], []byte{0x02, 0x42, 0xac, 0x11, 0x00, 0x02})
	return u
}

func TestV1AtHelperBuildsVersion1UUIDsAtTheGivenTime(t *testing.T) {
	at := time.Date(2026, 11, 30, 5, 8, 32, 123456700, time.UTC)
	u := v1At(at, 7)
	if u.Version() != 1 || u.Variant() != uuid.RFC4122 {
		t.Fatalf("v1At gave version %d variant %v, want 1 RFC4122", u.Version(), u.Variant())
	}
	if got := cache.UUIDTime(u); !got.Equal(at) {
		t.Fatalf("cache.UUIDTime(v1At(%s)) = %s", at, got)
	}
	if _, err := cache.ParseMessageID("message_uuid", u.String()); err != nil {
		t.Fatalf("ParseMessageID refuses a v1At uuid: %v", err)
	}
}

// meta returns a metadata object naming paths.
func meta(paths ...string) json.RawMessage {
	b, err := json.Marshal(map[string]any{"paths": paths})
	if err != nil {
		panic(err)
	}
	return b
}

// metaOfSize returns a compact metadata object naming paths that is exactly
// n bytes long, padded with a string member.
func metaOfSize(n int, paths ...string) json.RawMessage {
	head, err := json.Marshal(paths)
	if err != nil {
		panic(err)
	}
	prefix := `{"paths":` + string(head) + `,"pad":"`
	suffix := `"}`
	pad := n - len(prefix) - len(suffix)
	if pad < 0 {
		panic(fmt.Sprintf("metaOfSize: %d bytes is too small", n))
	}
	return json.RawMessage(prefix + strings.Repeat("x", pad) + suffix)
}

func ttl(seconds int64) *int64 { return &seconds }

// wantCode fails the test unless err carries the herald code want ("" for
// no error).
func wantCode(t *testing.T, err error, want string) {
	t.Helper()
	if got := herald.ErrorCode(err); got != want {
		t.Fatalf("error code = %q, want %q (error: %v)", got, want, err)
	}
}

// mustPut stores one message and fails the test on error.
func mustPut(t *testing.T, svc *cache.Service, in cache.PutInput) *cache.Message {
	t.Helper()
	m, _, err := svc.Put(context.Background(), in)
	if err != nil {
		t.Fatalf("Put(%s): %v", in.Metadata, err)
	}
	return m
}

// putAll stores ins in batches of the service's MaxBatch and fails the test
// on any error.
func putAll(t *testing.T, svc *cache.Service, ins []cache.PutInput) {
	t.Helper()
	step := svc.Config().MaxBatch
	for start := 0; start < len(ins); start += step {
		chunk := ins[start:min(start+step, len(ins))]
		res, err := svc.PutBatch(context.Background(), chunk)
		if err != nil {
			t.Fatalf("PutBatch: %v", err)
		}
		for i, r := range res {
			if r.Err != nil || !r.Created {
				t.Fatalf("PutBatch entry %s: created=%v err=%v", chunk[i].Metadata, r.Created, r.Err)
			}
		}
	}
}

// journalCount returns how many unexpired messages the store holds, by
// paging the journal over all time.
func journalCount(t *testing.T, svc *cache.Service) int {
	t.Helper()
	from := time.Unix(0, 0)
	to := time.Now().Add(100 * 365 * 24 * time.Hour)
	n, cur := 0, ""
	for {
		ms, page, err := svc.Journal(context.Background(), from, to, cur, svc.Config().MaxLimit)
		if err != nil {
			t.Fatalf("Journal: %v", err)
		}
		n += len(ms)
		if page.NextCursor == "" {
			return n
		}
		cur = page.NextCursor
	}
}

// treeCompare orders paths as tree walks return them: word by word, each word
// compared bytewise, a path before the paths below it.
func treeCompare(a, b string) int {
	return slices.Compare(strings.Split(a, "."), strings.Split(b, "."))
}

// refMatch is an independent, deliberately naive topic matcher used to
// check the oracle's use of paths.Pattern.Match.
func refMatch(pattern, path []string) bool {
	if len(pattern) == 0 {
		return len(path) == 0
	}
	switch pattern[0] {
	case "#":
		for i := 0; i <= len(path); i++ {
			if refMatch(pattern[1:], path[i:]) {
				return true
			}
		}
		return false
	case "*":
		return len(path) > 0 && refMatch(pattern[1:], path[1:])
	default:
		return len(path) > 0 && path[0] == pattern[0] && refMatch(pattern[1:], path[1:])
	}
}

// errStoreDown is the cause of every failure of faultyStore.
var errStoreDown = errors.New("test: storage node down (secret detail)")

// faultyStore wraps a Store (nil: no store at all) and fails the calls that
// fail selects with herald.Unavailable, the way engines report storage
// failures. op is the method name; arg is the path or parent the call is
// about ("" when none), and for Children the after word follows a '|'.
type faultyStore struct {
	next cache.Store
	fail func(op, arg string) bool
}

// downStore returns a store every call of which fails.
func downStore() *faultyStore {
	return &faultyStore{fail: func(string, string) bool { return true }}
}

func (s *faultyStore) failing(op, arg string) error {
	if s.next == nil || s.fail(op, arg) {
		return herald.Unavailable(op, errStoreDown)
	}
	return nil
}

func (s *faultyStore) PutMessage(ctx context.Context, m *cache.Message) (*cache.Message, bool, error) {
	if err := s.failing("PutMessage", ""); err != nil {
		return nil, false, err
	}
	return s.next.PutMessage(ctx, m)
}

func (s *faultyStore) GetMessages(ctx context.Context, ids []uuid.UUID) ([]*cache.Message, error) {
	if err := s.failing("GetMessages", ""); err != nil {
		return nil, err
	}
	return s.next.GetMessages(ctx, ids)
}

func (s *faultyStore) Latest(ctx context.Context, path string) (*cache.Ref, error) {
	if err := s.failing("Latest", path); err != nil {
		return nil, err
	}
	return s.next.Latest(ctx, path)
}

func (s *faultyStore) Children(ctx context.Context, parent, after string, limit int) ([]cache.Child, error) {
	if err := s.failing("Children", parent+"|"+after); err != nil {
		return nil, err
	}
	return s.next.Children(ctx, parent, after, limit)
}

func (s *faultyStore) History(ctx context.Context, path string, after cache.Position, limit int) ([]cache.Ref, error) {
	if err := s.failing("History", path); err != nil {
		return nil, err
	}
	return s.next.History(ctx, path, after, limit)
}

func (s *faultyStore) Journal(ctx context.Context, from, to time.Time, after cache.Position, limit int) ([]cache.Ref, error) {
	if err := s.failing("Journal", ""); err != nil {
		return nil, err
	}
	return s.next.Journal(ctx, from, to, after, limit)
}

func (s *faultyStore) ExpiredSince(ctx context.Context, from time.Time) (bool, error) {
	if err := s.failing("ExpiredSince", ""); err != nil {
		return false, err
	}
	return s.next.ExpiredSince(ctx, from)
}

func (s *faultyStore) Close() error { return nil }

func (s *faultyStore) Epoch() string {
	if s.next == nil {
		return "0000000000000000"
	}
	return s.next.Epoch()
}

var _ cache.Store = (*faultyStore)(nil)
