package rollup

import (
	"sync"
	"time"
)

// Unit is the length of a period's buckets.
type Unit string

// The period units. Weeks start on Monday (ISO 8601); All has a single
// bucket, starting at the Unix epoch.
const (
	Minute Unit = "minute"
	Hour   Unit = "hour"
	Day    Unit = "day"
	Week   Unit = "week"
	Month  Unit = "month"
	Year   Unit = "year"
	All    Unit = "all"
)

// Units lists the units, shortest first.
var Units = []Unit{Minute, Hour, Day, Week, Month, Year, All}

// Valid reports whether u is one of the units.
func (u Unit) Valid() bool {
	for _, x := range Units {
		if u == x {
			return true
		}
	}
	return false
}

// shortest is the shortest a bucket of u can be (a month of 28 days, a
// year of 365), for bounds on retentions and ranges.
func (u Unit) shortest() time.Duration {
	switch u {
	case Minute:
		return time.Minute
	case Hour:
		return time.Hour
	case Day:
		return 23 * time.Hour // a day that loses an hour to daylight saving
	case Week:
		return 7*24*time.Hour - time.Hour
	case Month:
		return 28*24*time.Hour - time.Hour
	case Year:
		return 365*24*time.Hour - time.Hour
	}
	return 0
}

// Bucket returns the start of the bucket of u that holds t, on the
// calendar of loc. Day and longer buckets start at local midnight (a day
// is 23 or 25 hours long when daylight saving starts or ends). Minute and
// hour buckets are cut in absolute time, hours on the boundaries of loc's
// standard offset: local hours in every zone whose offsets differ by whole
// hours (so India's hours start at :30 UTC); in the few zones whose
// daylight saving shifts by half an hour, hours stay on the standard
// offset's boundaries all year.
func (u Unit) Bucket(t time.Time, loc *time.Location) time.Time {
	switch u {
	case Minute:
		return t.Truncate(time.Minute).In(loc)
	case Hour:
		shift := hourShift(loc)
		return t.Add(shift).Truncate(time.Hour).Add(-shift).In(loc)
	}
	lt := t.In(loc)
	switch u {
	case Day:
		return time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, loc)
	case Week:
		back := (int(lt.Weekday()) + 6) % 7 // days since Monday
		return time.Date(lt.Year(), lt.Month(), lt.Day()-back, 0, 0, 0, 0, loc)
	case Month:
		return time.Date(lt.Year(), lt.Month(), 1, 0, 0, 0, 0, loc)
	case Year:
		return time.Date(lt.Year(), 1, 1, 0, 0, 0, 0, loc)
	}
	return time.Unix(0, 0).In(loc)
}

var hourShifts sync.Map // *time.Location -> time.Duration

// hourShift is loc's standard offset modulo one hour: the smaller of its
// offsets in January and July (of 2025, so that it never changes), as
// daylight saving only adds.
func hourShift(loc *time.Location) time.Duration {
	if v, ok := hourShifts.Load(loc); ok {
		return v.(time.Duration)
	}
	_, jan := time.Date(2025, 1, 1, 0, 0, 0, 0, loc).Zone()
	_, jul := time.Date(2025, 7, 1, 0, 0, 0, 0, loc).Zone()
	shift := (time.Duration(min(jan, jul))*time.Second%time.Hour + time.Hour) % time.Hour
	hourShifts.Store(loc, shift)
	return shift
}

// Next returns the start of the bucket after the one of u that starts at
// b (a value Bucket returned, in the same location).
func (u Unit) Next(b time.Time) time.Time {
	switch u {
	case Minute:
		return b.Add(time.Minute)
	case Hour:
		return b.Add(time.Hour)
	case Day:
		return time.Date(b.Year(), b.Month(), b.Day()+1, 0, 0, 0, 0, b.Location())
	case Week:
		return time.Date(b.Year(), b.Month(), b.Day()+7, 0, 0, 0, 0, b.Location())
	case Month:
		return time.Date(b.Year(), b.Month()+1, 1, 0, 0, 0, 0, b.Location())
	case Year:
		return time.Date(b.Year()+1, 1, 1, 0, 0, 0, 0, b.Location())
	}
	return time.Unix(1<<62, 0) // All's bucket never ends
}
