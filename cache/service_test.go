package cache_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// futureClock returns a fixed instant an hour ahead, with a sub-millisecond
// part and in a zone other than UTC, so that truncation and conversion show.
// Being ahead of the real clock, nothing stamped with it expires during a
// test while the store judges expiry by the real time.
func futureClock() time.Time {
	zone := time.FixedZone("UTC+05:30", 5*3600+1800)
	return time.Now().Add(time.Hour).Truncate(time.Second).Add(123456789 * time.Nanosecond).In(zone)
}

func TestPutValidation(t *testing.T) {
	cfg := cache.DefaultConfig()
	svc := newService(t, cfg)
	cache.SetClock(svc, futureClock)
	ctx := context.Background()

	maxTTL := int64(cfg.MaxTTL / time.Second)
	v4 := uuid.Must(uuid.NewRandom()).String()
	otherVariant := v1At(time.Now(), 3)
	otherVariant[8] = otherVariant[8]&0x1f | 0xc0 // Microsoft's variant, still "version 1"
	manyPaths := func(n int) json.RawMessage {
		ps := make([]string, n)
		for i := range ps {
			ps[i] = fmt.Sprintf("many.p%d", i)
		}
		return meta(ps...)
	}
	// manyMembers is metadata with n members besides paths, m0 to m(n-1),
	// and dup again at the end unless it is "".
	manyMembers := func(n int, dup string) json.RawMessage {
		var b strings.Builder
		b.WriteString(`{"paths":["v.a"]`)
		for i := range n {
			fmt.Fprintf(&b, `,"m%d":%d`, i, i)
		}
		if dup != "" {
			fmt.Fprintf(&b, `,%q:0`, dup)
		}
		b.WriteString("}")
		return json.RawMessage(b.String())
	}
	words := func(n int) string { return strings.TrimSuffix(strings.Repeat("w.", n), ".") }
	seq := uint16(100)
	freshV1 := func() string { seq++; return v1At(time.Now(), seq).String() }

	tests := []struct {
		name string
		in   cache.PutInput
		code string // "" when the put must succeed
	}{
		// ids
		{"ids absent are assigned", cache.PutInput{Metadata: meta("v.a")}, ""},
		{"message_uuid version 1", cache.PutInput{MessageID: freshV1(), Metadata: meta("v.a")}, ""},
		{"replica_uuid version 1", cache.PutInput{ReplicaID: freshV1(), Metadata: meta("v.a")}, ""},
		{"message_uuid upper case v1", cache.PutInput{MessageID: strings.ToUpper(freshV1()), Metadata: meta("v.a")}, ""},
		{"message_uuid version 4", cache.PutInput{MessageID: v4, Metadata: meta("v.a")}, herald.EInvalid},
		{"replica_uuid version 4", cache.PutInput{ReplicaID: v4, Metadata: meta("v.a")}, herald.EInvalid},
		{"message_uuid garbage", cache.PutInput{MessageID: "not-a-uuid", Metadata: meta("v.a")}, herald.EInvalid},
		{"replica_uuid garbage", cache.PutInput{ReplicaID: "0123", Metadata: meta("v.a")}, herald.EInvalid},
		{"message_uuid nil uuid", cache.PutInput{MessageID: uuid.Nil.String(), Metadata: meta("v.a")}, herald.EInvalid},
		{"message_uuid v1 of another variant", cache.PutInput{MessageID: otherVariant.String(), Metadata: meta("v.a")}, herald.EInvalid},
		{"message_uuid with trailing junk", cache.PutInput{MessageID: freshV1() + "x", Metadata: meta("v.a")}, herald.EInvalid},

		// metadata shape
		{"metadata missing", cache.PutInput{}, herald.EInvalid},
		{"metadata empty", cache.PutInput{Metadata: json.RawMessage{}}, herald.EInvalid},
		{"metadata blank", cache.PutInput{Metadata: json.RawMessage("  \n\t")}, herald.EInvalid},
		{"metadata null", cache.PutInput{Metadata: json.RawMessage("null")}, herald.EInvalid},
		{"metadata array", cache.PutInput{Metadata: json.RawMessage(`[{"paths":["v.a"]}]`)}, herald.EInvalid},
		{"metadata string", cache.PutInput{Metadata: json.RawMessage(`"v.a"`)}, herald.EInvalid},
		{"metadata number", cache.PutInput{Metadata: json.RawMessage(`42`)}, herald.EInvalid},
		{"metadata truncated", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a"]`)}, herald.EInvalid},
		{"metadata two objects", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a"]}{}`)}, herald.EInvalid},
		{"metadata trailing brace", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a"]}}`)}, herald.EInvalid},
		{"metadata without paths", cache.PutInput{Metadata: json.RawMessage(`{"title":"x"}`)}, herald.EInvalid},
		{"metadata empty object", cache.PutInput{Metadata: json.RawMessage(`{}`)}, herald.EInvalid},
		{"metadata member repeated", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a"],"paths":["v.b"]}`)}, herald.EInvalid},
		{"metadata member repeated escaped", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a"],"p\u0061ths":["v.b"]}`)}, herald.EInvalid},
		{"metadata member repeated among many", cache.PutInput{Metadata: manyMembers(40, "m7")}, herald.EInvalid},
		{"metadata of many members", cache.PutInput{Metadata: manyMembers(40, "")}, ""},
		{"metadata nested names may repeat", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a"],"x":{"k":1,"k":2}}`)}, ""},
		{"metadata not UTF-8", cache.PutInput{Metadata: json.RawMessage("{\"paths\":[\"v.a\"],\"t\":\"\xff\"}")}, herald.EInvalid},
		{"metadata nested 512 deep", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a"],"x":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `}`)}, ""},
		{"metadata nested too deeply", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a"],"x":` + strings.Repeat("[", 512) + strings.Repeat("]", 512) + `}`)}, herald.EInvalid},
		{"paths null", cache.PutInput{Metadata: json.RawMessage(`{"paths":null}`)}, herald.EInvalid},
		{"paths a string", cache.PutInput{Metadata: json.RawMessage(`{"paths":"v.a"}`)}, herald.EInvalid},
		{"paths an object", cache.PutInput{Metadata: json.RawMessage(`{"paths":{"v.a":true}}`)}, herald.EInvalid},
		{"paths of numbers", cache.PutInput{Metadata: json.RawMessage(`{"paths":[1,2]}`)}, herald.EInvalid},
		{"paths mixing strings and null", cache.PutInput{Metadata: json.RawMessage(`{"paths":["v.a",null]}`)}, herald.EInvalid},
		{"paths empty", cache.PutInput{Metadata: json.RawMessage(`{"paths":[]}`)}, herald.EInvalid},
		{"paths at the limit", cache.PutInput{Metadata: manyPaths(cfg.MaxPaths)}, ""},
		{"paths over the limit", cache.PutInput{Metadata: manyPaths(cfg.MaxPaths + 1)}, herald.EInvalid},

		// each path
		{"path empty", cache.PutInput{Metadata: meta("")}, herald.EInvalid},
		{"path empty word", cache.PutInput{Metadata: meta("v..a")}, herald.EInvalid},
		{"path leading dot", cache.PutInput{Metadata: meta(".v")}, herald.EInvalid},
		{"path trailing dot", cache.PutInput{Metadata: meta("v.")}, herald.EInvalid},
		{"path with star", cache.PutInput{Metadata: meta("v.*")}, herald.EInvalid},
		{"path with hash", cache.PutInput{Metadata: meta("#")}, herald.EInvalid},
		{"path with space", cache.PutInput{Metadata: meta("v a")}, herald.EInvalid},
		{"path with slash", cache.PutInput{Metadata: meta("v/a")}, herald.EInvalid},
		{"path non-ASCII", cache.PutInput{Metadata: meta("v.é")}, herald.EInvalid},
		{"path with NUL", cache.PutInput{Metadata: meta("v.a\x00")}, herald.EInvalid},
		{"path with 0x01", cache.PutInput{Metadata: meta("v\x01a")}, herald.EInvalid},
		{"path one bad among good", cache.PutInput{Metadata: meta("v.a", "v..b")}, herald.EInvalid},
		{"path of 32 words", cache.PutInput{Metadata: meta(words(32))}, ""},
		{"path of 33 words", cache.PutInput{Metadata: meta(words(33))}, herald.EInvalid},
		{"path word of 128 bytes", cache.PutInput{Metadata: meta("v." + strings.Repeat("a", 128))}, ""},
		{"path word of 129 bytes", cache.PutInput{Metadata: meta("v." + strings.Repeat("a", 129))}, herald.EInvalid},
		{"path of 513 bytes", cache.PutInput{Metadata: meta(strings.Repeat("a", 128) + "." + strings.Repeat("b", 128) + "." + strings.Repeat("c", 128) + "." + strings.Repeat("d", 126))}, herald.EInvalid},
		{"path words of every allowed byte", cache.PutInput{Metadata: meta("AZaz09_:-.2014-02-01T09:39Z")}, ""},

		// sizes
		{"metadata at the limit", cache.PutInput{Metadata: metaOfSize(cfg.MaxMetadataBytes, "v.big")}, ""},
		{"metadata over the limit", cache.PutInput{Metadata: metaOfSize(cfg.MaxMetadataBytes+1, "v.big")}, herald.ETooLarge},
		{"metadata far over the limit", cache.PutInput{Metadata: metaOfSize(4*cfg.MaxMetadataBytes, "v.big")}, herald.ETooLarge},
		{"body empty", cache.PutInput{Metadata: meta("v.a"), Body: []byte{}}, ""},
		{"body at the limit", cache.PutInput{Metadata: meta("v.a"), Body: make([]byte, cfg.MaxBodyBytes)}, ""},
		{"body over the limit", cache.PutInput{Metadata: meta("v.a"), Body: make([]byte, cfg.MaxBodyBytes+1)}, herald.ETooLarge},

		// ttl
		{"ttl absent", cache.PutInput{Metadata: meta("v.a")}, ""},
		{"ttl 1", cache.PutInput{Metadata: meta("v.a"), TTL: ttl(1)}, ""},
		{"ttl at the max", cache.PutInput{Metadata: meta("v.a"), TTL: ttl(maxTTL)}, ""},
		{"ttl 0", cache.PutInput{Metadata: meta("v.a"), TTL: ttl(0)}, herald.EInvalid},
		{"ttl negative", cache.PutInput{Metadata: meta("v.a"), TTL: ttl(-1)}, herald.EInvalid},
		{"ttl most negative", cache.PutInput{Metadata: meta("v.a"), TTL: ttl(math.MinInt64)}, herald.EInvalid},
		{"ttl over the max", cache.PutInput{Metadata: meta("v.a"), TTL: ttl(maxTTL + 1)}, herald.EInvalid},
		{"ttl huge", cache.PutInput{Metadata: meta("v.a"), TTL: ttl(math.MaxInt64)}, herald.EInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := journalCount(t, svc)
			m, created, err := svc.Put(ctx, tc.in)
			wantCode(t, err, tc.code)
			after := journalCount(t, svc)
			if tc.code != "" {
				if m != nil || created {
					t.Errorf("refused put returned message %v, created %v; want nil, false", m, created)
				}
				if err != nil && herald.ErrorMessage(err) == "" {
					t.Errorf("refused put has an empty client message: %v", err)
				}
				if after != before {
					t.Errorf("refused put changed the store: %d messages before, %d after", before, after)
				}
				return
			}
			if !created || m == nil {
				t.Fatalf("Put = %v, created %v; want a new message", m, created)
			}
			if after != before+1 {
				t.Errorf("accepted put: %d messages before, %d after; want one more", before, after)
			}
		})
	}
}

func TestPutStampsReceivedAtAndExpiresAt(t *testing.T) {
	cfg := cache.DefaultConfig()
	svc := newService(t, cfg)
	now := futureClock()
	cache.SetClock(svc, func() time.Time { return now })
	wantReceived := now.UTC().Truncate(time.Millisecond)

	tests := []struct {
		name string
		ttl  *int64
		want time.Duration
	}{
		{"default ttl", nil, cfg.DefaultTTL},
		{"one second", ttl(1), time.Second},
		{"an hour", ttl(3600), time.Hour},
		{"the maximum", ttl(int64(cfg.MaxTTL / time.Second)), cfg.MaxTTL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustPut(t, svc, cache.PutInput{Metadata: meta("stamp.a"), TTL: tc.ttl})
			if !m.ReceivedAt.Equal(wantReceived) {
				t.Errorf("ReceivedAt = %s, want %s (the clock %s truncated to ms)", m.ReceivedAt.Format(time.RFC3339Nano), wantReceived.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))
			}
			if m.ReceivedAt.Location() != time.UTC || m.ExpiresAt.Location() != time.UTC {
				t.Errorf("times are in %v and %v, want UTC", m.ReceivedAt.Location(), m.ExpiresAt.Location())
			}
			if got := m.ExpiresAt.Sub(m.ReceivedAt); got != tc.want {
				t.Errorf("ExpiresAt - ReceivedAt = %s, want %s", got, tc.want)
			}
			got, err := svc.Get(context.Background(), m.ID.String())
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if !got.ReceivedAt.Equal(m.ReceivedAt) || !got.ExpiresAt.Equal(m.ExpiresAt) {
				t.Errorf("stored times %s / %s differ from returned %s / %s", got.ReceivedAt, got.ExpiresAt, m.ReceivedAt, m.ExpiresAt)
			}
		})
	}
}

func TestPutWithRealClockStampsWholeMillisecondsUTC(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	lo := time.Now().Truncate(time.Millisecond)
	m := mustPut(t, svc, cache.PutInput{Metadata: meta("clock.a")})
	hi := time.Now()
	if m.ReceivedAt.Location() != time.UTC {
		t.Errorf("ReceivedAt in %v, want UTC", m.ReceivedAt.Location())
	}
	if m.ReceivedAt.Nanosecond()%int(time.Millisecond) != 0 {
		t.Errorf("ReceivedAt %s has a sub-millisecond part", m.ReceivedAt.Format(time.RFC3339Nano))
	}
	if m.ReceivedAt.Before(lo) || m.ReceivedAt.After(hi) {
		t.Errorf("ReceivedAt %s is outside the put's duration [%s, %s]", m.ReceivedAt, lo, hi)
	}
}

func TestPutCompactsMetadata(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	tests := []struct {
		name, in, want string
	}{
		{"already compact", `{"paths":["m.a"]}`, `{"paths":["m.a"]}`},
		{"spaces and newlines", "\n  {\n  \"paths\" : [ \"m.a\" , \"m.b\" ] ,\n  \"x\" : { \"y\" : [ 1 , 2 ] }\n}\n\t", `{"paths":["m.a","m.b"],"x":{"y":[1,2]}}`},
		{"member order kept", `{ "z":1, "paths":["m.a"], "a":2 }`, `{"z":1,"paths":["m.a"],"a":2}`},
		{"spaces inside strings kept", `{"paths":["m.a"], "title": "a  b\t c"}`, `{"paths":["m.a"],"title":"a  b\t c"}`},
		{"escapes kept", `{"paths":["m.a"], "s": "\u00e9\n\"q\""}`, `{"paths":["m.a"],"s":"\u00e9\n\"q\""}`},
		{"duplicates kept in metadata", `{"paths":["m.a","m.a"]}`, `{"paths":["m.a","m.a"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustPut(t, svc, cache.PutInput{Metadata: json.RawMessage(tc.in)})
			if string(m.Metadata) != tc.want {
				t.Errorf("Metadata = %s\nwant       %s", m.Metadata, tc.want)
			}
			got, err := svc.Get(context.Background(), m.ID.String())
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if string(got.Metadata) != tc.want {
				t.Errorf("stored Metadata = %s\nwant              %s", got.Metadata, tc.want)
			}
		})
	}
}

func TestPutDeduplicatesPathsInOrder(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	tests := []struct {
		paths []string
		want  []string
	}{
		{[]string{"d.a"}, []string{"d.a"}},
		{[]string{"d.a", "d.a"}, []string{"d.a"}},
		{[]string{"d.b", "d.a", "d.b", "d.c", "d.a"}, []string{"d.b", "d.a", "d.c"}},
		{[]string{"d.a", "d.a.b", "d.a"}, []string{"d.a", "d.a.b"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.paths, ","), func(t *testing.T) {
			m := mustPut(t, svc, cache.PutInput{Metadata: meta(tc.paths...)})
			if !slices.Equal(m.Paths, tc.want) {
				t.Errorf("Paths = %q, want %q", m.Paths, tc.want)
			}
			for _, p := range tc.want {
				all, _, err := svc.All(context.Background(), p, "", 0)
				if err != nil {
					t.Fatalf("All(%s): %v", p, err)
				}
				n := 0
				for _, got := range all {
					if got.ID == m.ID {
						n++
					}
				}
				if n != 1 {
					t.Errorf("All(%s) lists the message %d times, want once", p, n)
				}
			}
		})
	}
}

func TestPutIDs(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	t.Run("assigned ids are distinct version 1 uuids", func(t *testing.T) {
		a := mustPut(t, svc, cache.PutInput{Metadata: meta("ids.a")})
		b := mustPut(t, svc, cache.PutInput{Metadata: meta("ids.a")})
		for _, id := range []uuid.UUID{a.ID, a.ReplicaID, b.ID, b.ReplicaID} {
			if id.Version() != 1 || id.Variant() != uuid.RFC4122 {
				t.Errorf("assigned id %s is version %d variant %v, want 1 RFC4122", id, id.Version(), id.Variant())
			}
		}
		if a.ID == b.ID {
			t.Errorf("two puts were assigned the same message_uuid %s", a.ID)
		}
	})
	t.Run("given ids are kept", func(t *testing.T) {
		mid, rid := v1At(time.Now().Add(-time.Minute), 1), v1At(time.Now().Add(-time.Hour), 2)
		m := mustPut(t, svc, cache.PutInput{MessageID: mid.String(), ReplicaID: rid.String(), Metadata: meta("ids.b")})
		if m.ID != mid || m.ReplicaID != rid {
			t.Errorf("ids = %s / %s, want %s / %s", m.ID, m.ReplicaID, mid, rid)
		}
		if !m.Time().Equal(cache.UUIDTime(mid)) {
			t.Errorf("Time() = %s, want the uuid's time %s", m.Time(), cache.UUIDTime(mid))
		}
	})
	t.Run("an id generator failure is internal and stores nothing", func(t *testing.T) {
		svc := newService(t, cache.DefaultConfig())
		cache.SetNewID(svc, func() (uuid.UUID, error) { return uuid.Nil, errors.New("no entropy") })
		_, _, err := svc.Put(context.Background(), cache.PutInput{Metadata: meta("ids.c")})
		wantCode(t, err, herald.EInternal)
		if n := journalCount(t, svc); n != 0 {
			t.Errorf("store holds %d messages, want 0", n)
		}
	})
}

// A client may store any version 1 uuid, including one that Herald's own
// generator produces later (the node and clock sequence of Herald's ids are
// visible in every id it returns). A put whose id Herald generated must then
// still leave the stored message intact.
func TestGeneratedIDNeverOverwritesAStoredMessage(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	ctx := context.Background()
	id := v1At(time.Now().Add(time.Second), 5)
	first := mustPut(t, svc, cache.PutInput{MessageID: id.String(), Metadata: meta("gen.a"), Body: []byte("first")})

	cache.SetNewID(svc, func() (uuid.UUID, error) { return id, nil }) // the generator reaches that id
	second, created, err := svc.Put(ctx, cache.PutInput{Metadata: meta("gen.b"), Body: []byte("second")})
	if err == nil && created && second.ID == id {
		t.Errorf("a put with a generated id reports creating %s, which was already stored", id)
	}

	got, err := svc.Get(ctx, id.String())
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	if string(got.Metadata) != string(first.Metadata) || string(got.Body) != "first" {
		t.Errorf("message %s was overwritten: now metadata %s body %q, want %s %q", id, got.Metadata, got.Body, first.Metadata, "first")
	}
	all, _, err := svc.All(ctx, "gen.a", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.ID == id && !slices.Contains(m.Paths, "gen.a") {
			t.Errorf("All(gen.a) lists %s, whose paths are now %q: the index points at another message", id, m.Paths)
		}
	}
}

func TestPutHonoursConfiguredLimits(t *testing.T) {
	cfg := cache.Config{
		DefaultTTL:       30 * time.Second,
		MaxTTL:           time.Minute,
		MaxMetadataBytes: 100,
		MaxBodyBytes:     10,
		MaxPaths:         2,
		DefaultLimit:     3,
		MaxLimit:         5,
		MaxBatch:         2,
	}
	svc := newService(t, cfg)
	tests := []struct {
		name string
		in   cache.PutInput
		code string
	}{
		{"two paths", cache.PutInput{Metadata: meta("l.a", "l.b")}, ""},
		{"three paths", cache.PutInput{Metadata: meta("l.a", "l.b", "l.c")}, herald.EInvalid},
		{"metadata of 100 bytes", cache.PutInput{Metadata: metaOfSize(100, "l.a")}, ""},
		{"metadata of 101 bytes", cache.PutInput{Metadata: metaOfSize(101, "l.a")}, herald.ETooLarge},
		{"body of 10 bytes", cache.PutInput{Metadata: meta("l.a"), Body: []byte("0123456789")}, ""},
		{"body of 11 bytes", cache.PutInput{Metadata: meta("l.a"), Body: []byte("0123456789a")}, herald.ETooLarge},
		{"ttl 60", cache.PutInput{Metadata: meta("l.a"), TTL: ttl(60)}, ""},
		{"ttl 61", cache.PutInput{Metadata: meta("l.a"), TTL: ttl(61)}, herald.EInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := svc.Put(context.Background(), tc.in)
			wantCode(t, err, tc.code)
		})
	}
	t.Run("default ttl", func(t *testing.T) {
		m := mustPut(t, svc, cache.PutInput{Metadata: meta("l.a")})
		if d := m.ExpiresAt.Sub(m.ReceivedAt); d != cfg.DefaultTTL {
			t.Errorf("ExpiresAt - ReceivedAt = %s, want the configured default %s", d, cfg.DefaultTTL)
		}
	})
	if got := svc.Config(); got != cfg {
		t.Errorf("Config() = %+v, want %+v", got, cfg)
	}
}

func TestPutRepeatKeepsTheFirstMessage(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	id := v1At(time.Now(), 9).String()
	first, created, err := svc.Put(context.Background(), cache.PutInput{MessageID: id, Metadata: meta("rep.a"), Body: []byte("one"), TTL: ttl(600)})
	if err != nil || !created {
		t.Fatalf("first Put: created %v, err %v", created, err)
	}
	second, created, err := svc.Put(context.Background(), cache.PutInput{MessageID: id, Metadata: meta("rep.b"), Body: []byte("two"), TTL: ttl(60)})
	if err != nil {
		t.Fatalf("repeated Put: %v", err)
	}
	if created {
		t.Errorf("repeated Put reports created")
	}
	if second.ID != first.ID || second.ReplicaID != first.ReplicaID || string(second.Metadata) != string(first.Metadata) ||
		string(second.Body) != "one" || !second.ReceivedAt.Equal(first.ReceivedAt) || !second.ExpiresAt.Equal(first.ExpiresAt) {
		t.Errorf("repeated Put returned %+v, want the first message %+v", second, first)
	}
	if all, _, err := svc.All(context.Background(), "rep.b", "", 0); err != nil || len(all) != 0 {
		t.Errorf("All(rep.b) = %d messages, %v; the repeat must not index its new path", len(all), err)
	}
	if n := journalCount(t, svc); n != 1 {
		t.Errorf("store holds %d messages, want 1", n)
	}
}

// hookRecorder counts OnStored calls per message id.
type hookRecorder struct {
	mu    sync.Mutex
	calls map[uuid.UUID]int
	total int
}

func recordHooks(svc *cache.Service) *hookRecorder {
	r := &hookRecorder{calls: make(map[uuid.UUID]int)}
	svc.OnStored(func(m *cache.Message) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.calls[m.ID]++
		r.total++
	})
	return r
}

func (r *hookRecorder) count(id uuid.UUID) (perID, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[id], r.total
}

func TestOnStoredCalledOnceForNewMessagesOnly(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	rec := recordHooks(svc)
	var second atomic.Int32
	svc.OnStored(func(*cache.Message) { second.Add(1) })

	id := v1At(time.Now(), 1).String()
	m, _, err := svc.Put(context.Background(), cache.PutInput{MessageID: id, Metadata: meta("hook.a")})
	if err != nil {
		t.Fatal(err)
	}
	if per, total := rec.count(m.ID); per != 1 || total != 1 {
		t.Fatalf("after a new put: hook called %d times for it, %d in all; want 1, 1", per, total)
	}
	if n := second.Load(); n != 1 {
		t.Errorf("second hook called %d times, want 1", n)
	}

	if _, created, err := svc.Put(context.Background(), cache.PutInput{MessageID: id, Metadata: meta("hook.b")}); err != nil || created {
		t.Fatalf("repeat: created %v, err %v", created, err)
	}
	if per, total := rec.count(m.ID); per != 1 || total != 1 {
		t.Errorf("after a repeat: hook called %d times for it, %d in all; want still 1, 1", per, total)
	}

	if _, _, err := svc.Put(context.Background(), cache.PutInput{Metadata: meta("hook..bad")}); err == nil {
		t.Fatal("invalid put accepted")
	}
	if _, total := rec.count(uuid.Nil); total != 1 {
		t.Errorf("after a refused put: hook called %d times in all, want still 1", total)
	}

	res, err := svc.PutBatch(context.Background(), []cache.PutInput{
		{Metadata: meta("hook.c")},
		{MessageID: id, Metadata: meta("hook.c")}, // repeat
		{Metadata: meta("hook.d")},
		{Metadata: meta("")}, // invalid
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, total := rec.count(uuid.Nil); total != 3 {
		t.Errorf("after a batch with 2 new messages: hook called %d times in all, want 3", total)
	}
	for _, i := range []int{0, 2} {
		if per, _ := rec.count(res[i].Message.ID); per != 1 {
			t.Errorf("batch entry %d: hook called %d times, want 1", i, per)
		}
	}

	t.Run("not called when the store fails", func(t *testing.T) {
		svc := cache.NewService(downStore(), cache.DefaultConfig())
		rec := recordHooks(svc)
		if _, _, err := svc.Put(context.Background(), cache.PutInput{Metadata: meta("hook.a")}); err == nil {
			t.Fatal("put into a failing store succeeded")
		}
		if _, total := rec.count(uuid.Nil); total != 0 {
			t.Errorf("hook called %d times, want 0", total)
		}
	})
}

func TestOnStoredReceivesTheStoredMessage(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	var got *cache.Message
	svc.OnStored(func(m *cache.Message) { got = m })
	m := mustPut(t, svc, cache.PutInput{Metadata: meta("hook.x", "hook.y"), Body: []byte("b")})
	if got == nil || got.ID != m.ID || !slices.Equal(got.Paths, []string{"hook.x", "hook.y"}) || string(got.Body) != "b" {
		t.Errorf("hook got %+v, want the stored message %+v", got, m)
	}
}

func TestPutBatchLimits(t *testing.T) {
	cfg := cache.DefaultConfig()
	cfg.MaxBatch = 5
	svc := newService(t, cfg)
	batch := func(n int) []cache.PutInput {
		ins := make([]cache.PutInput, n)
		for i := range ins {
			ins[i] = cache.PutInput{Metadata: meta(fmt.Sprintf("batch.n%d", i))}
		}
		return ins
	}
	tests := []struct {
		name string
		ins  []cache.PutInput
		code string
	}{
		{"nil", nil, herald.EInvalid},
		{"empty", []cache.PutInput{}, herald.EInvalid},
		{"one", batch(1), ""},
		{"at the limit", batch(cfg.MaxBatch), ""},
		{"over the limit", batch(cfg.MaxBatch + 1), herald.ETooLarge},
		{"far over the limit", batch(10 * cfg.MaxBatch), herald.ETooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := journalCount(t, svc)
			res, err := svc.PutBatch(context.Background(), tc.ins)
			wantCode(t, err, tc.code)
			after := journalCount(t, svc)
			if tc.code != "" {
				if res != nil {
					t.Errorf("refused batch returned results %v", res)
				}
				if after != before {
					t.Errorf("refused batch changed the store: %d messages before, %d after", before, after)
				}
				return
			}
			if len(res) != len(tc.ins) {
				t.Fatalf("%d results for %d entries", len(res), len(tc.ins))
			}
			if after != before+len(tc.ins) {
				t.Errorf("%d messages before, %d after; want %d more", before, after, len(tc.ins))
			}
		})
	}
}

func TestPutBatchEntriesSucceedOrFailAlone(t *testing.T) {
	cfg := cache.DefaultConfig()
	cfg.MaxBodyBytes = 4
	svc := newService(t, cfg)
	existing := mustPut(t, svc, cache.PutInput{Metadata: meta("each.old")})

	ins := []cache.PutInput{
		{Metadata: meta("each.a")},
		{MessageID: uuid.Must(uuid.NewRandom()).String(), Metadata: meta("each.b")},
		{Metadata: meta("each.c"), Body: []byte("12345")},
		{MessageID: existing.ID.String(), Metadata: meta("each.d")},
		{Metadata: json.RawMessage(`[]`)},
		{Metadata: meta("each.e"), TTL: ttl(0)},
		{Metadata: meta("each.f"), Body: []byte("1234")},
	}
	want := []struct {
		code    string
		created bool
	}{
		{"", true},
		{herald.EInvalid, false},
		{herald.ETooLarge, false},
		{"", false},
		{herald.EInvalid, false},
		{herald.EInvalid, false},
		{"", true},
	}
	res, err := svc.PutBatch(context.Background(), ins)
	if err != nil {
		t.Fatalf("PutBatch: %v", err)
	}
	if len(res) != len(ins) {
		t.Fatalf("%d results for %d entries", len(res), len(ins))
	}
	for i, r := range res {
		if got := herald.ErrorCode(r.Err); got != want[i].code {
			t.Errorf("entry %d: code %q, want %q (err %v)", i, got, want[i].code, r.Err)
		}
		if r.Created != want[i].created {
			t.Errorf("entry %d: created %v, want %v", i, r.Created, want[i].created)
		}
		if (r.Err == nil) != (r.Message != nil) {
			t.Errorf("entry %d: message %v with err %v; want exactly one of them", i, r.Message, r.Err)
		}
	}
	if res[3].Message != nil && res[3].Message.ID != existing.ID {
		t.Errorf("repeat entry returned %s, want the stored %s", res[3].Message.ID, existing.ID)
	}
	for _, i := range []int{0, 6} {
		if _, err := svc.Get(context.Background(), res[i].Message.ID.String()); err != nil {
			t.Errorf("entry %d was reported stored but Get fails: %v", i, err)
		}
	}
	if n := journalCount(t, svc); n != 3 {
		t.Errorf("store holds %d messages, want 3 (the earlier one and 2 new)", n)
	}
}

func TestPutBatchSameIDTwiceCreatesOnce(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	rec := recordHooks(svc)
	for round := range 20 {
		id := v1At(time.Now(), uint16(round)).String()
		res, err := svc.PutBatch(context.Background(), []cache.PutInput{
			{MessageID: id, Metadata: meta("twice.a")},
			{MessageID: id, Metadata: meta("twice.b")},
			{MessageID: id, Metadata: meta("twice.c")},
		})
		if err != nil {
			t.Fatal(err)
		}
		created := 0
		for i, r := range res {
			if r.Err != nil {
				t.Fatalf("round %d entry %d: %v", round, i, r.Err)
			}
			if r.Created {
				created++
			}
			if string(r.Message.Metadata) != string(res[0].Message.Metadata) {
				t.Errorf("round %d: entries returned different messages: %s and %s", round, r.Message.Metadata, res[0].Message.Metadata)
			}
		}
		if created != 1 {
			t.Errorf("round %d: %d entries created, want exactly 1", round, created)
		}
		if per, _ := rec.count(res[0].Message.ID); per != 1 {
			t.Errorf("round %d: hook called %d times, want 1", round, per)
		}
	}
}

// TestPutBatchAssignsIDsInRequestOrder puts three versions of one path in
// a batch, many times over, and checks that the ids Herald assigns follow
// the request, so the last entry is the path's latest: with the system's
// generator, and with one whose clock stalls (the same time three times,
// clock sequences falling) before it moves on.
func TestPutBatchAssignsIDsInRequestOrder(t *testing.T) {
	stalling := func() func() (uuid.UUID, error) {
		var mu sync.Mutex
		at, calls := time.Now(), 0
		return func() (uuid.UUID, error) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			if calls%4 != 0 { // three calls at one time, then a tick later
				return v1At(at, uint16(1000-calls)), nil
			}
			at = at.Add(100 * time.Nanosecond)
			return v1At(at, uint16(1000-calls)), nil
		}
	}
	tests := []struct {
		name  string
		newID func() (uuid.UUID, error) // nil: the system's
	}{
		{"the system's generator", nil},
		{"a generator whose clock stalls", stalling()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := newService(t, cache.DefaultConfig())
			if tc.newID != nil {
				cache.SetNewID(svc, tc.newID)
			}
			ctx := context.Background()
			for round := range 30 {
				path := fmt.Sprintf("order.r%d", round)
				res, err := svc.PutBatch(ctx, []cache.PutInput{
					{Metadata: meta(path), Body: []byte("1")},
					{Metadata: meta(path), Body: []byte("2")},
					{Metadata: meta(path), Body: []byte("3")},
				})
				if err != nil {
					t.Fatal(err)
				}
				for i, r := range res {
					if r.Err != nil || !r.Created {
						t.Fatalf("round %d entry %d: created=%v err=%v", round, i, r.Created, r.Err)
					}
					if i > 0 && !r.Message.Time().After(res[i-1].Message.Time()) {
						t.Errorf("round %d: entry %d's id %s is not later than entry %d's %s", round, i, r.Message.ID, i-1, res[i-1].Message.ID)
					}
				}
				got, _, err := svc.Latest(ctx, path, "", 10)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1 || string(got[0].Message.Body) != "3" {
					t.Fatalf("round %d: latest of %s = %v, want the batch's last entry (body 3)", round, path, got)
				}
			}
		})
	}
}

func TestGet(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	m := mustPut(t, svc, cache.PutInput{Metadata: meta("get.a"), Body: []byte{0, 1, 2, 255}})
	tests := []struct {
		name, id, code string
	}{
		{"stored", m.ID.String(), ""},
		{"stored, upper case", strings.ToUpper(m.ID.String()), ""},
		{"missing", v1At(time.Now(), 77).String(), herald.ENotFound},
		{"empty", "", herald.EInvalid},
		{"garbage", "nope", herald.EInvalid},
		{"version 4", uuid.Must(uuid.NewRandom()).String(), herald.EInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := svc.Get(context.Background(), tc.id)
			wantCode(t, err, tc.code)
			if tc.code != "" {
				return
			}
			if got.ID != m.ID || string(got.Body) != string(m.Body) || !slices.Equal(got.Paths, m.Paths) {
				t.Errorf("Get = %+v, want %+v", got, m)
			}
		})
	}
}

func TestStoreFailuresAreUnavailable(t *testing.T) {
	ctx := context.Background()
	from, to := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)

	// A real store holding data, so that every query has work to do; the
	// node "down" has more children than one Children call fetches.
	db := openStore(t, nil)
	seed := cache.NewService(db, cache.DefaultConfig())
	stored := mustPut(t, seed, cache.PutInput{Metadata: meta("down.a")})
	ins := []cache.PutInput{{Metadata: meta("down.b.c")}}
	for i := range 300 {
		ins = append(ins, cache.PutInput{Metadata: meta(fmt.Sprintf("down.k%03d", i))})
	}
	putAll(t, seed, ins)

	calls := []struct {
		name string
		uses []string // the store methods the call needs here
		call func(svc *cache.Service) error
	}{
		{"Put", []string{"PutMessage"}, func(svc *cache.Service) error {
			_, _, err := svc.Put(ctx, cache.PutInput{Metadata: meta("down.new")})
			return err
		}},
		{"PutBatch entry", []string{"PutMessage"}, func(svc *cache.Service) error {
			res, err := svc.PutBatch(ctx, []cache.PutInput{{Metadata: meta("down.new")}})
			if err != nil {
				return fmt.Errorf("the whole batch failed: %w", err)
			}
			return res[0].Err
		}},
		{"Get", []string{"GetMessages"}, func(svc *cache.Service) error {
			_, err := svc.Get(ctx, stored.ID.String())
			return err
		}},
		{"Latest wildcard", []string{"Children", "GetMessages"}, func(svc *cache.Service) error {
			_, _, err := svc.Latest(ctx, "#", "", 0)
			return err
		}},
		{"Latest literal", []string{"Latest", "GetMessages"}, func(svc *cache.Service) error {
			_, _, err := svc.Latest(ctx, "down.a", "", 0)
			return err
		}},
		{"Latest literal then wildcard", []string{"Children", "GetMessages"}, func(svc *cache.Service) error {
			_, _, err := svc.Latest(ctx, "down.*", "", 0)
			return err
		}},
		{"Paths", []string{"Children"}, func(svc *cache.Service) error {
			_, _, err := svc.Paths(ctx, "", "", 0)
			return err
		}},
		{"Paths under a prefix", []string{"Latest", "Children"}, func(svc *cache.Service) error {
			_, _, err := svc.Paths(ctx, "down", "", 0)
			return err
		}},
		{"All", []string{"History", "GetMessages"}, func(svc *cache.Service) error {
			_, _, err := svc.All(ctx, "down.a", "", 0)
			return err
		}},
		{"Journal", []string{"Journal", "GetMessages"}, func(svc *cache.Service) error {
			_, _, err := svc.Journal(ctx, from, to, "", 0)
			return err
		}},
	}

	check := func(t *testing.T, err error) {
		t.Helper()
		wantCode(t, err, herald.EUnavailable)
		if !errors.Is(err, errStoreDown) {
			t.Errorf("error %v does not wrap the store's cause", err)
		}
		if msg := herald.ErrorMessage(err); strings.Contains(msg, "secret") {
			t.Errorf("client message %q leaks the cause", msg)
		}
	}

	t.Run("every method fails", func(t *testing.T) {
		svc := cache.NewService(downStore(), cache.DefaultConfig())
		for _, c := range calls {
			t.Run(c.name, func(t *testing.T) { check(t, c.call(svc)) })
		}
	})

	// Each store method fails alone: every call that needs it reports the
	// failure instead of a partial answer, and the others still work.
	for _, op := range []string{"PutMessage", "GetMessages", "Latest", "Children", "History", "Journal"} {
		t.Run(op+" fails", func(t *testing.T) {
			svc := cache.NewService(&faultyStore{next: db, fail: func(o, _ string) bool { return o == op }}, cache.DefaultConfig())
			for _, c := range calls {
				t.Run(c.name, func(t *testing.T) {
					err := c.call(svc)
					if slices.Contains(c.uses, op) {
						check(t, err)
					} else if err != nil {
						t.Errorf("call does not need %s but failed: %v", op, err)
					}
				})
			}
		})
	}

	t.Run("Children fails on a later chunk", func(t *testing.T) {
		store := &faultyStore{next: db, fail: func(op, arg string) bool {
			return op == "Children" && strings.HasPrefix(arg, "down|") && arg != "down|"
		}}
		svc := cache.NewService(store, cache.DefaultConfig())
		for _, pattern := range []string{"#", "down.*", "down.#"} {
			_, _, err := svc.Latest(ctx, pattern, "", 1000)
			check(t, err)
		}
		_, _, err := svc.Paths(ctx, "down", "", 1000)
		check(t, err)
		// A page that ends within the first chunk needs no later chunk.
		if _, _, err := svc.Latest(ctx, "down.*", "", 10); err != nil {
			t.Errorf("Latest(down.*) limit 10: %v", err)
		}
	})
}

func TestCancelledContextFailsQueries(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	putAll(t, svc, []cache.PutInput{{Metadata: meta("ctx.a")}, {Metadata: meta("ctx.b")}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := svc.Put(ctx, cache.PutInput{Metadata: meta("ctx.c")}); err == nil {
		t.Error("Put with a cancelled context succeeded")
	}
	if _, _, err := svc.Latest(ctx, "#", "", 0); err == nil {
		t.Error("Latest with a cancelled context succeeded")
	}
	if _, _, err := svc.All(ctx, "ctx.a", "", 0); err == nil {
		t.Error("All with a cancelled context succeeded")
	}
	if n := journalCount(t, svc); n != 2 {
		t.Errorf("store holds %d messages, want 2", n)
	}
}
