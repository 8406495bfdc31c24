// Package cachetest is the conformance suite for storage engines of the
// message cache: every implementation of [cache.Store] runs [Run] from its own
// tests, for example
//
//	func TestConformance(t *testing.T) {
//		cachetest.Run(t, func(t *testing.T) cache.Store {
//			s, err := Open(t.TempDir())
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// The suite checks the semantics written in the doc comments of cache.Store:
// what PutMessage keeps and returns, GetMessages, Latest, the path tree of
// Children, the order and paging of History and Journal, expiry, concurrent
// writers and cancelled contexts.
//
// It is written so that engines on a shared server can give every subtest
// the same keyspace: each subtest writes only below a top-level word of its
// own, with fresh message ids, and never assumes the store is empty. Queries
// that cannot be confined to such a word (the root of the path tree, the
// journal) are paged through and filtered to the subtest's own messages.
//
// Message times are carried by version 1 UUIDs that the suite builds for
// chosen instants, and all times it writes are UTC with millisecond
// precision, so every engine can store them exactly.
package cachetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// Run runs the conformance suite against fresh stores made by open. open is
// called once per subtest; the store it returns must be empty (or at least
// unaffected by other subtests) and is closed by the suite via t.Cleanup.
//
// Most subtests run in parallel with each other; the expiry subtests wait a
// few seconds for messages to expire, once for all of them.
func Run(t *testing.T, open func(t *testing.T) cache.Store) {
	t.Helper()
	s := &suite{open: open}
	tests := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"PutThenGetReturnsEqualFields", s.testPutThenGet},
		{"GetMessagesKeepsOrderWithNilForUnknown", s.testGetMessagesOrder},
		{"PutSameIDTwiceKeepsTheFirst", s.testPutSameIDTwice},
		{"LatestIsNewestByMessageTime", s.testLatestNewest},
		{"LatestIsNilWithoutOwnMessages", s.testLatestNil},
		{"ChildrenAreInByteOrderOfWords", s.testChildrenByteOrder},
		{"ChildrenPageStrictlyAfterWord", s.testChildrenPaging},
		{"ChildrenOfWordsThatPrefixOthers", s.testChildrenPrefixWords},
		{"ChildrenLatestOnlyForNodesWithOwnMessages", s.testChildrenLatest},
		{"ChildrenReportWhetherTheyHaveChildren", s.testChildrenHasChildren},
		{"ChildrenOfRootIncludeOwnTopWord", s.testChildrenRoot},
		{"MessageWithSeveralPathsIsUnderEach", s.testSeveralPaths},
		{"History", s.testHistory},
		{"Journal", s.testJournal},
		{"Expiry", s.testExpiry},
		{"ConcurrentPutsAreEachIndexedOnce", s.testConcurrentPuts},
		{"CancelledContextReturnsError", s.testCancelledContext},
		{"EpochIsSetAndStable", s.testEpoch},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.fn)
	}
}

type suite struct {
	open func(t *testing.T) cache.Store
}

// env is what one subtest works with: its store and its own top-level word,
// below which it writes every path.
type env struct {
	t     *testing.T
	store cache.Store
	ctx   context.Context
	top   string    // a random word no other subtest uses
	now   time.Time // when the subtest started, UTC, whole milliseconds
	names *names
}

// start marks t parallel, opens a store for it and arranges for the store
// to be closed.
func (s *suite) start(t *testing.T) *env {
	t.Helper()
	t.Parallel()
	st := s.open(t)
	if st == nil {
		t.Fatal("open returned a nil cache.Store")
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &env{
		t:     t,
		store: st,
		ctx:   t.Context(),
		top:   uniqueWord(),
		now:   nowMilli(),
		names: &names{m: make(map[uuid.UUID]string)},
	}
}

// sub returns a copy of e for the nested test t, sharing store and names.
func (e *env) sub(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// names gives messages readable names in failure messages.
// It also keeps messages between the halves of an expiry subtest.
type names struct {
	mu   sync.Mutex
	m    map[uuid.UUID]string
	kept map[string][]*cache.Message
}

// label returns the name given to id, or the id itself for ids the subtest
// did not make.
func (e *env) label(id uuid.UUID) string {
	e.names.mu.Lock()
	defer e.names.mu.Unlock()
	if n, ok := e.names.m[id]; ok {
		return n
	}
	return id.String()
}

// name gives id a name for failure messages.
func (e *env) name(id uuid.UUID, name string) {
	e.names.mu.Lock()
	defer e.names.mu.Unlock()
	e.names.m[id] = name
}

func (e *env) labels(ids []uuid.UUID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = e.label(id)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// nowMilli returns the current time in UTC, truncated to the millisecond.
func nowMilli() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// wordChars are the characters of generated top-level words.
const wordChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// uniqueWord returns a random valid path word, distinct (with overwhelming
// probability) from every word any other subtest or run uses.
func uniqueWord() string {
	b := []byte("ct")
	for range 14 {
		b = append(b, wordChars[rand.IntN(len(wordChars))])
	}
	return string(b)
}

// path returns the path of words below the subtest's top-level word.
func (e *env) path(words ...string) string {
	return strings.Join(append([]string{e.top}, words...), ".")
}

// msg makes a message named name (in failure messages) whose id carries the
// message time at (truncated to the millisecond), addressed to paths,
// received at the subtest's start and expiring an hour later.
func (e *env) msg(name string, at time.Time, paths ...string) *cache.Message {
	e.t.Helper()
	id := UUIDAt(at.UTC().Truncate(time.Millisecond))
	e.name(id, name)
	meta, err := json.Marshal(struct {
		Paths []string `json:"paths"`
		Name  string   `json:"name"`
	}{paths, name})
	if err != nil {
		e.t.Fatal(err)
	}
	return &cache.Message{
		ID:         id,
		ReplicaID:  UUIDAt(e.now),
		Metadata:   meta,
		Paths:      slices.Clone(paths),
		Body:       []byte("body of " + name),
		ReceivedAt: e.now,
		ExpiresAt:  e.now.Add(time.Hour),
	}
}

// put stores m, which must be new, and checks what PutMessage returns.
func (e *env) put(m *cache.Message) {
	e.t.Helper()
	stored, created, err := e.store.PutMessage(e.ctx, m)
	if err != nil {
		e.t.Fatalf("PutMessage(%s): %v", e.label(m.ID), err)
	}
	if !created {
		e.t.Fatalf("PutMessage(%s) of a new id: created = false, want true", e.label(m.ID))
	}
	if d := messageDiff(stored, m); d != "" {
		e.t.Fatalf("PutMessage(%s) returned a message other than the one put:\n%s", e.label(m.ID), d)
	}
}

func (e *env) putAll(ms ...*cache.Message) {
	e.t.Helper()
	for _, m := range ms {
		e.put(m)
	}
}

// get calls GetMessages and checks that it returns one entry per id.
func (e *env) get(ids ...uuid.UUID) []*cache.Message {
	e.t.Helper()
	got, err := e.store.GetMessages(e.ctx, ids)
	if err != nil {
		e.t.Fatalf("GetMessages(%s): %v", e.labels(ids), err)
	}
	if len(got) != len(ids) {
		e.t.Fatalf("GetMessages(%s) returned %d messages, want %d (one per id)", e.labels(ids), len(got), len(ids))
	}
	return got
}

// checkGet checks that GetMessages of the ids of want returns want, where a
// nil entry of want stands for the id in missing at the same place.
func (e *env) checkGet(ids []uuid.UUID, want []*cache.Message) {
	e.t.Helper()
	got := e.get(ids...)
	for i := range ids {
		switch {
		case want[i] == nil && got[i] != nil:
			e.t.Errorf("GetMessages(%s)[%d] = message %s, want nil", e.labels(ids), i, e.label(got[i].ID))
		case want[i] != nil && got[i] == nil:
			e.t.Errorf("GetMessages(%s)[%d] = nil, want message %s", e.labels(ids), i, e.label(want[i].ID))
		case want[i] != nil:
			if d := messageDiff(got[i], want[i]); d != "" {
				e.t.Errorf("GetMessages(%s)[%d] differs from the message put:\n%s", e.labels(ids), i, d)
			}
		}
	}
}

// messageDiff describes how got differs from want, or returns "". Times
// must be equal instants and in UTC; a nil and an empty body are equal.
func messageDiff(got, want *cache.Message) string {
	if got == nil {
		return "\tgot a nil message"
	}
	var d []string
	add := func(field string, g, w any) {
		d = append(d, fmt.Sprintf("\t%s: got %v, want %v", field, g, w))
	}
	if got.ID != want.ID {
		add("ID", got.ID, want.ID)
	}
	if got.ReplicaID != want.ReplicaID {
		add("ReplicaID", got.ReplicaID, want.ReplicaID)
	}
	if !bytes.Equal(got.Metadata, want.Metadata) {
		add("Metadata", fmt.Sprintf("%q", got.Metadata), fmt.Sprintf("%q", want.Metadata))
	}
	if !slices.Equal(got.Paths, want.Paths) {
		add("Paths", fmt.Sprintf("%q", got.Paths), fmt.Sprintf("%q", want.Paths))
	}
	if !bytes.Equal(got.Body, want.Body) {
		add("Body", describeBytes(got.Body), describeBytes(want.Body))
	}
	for _, f := range []struct {
		name      string
		got, want time.Time
	}{
		{"ReceivedAt", got.ReceivedAt, want.ReceivedAt},
		{"ExpiresAt", got.ExpiresAt, want.ExpiresAt},
	} {
		if !f.got.Equal(f.want) {
			add(f.name, fmtTime(f.got), fmtTime(f.want))
		} else if f.got.Location() != time.UTC {
			add(f.name+" location", f.got.Location(), "UTC")
		}
	}
	return strings.Join(d, "\n")
}

func describeBytes(b []byte) string {
	switch {
	case b == nil:
		return "nil"
	case len(b) <= 40:
		return fmt.Sprintf("%q", b)
	default:
		return fmt.Sprintf("%d bytes %q...", len(b), b[:40])
	}
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "zero time"
	}
	return t.Format("2006-01-02T15:04:05.000000000Z07:00")
}

// messageTime is the ordering time of history: the time in the id.
func messageTime(m *cache.Message) time.Time { return cache.UUIDTime(m.ID) }

// receivedTime is the ordering time of the journal.
func receivedTime(m *cache.Message) time.Time { return m.ReceivedAt }

// byPosition returns ms sorted by (at, id bytes), ascending or, when newest
// is set, descending: the order of an index.
func byPosition(ms []*cache.Message, at func(*cache.Message) time.Time, newest bool) []*cache.Message {
	out := slices.Clone(ms)
	slices.SortFunc(out, func(a, b *cache.Message) int {
		c := cache.Position{At: at(a), ID: a.ID}.Compare(cache.Position{At: at(b), ID: b.ID})
		if newest {
			return -c
		}
		return c
	})
	return out
}

// newestByTime returns the message of ms with the latest message time.
func newestByTime(ms ...*cache.Message) *cache.Message {
	return byPosition(ms, messageTime, true)[0]
}

// IDs returns the ids of ms, in order.
func IDs(ms []*cache.Message) []uuid.UUID {
	out := make([]uuid.UUID, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// RefIDs returns the ids of refs, in order.
func RefIDs(refs []cache.Ref) []uuid.UUID {
	out := make([]uuid.UUID, len(refs))
	for i, r := range refs {
		out[i] = r.ID
	}
	return out
}

func (e *env) fmtPos(p cache.Position) string {
	if p.IsZero() {
		return "zero Position"
	}
	return fmt.Sprintf("(%s, %s)", fmtTime(p.At), e.label(p.ID))
}

// checkRef checks that a reference from an index refers to want (or is nil
// when want is), with at(want) as its ordering time.
func (e *env) checkRef(what string, got *cache.Ref, want *cache.Message, at func(*cache.Message) time.Time) {
	e.t.Helper()
	switch {
	case want == nil && got != nil:
		e.t.Errorf("%s = ref to %s, want nil", what, e.label(got.ID))
	case want != nil && got == nil:
		e.t.Errorf("%s = nil, want ref to %s", what, e.label(want.ID))
	case want != nil:
		e.checkRefFields(what, *got, want, at)
	}
}

func (e *env) checkRefFields(what string, got cache.Ref, want *cache.Message, at func(*cache.Message) time.Time) {
	e.t.Helper()
	if got.ID != want.ID {
		e.t.Errorf("%s = ref to %s, want ref to %s", what, e.label(got.ID), e.label(want.ID))
		return
	}
	if !got.At.Equal(at(want)) {
		e.t.Errorf("%s: ref to %s has At %s, want %s", what, e.label(got.ID), fmtTime(got.At), fmtTime(at(want)))
	}
	if !got.ExpiresAt.Equal(want.ExpiresAt) {
		e.t.Errorf("%s: ref to %s has ExpiresAt %s, want %s", what, e.label(got.ID), fmtTime(got.ExpiresAt), fmtTime(want.ExpiresAt))
	}
}

// checkRefs checks that refs refer to want, in that order, with at as the
// ordering time.
func (e *env) checkRefs(what string, got []cache.Ref, want []*cache.Message, at func(*cache.Message) time.Time) {
	e.t.Helper()
	if !slices.Equal(RefIDs(got), IDs(want)) {
		e.t.Errorf("%s:\n\tgot  %d refs %s\n\twant %d refs %s", what, len(got), e.labels(RefIDs(got)), len(want), e.labels(IDs(want)))
		return
	}
	for i := range got {
		e.checkRefFields(fmt.Sprintf("%s[%d]", what, i), got[i], want[i], at)
	}
}

// own returns the refs whose ids are among those of ms, in their order.
func own(refs []cache.Ref, ms []*cache.Message) []cache.Ref {
	set := idSet(ms)
	var out []cache.Ref
	for _, r := range refs {
		if set[r.ID] {
			out = append(out, r)
		}
	}
	return out
}

func idSet(ms []*cache.Message) map[uuid.UUID]bool {
	set := make(map[uuid.UUID]bool, len(ms))
	for _, m := range ms {
		set[m.ID] = true
	}
	return set
}

// quietPast returns a random millisecond 10 to 20 minutes before now. On a
// shared store, journal windows near it hold few other subtests' messages,
// unlike those near now.
func quietPast(now time.Time) time.Time {
	return now.Add(-10*time.Minute - time.Duration(rand.IntN(600_000))*time.Millisecond)
}

// waitUntil sleeps until t has passed.
func waitUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}
