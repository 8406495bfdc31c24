package cachetest

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// testPutThenGet stores messages of many shapes and reads each back.
func (s *suite) testPutThenGet(t *testing.T) {
	e := s.start(t)
	bigBody := make([]byte, 64<<10)
	for i := range bigBody {
		bigBody[i] = byte(rand.Uint32())
	}
	cases := []struct {
		name   string
		change func(e *env, m *cache.Message)
	}{
		{"TextBody", func(e *env, m *cache.Message) {}},
		{"NilBody", func(e *env, m *cache.Message) { m.Body = nil }},
		{"EmptyBody", func(e *env, m *cache.Message) { m.Body = []byte{} }},
		{"BinaryBodyWithZeroBytes", func(e *env, m *cache.Message) { m.Body = []byte{0, 1, 0, 0xff, 0xfe, 0, '\n'} }},
		{"BodyOf64KiB", func(e *env, m *cache.Message) { m.Body = bigBody }},
		{"SeveralPaths", func(e *env, m *cache.Message) {
			m.Paths = []string{e.path("several", "b"), e.path("several", "a"), e.path("several-x")}
			m.Metadata = mustJSON(e.t, map[string]any{"paths": m.Paths})
		}},
		{"MetadataBytesKeptAsWritten", func(e *env, m *cache.Message) {
			m.Metadata = json.RawMessage("{ \"paths\" : [\"" + m.Paths[0] + "\"],\n\t\"z\": 1.50, \"a\": {\"nested\": [true, null]} }")
		}},
		{"MessageTimeLongBeforeReceived", func(e *env, m *cache.Message) { m.ID = UUIDAt(e.now.Add(-30 * 24 * time.Hour)) }},
		{"MessageTimeAfterReceived", func(e *env, m *cache.Message) { m.ID = UUIDAt(e.now.Add(5 * time.Minute)) }},
		{"ReplicaIDOfAnotherTime", func(e *env, m *cache.Message) { m.ReplicaID = UUIDAt(time.Date(2014, 2, 1, 9, 39, 0, 0, time.UTC)) }},
		{"LongPath", func(e *env, m *cache.Message) {
			words := make([]string, 20)
			for i := range words {
				words[i] = "w" + string(rune('a'+i))
			}
			m.Paths = []string{e.path(words...)}
			m.Metadata = mustJSON(e.t, map[string]any{"paths": m.Paths})
		}},
		{"TTLOfOneDay", func(e *env, m *cache.Message) { m.ExpiresAt = m.ReceivedAt.Add(24 * time.Hour) }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.sub(t)
			m := e.msg(tc.name, e.now.Add(-time.Duration(i)*time.Second), e.path("put", tc.name))
			tc.change(e, m)
			e.name(m.ID, tc.name)
			e.put(m)
			e.checkGet([]uuid.UUID{m.ID}, []*cache.Message{m})
		})
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testGetMessagesOrder reads known and unknown ids in various orders.
func (s *suite) testGetMessagesOrder(t *testing.T) {
	e := s.start(t)
	a := e.msg("a", e.now.Add(-3*time.Second), e.path("a"))
	b := e.msg("b", e.now.Add(-2*time.Second), e.path("b"))
	c := e.msg("c", e.now.Add(-1*time.Second), e.path("c"))
	e.putAll(a, b, c)
	// Unknown ids: one never stored, and one sharing a stored id's time.
	x := UUIDAt(e.now.Add(-time.Minute))
	y := UUIDAt(messageTime(a))
	e.name(x, "unknown-x")
	e.name(y, "unknown-y")

	cases := []struct {
		name string
		ids  []uuid.UUID
		want []*cache.Message
	}{
		{"NoIDs", []uuid.UUID{}, []*cache.Message{}},
		{"OneKnown", []uuid.UUID{b.ID}, []*cache.Message{b}},
		{"OneUnknown", []uuid.UUID{x}, []*cache.Message{nil}},
		{"NilUUID", []uuid.UUID{uuid.Nil}, []*cache.Message{nil}},
		{"KnownInPutOrder", []uuid.UUID{a.ID, b.ID, c.ID}, []*cache.Message{a, b, c}},
		{"KnownInReverseOrder", []uuid.UUID{c.ID, b.ID, a.ID}, []*cache.Message{c, b, a}},
		{"KnownAndUnknownMixed", []uuid.UUID{x, c.ID, y, a.ID, uuid.Nil, b.ID}, []*cache.Message{nil, c, nil, a, nil, b}},
		{"RepeatedIDs", []uuid.UUID{a.ID, x, a.ID, x, c.ID, c.ID}, []*cache.Message{a, nil, a, nil, c, c}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.sub(t).checkGet(tc.ids, tc.want)
		})
	}
}

// testPutSameIDTwice puts a second message with the id of a stored one.
// Nothing of the second may be stored or indexed, and the first must stay
// indexed once.
func (s *suite) testPutSameIDTwice(t *testing.T) {
	e := s.start(t)
	cases := []struct {
		name      string
		samePaths bool
	}{
		{"SamePaths", true},
		{"OtherPaths", false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.sub(t)
			first := e.msg("first", e.now.Add(-time.Duration(i+1)*time.Second), e.path(tc.name, "a"))
			e.put(first)

			second := e.msg("second", e.now, e.path(tc.name, "a"))
			second.ID = first.ID
			if !tc.samePaths {
				second.Paths = []string{e.path(tc.name, "b"), e.path(tc.name + "-other")}
			}
			second.ReplicaID = UUIDAt(e.now.Add(time.Second))
			second.Metadata = mustJSON(t, map[string]any{"paths": second.Paths, "second": true})
			second.Body = []byte("body of the second put")
			second.ReceivedAt = first.ReceivedAt.Add(time.Millisecond)
			second.ExpiresAt = first.ExpiresAt.Add(time.Hour)

			stored, created, err := e.store.PutMessage(e.ctx, second)
			if err != nil {
				t.Fatalf("PutMessage of an id already stored: %v", err)
			}
			if created {
				t.Errorf("PutMessage of an id already stored: created = true, want false")
			}
			if d := messageDiff(stored, first); d != "" {
				t.Errorf("PutMessage of an id already stored returned other than the stored message:\n%s", d)
			}
			e.checkGet([]uuid.UUID{first.ID}, []*cache.Message{first})

			e.checkRefs("History of the first put's path", e.allHistory(e.path(tc.name, "a"), 10), []*cache.Message{first}, messageTime)
			e.checkLatest(e.path(tc.name, "a"), first)
			e.checkRefs("Journal around both puts, this subtest's refs",
				e.allJournal(first.ReceivedAt.Add(-time.Second), second.ReceivedAt.Add(time.Second), cache.Position{}, 100, []*cache.Message{first}),
				[]*cache.Message{first}, receivedTime)
			e.checkChildren("Children of the subtest's node", e.allChildren(e.path(tc.name), 10),
				[]childWant{{"a", first}})
			if !tc.samePaths {
				for _, p := range second.Paths {
					e.checkRefs("History of a path only the refused put named", e.allHistory(p, 10), nil, messageTime)
					e.checkLatest(p, nil)
				}
				for _, c := range e.allChildren(e.path(), 10) {
					if c.Word == tc.name+"-other" {
						t.Errorf("Children of the top word list %q, which only the refused put named", c.Word)
					}
				}
			}
		})
	}
}
