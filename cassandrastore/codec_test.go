package cassandrastore

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
)

func TestTicksRoundTrip(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(1582, 10, 15, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999_999_900, time.UTC),
		time.Date(2026, 11, 30, 6, 0, 0, 123_456_700, time.UTC),
	} {
		id := uuidAt(at)
		ticks := idTicks(id)
		if got := ticksTime(ticks); !got.Equal(at) || !got.Equal(cache.UUIDTime(id)) {
			t.Errorf("ticksTime(idTicks(uuidAt(%s))) = %s", at, got)
		}
		if got, exact, before, after := ticksOf(at); got != ticks || !exact || before || after {
			t.Errorf("ticksOf(%s) = %d %v %v %v, want %d exact", at, got, exact, before, after, ticks)
		}
		if ms := ticksMillis(ticks); ms != at.UnixMilli() {
			t.Errorf("ticksMillis = %d, want %d", ms, at.UnixMilli())
		}
	}
	if _, exact, _, _ := ticksOf(time.Unix(0, 150)); exact {
		t.Error("ticksOf of a time between ticks is exact")
	}
	if _, _, before, _ := ticksOf(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)); !before {
		t.Error("ticksOf(1500) is not before the UUID epoch")
	}
	if _, _, _, after := ticksOf(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)); !after {
		t.Error("ticksOf(9999) is not after every UUID time")
	}
}

func TestFloorDivAndBuckets(t *testing.T) {
	for _, c := range []struct{ a, b, q int64 }{{7, 2, 3}, {-7, 2, -4}, {-8, 2, -4}, {0, 5, 0}, {-1, 1000, -1}} {
		if got := floorDiv(c.a, c.b); got != c.q {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", c.a, c.b, got, c.q)
		}
	}
	if got := bucketOf(-1, 600_000); got != -600_000 {
		t.Errorf("bucketOf(-1) = %d", got)
	}
	if got := bucketOf(1_200_001, 600_000); got != 1_200_000 {
		t.Errorf("bucketOf(1200001) = %d", got)
	}
}

func TestTTLSeconds(t *testing.T) {
	for _, c := range []struct {
		now, exp int64
		want     int
	}{
		{0, 1000, 1 + ttlSlack},
		{0, 1001, 2 + ttlSlack},
		{500, 1000, 1 + ttlSlack},
		{5000, 1000, 1}, // already expired: the least TTL
		{0, math.MaxInt64 / 2, maxTTLSeconds},
	} {
		if got := ttlSeconds(c.now, c.exp); got != c.want {
			t.Errorf("ttlSeconds(%d, %d) = %d, want %d", c.now, c.exp, got, c.want)
		}
	}
}

func TestMarkExpiry(t *testing.T) {
	now := int64(1_000_000_000)
	// Short lives are not rounded (a step of at most 1 ms).
	if got := markExpiry(now, now+50); got != now+50 {
		t.Errorf("markExpiry of a 50 ms life = %d", got-now)
	}
	// A day's life is rounded up to the 30 s step.
	exp := now + 24*3600_000 + 1
	got := markExpiry(now, exp)
	if got < exp || got-exp >= markStepMax.Milliseconds() || got%markStepMax.Milliseconds() != 0 {
		t.Errorf("markExpiry of a day's life = %d, from %d", got, exp)
	}
	// A minute's life: a 64th of it.
	exp = now + 60_000 + 1
	if got := markExpiry(now, exp); got < exp || got-exp >= 60_000/64 {
		t.Errorf("markExpiry of a minute's life = %d, from %d", got, exp)
	}

	var k marks
	k.init()
	if k.covered("a", 10) {
		t.Error("an unknown row is covered")
	}
	k.record("a", 20, 0)
	if !k.covered("a", 20) || !k.covered("a", 5) || k.covered("a", 21) {
		t.Error("covered does not follow the recorded expiry")
	}
	k.record("a", 15, 0)
	if !k.covered("a", 20) {
		t.Error("an earlier expiry replaced a later one")
	}
}

func TestLatestEncoding(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	id := uuidAt(at)
	b := encodeLatest(idTicks(id), id, 1234)
	ref, exp, ok := decodeLatest(b)
	if !ok || ref.ID != id || !ref.At.Equal(at) || exp != 1234 || !ref.ExpiresAt.Equal(time.UnixMilli(1234)) {
		t.Fatalf("decodeLatest(encodeLatest) = %+v %d %v", ref, exp, ok)
	}
	if _, _, ok := decodeLatest(nil); ok {
		t.Error("decodeLatest(nil) ok")
	}
	// Bytes order as (ticks, id): the tie-break Cassandra applies.
	later := uuidAt(at.Add(100 * time.Nanosecond))
	if bytes.Compare(encodeLatest(idTicks(later), later, 0), b) <= 0 {
		t.Error("a later tick does not encode greater")
	}
}

func TestSplitPath(t *testing.T) {
	for _, c := range []struct{ path, parent, word string }{
		{"a", rootKey, "a"},
		{"a.b", "a", "b"},
		{"a.b.c", "a.b", "c"},
	} {
		if p, w := splitPath(c.path); p != c.parent || w != c.word {
			t.Errorf("splitPath(%q) = %q, %q", c.path, p, w)
		}
	}
}

func TestOptionsValidation(t *testing.T) {
	bad := []Options{
		{Keyspace: "1abc"},
		{Keyspace: "a-b"},
		{Consistency: "MOSTLY"},
		{Replication: Replication{Class: "NetworkTopologyStrategy"}},
		{Replication: Replication{Class: "SimpleStrategy", DataCenters: map[string]int{"dc1": 3}}},
		{Replication: Replication{Class: "Other"}},
		{JournalShards: -1},
		{JournalShards: 5000},
		{HistoryBucket: time.Microsecond},
		{JournalBucket: 1500 * time.Microsecond},
	}
	for _, o := range bad {
		if _, err := o.withDefaults(); err == nil {
			t.Errorf("withDefaults(%+v) accepted", o)
		}
	}
	o, err := Options{}.withDefaults()
	if err != nil || o.Keyspace != "herald" || o.Consistency != "LOCAL_QUORUM" || o.JournalShards != 8 ||
		o.HistoryBucket != 24*time.Hour || o.JournalBucket != 10*time.Minute {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	r, err := Replication{Class: "NetworkTopologyStrategy", DataCenters: map[string]int{"dc2": 2, "dc1": 3}}.cql()
	if want := "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}"; err != nil || r != want {
		t.Errorf("replication = %q, %v; want %q", r, err, want)
	}
}
