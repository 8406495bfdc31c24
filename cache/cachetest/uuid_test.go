package cachetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

func TestUUIDV1At(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(1582, 10, 15, 0, 0, 0, 0, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2014, 2, 1, 9, 39, 12, 345_678_900, time.UTC),
		time.Now().UTC().Truncate(100 * time.Nanosecond),
		time.Date(5000, 1, 1, 0, 0, 0, 100, time.UTC),
	} {
		id := UUIDAt(at)
		if v := id.Version(); v != 1 {
			t.Errorf("UUIDAt(%s) = %s: version %d, want 1", at, id, v)
		}
		if v := id.Variant(); v != uuid.RFC4122 {
			t.Errorf("UUIDAt(%s) = %s: variant %v, want RFC 4122", at, id, v)
		}
		if got := cache.UUIDTime(id); !got.Equal(at) {
			t.Errorf("UUIDAt(%s) = %s, which carries the time %s", at, id, got)
		}
		if id[10]&1 != 1 {
			t.Errorf("UUIDAt(%s) = %s: node id without the multicast bit", at, id)
		}
		if other := UUIDAt(at); other == id {
			t.Errorf("UUIDAt(%s) returned %s twice", at, id)
		}
	}
}

// TestUUIDV1AtMatchesGenerator checks the layout against the uuid package's
// own version 1 ids.
func TestUUIDV1AtMatchesGenerator(t *testing.T) {
	real, err := uuid.NewUUID()
	if err != nil {
		t.Skip(err)
	}
	at := cache.UUIDTime(real)
	mine := UUIDAt(at)
	if string(mine[:8]) != string(real[:8]) {
		t.Errorf("time fields of UUIDAt(%s) = %x, want %x as in %s", at, mine[:8], real[:8], real)
	}
}
