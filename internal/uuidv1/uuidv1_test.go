package uuidv1

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestSetTime writes times into a UUID and reads them back.
func TestSetTime(t *testing.T) {
	id := uuid.Must(uuid.NewUUID())
	for _, tm := range []uint64{0, 1, 1<<32 - 1, 1 << 32, 1<<48 + 5, 1<<60 - 1} {
		SetTime(&id, tm)
		if got := uint64(id.Time()); got != tm || id.Version() != 1 {
			t.Errorf("time %d: read back %d, version %d", tm, got, id.Version())
		}
	}
}

// TestStable: the id depends on the key and the time only, is a version 1
// RFC 4122 UUID, and its time lies within the millisecond of t.
func TestStable(t *testing.T) {
	at := time.Date(2026, 12, 5, 7, 50, 0, 123_456_789, time.UTC)
	a := Stable("msg-1\x00feeds.a", at)
	if again := Stable("msg-1\x00feeds.a", at); again != a {
		t.Fatalf("the same key and time gave %s, then %s", a, again)
	}
	if a.Version() != 1 || a.Variant() != uuid.RFC4122 {
		t.Fatalf("%s: version %d, variant %v", a, a.Version(), a.Variant())
	}
	sec, nsec := a.Time().UnixTime()
	got := time.Unix(sec, nsec)
	if ms := at.Truncate(time.Millisecond); got.Before(ms) || !got.Before(ms.Add(time.Millisecond)) {
		t.Fatalf("%s carries %v, not within the millisecond of %v", a, got, at)
	}
	for _, other := range []uuid.UUID{
		Stable("msg-1\x00feeds.b", at),                  // another path
		Stable("msg-2\x00feeds.a", at),                  // another message
		Stable("msg-1\x00feeds.a", at.Add(time.Second)), // another time
	} {
		if other == a {
			t.Fatalf("two keys or times gave the same id %s", a)
		}
	}
}
