package rollup

import (
	"math/rand/v2"
	"testing"
	"time"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load zone %s: %v", name, err)
	}
	return loc
}

func TestBucket(t *testing.T) {
	paris, kolkata := mustZone(t, "Europe/Paris"), mustZone(t, "Asia/Kolkata")
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name string
		unit Unit
		loc  *time.Location
		at   string
		want string // the bucket's start, as an instant
	}{
		{"minute", Minute, time.UTC, "2026-12-01T10:17:45.5Z", "2026-12-01T10:17:00Z"},
		{"hour", Hour, time.UTC, "2026-12-01T10:17:45Z", "2026-12-01T10:00:00Z"},
		{"hour in a half-hour zone", Hour, kolkata, "2026-12-01T10:17:45Z", "2026-12-01T09:30:00Z"},
		{"day in UTC", Day, time.UTC, "2026-12-01T23:59:59Z", "2026-12-01T00:00:00Z"},
		{"day in Paris, winter", Day, paris, "2026-12-01T23:30:00Z", "2026-12-01T23:00:00Z"},
		{"day in Paris, summer", Day, paris, "2026-07-01T21:30:00Z", "2026-06-30T22:00:00Z"},
		{"week starts on Monday", Week, time.UTC, "2026-12-06T12:00:00Z", "2026-11-30T00:00:00Z"},
		{"Monday is its own week", Week, time.UTC, "2026-11-30T00:00:00Z", "2026-11-30T00:00:00Z"},
		{"week across a year", Week, time.UTC, "2027-01-01T08:00:00Z", "2026-12-28T00:00:00Z"},
		{"month", Month, time.UTC, "2026-02-28T23:00:00Z", "2026-02-01T00:00:00Z"},
		{"month in Paris", Month, paris, "2026-11-30T23:30:00Z", "2026-11-30T23:00:00Z"},
		{"year", Year, time.UTC, "2026-12-31T23:59:59Z", "2026-01-01T00:00:00Z"},
		{"all", All, time.UTC, "2026-12-31T23:59:59Z", "1970-01-01T00:00:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.unit.Bucket(utc(tc.at), tc.loc)
			if !got.Equal(utc(tc.want)) {
				t.Fatalf("Bucket(%s) = %s, want %s", tc.at, got.UTC().Format(time.RFC3339), tc.want)
			}
		})
	}
}

// TestDaylightSavingDays: the day daylight saving starts is 23 hours long
// in Paris, the day it ends 25; Next steps over both.
func TestDaylightSavingDays(t *testing.T) {
	paris := mustZone(t, "Europe/Paris")
	for _, tc := range []struct {
		day  time.Time
		want time.Duration
	}{
		{time.Date(2026, 3, 29, 12, 0, 0, 0, paris), 23 * time.Hour},
		{time.Date(2026, 10, 25, 12, 0, 0, 0, paris), 25 * time.Hour},
	} {
		b := Day.Bucket(tc.day, paris)
		if got := Day.Next(b).Sub(b); got != tc.want {
			t.Errorf("day of %s: %s long, want %s", tc.day.Format(time.DateOnly), got, tc.want)
		}
	}
	// The hour repeated when daylight saving ends is two hour buckets.
	first := time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC) // 02:30 CEST
	second := first.Add(time.Hour)                          // 02:30 CET
	if a, b := Hour.Bucket(first, paris), Hour.Bucket(second, paris); a.Equal(b) || b.Sub(a) != time.Hour {
		t.Errorf("the repeated hour: buckets %s and %s, want an hour apart", a.UTC(), b.UTC())
	}
}

// TestBucketProperties: for random instants and zones, every unit's
// bucket holds the instant, is its own bucket, and ends where the next
// begins.
func TestBucketProperties(t *testing.T) {
	zones := []*time.Location{time.UTC, mustZone(t, "Europe/Paris"), mustZone(t, "Asia/Kolkata"), mustZone(t, "America/New_York"), mustZone(t, "Australia/Lord_Howe")}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		at := time.Unix(r.Int64N(2_000_000_000), r.Int64N(1e9))
		loc := zones[r.IntN(len(zones))]
		for _, u := range Units {
			b := u.Bucket(at, loc)
			next := u.Next(b)
			if at.Before(b) || !at.Before(next) {
				t.Fatalf("%s in %s: %s not in [%s, %s)", u, loc, at.UTC(), b.UTC(), next.UTC())
			}
			if again := u.Bucket(b, loc); !again.Equal(b) {
				t.Fatalf("%s in %s: the bucket of %s starts at %s, not itself", u, loc, b.UTC(), again.UTC())
			}
			if u != All && !u.Bucket(next, loc).Equal(next) {
				t.Fatalf("%s in %s: the next bucket after %s does not start at %s", u, loc, b.UTC(), next.UTC())
			}
		}
	}
}
