package pebblestore

import (
	"bytes"
	"encoding/binary"
	"math"
	"time"

	"github.com/heraldmq/herald/internal/timeconv"

	"github.com/heraldmq/herald/cache"
)

// This file turns the times and positions of queries into key bounds. Query
// arguments may carry any time.Time, with more precision than the keys
// (100 ns ticks for history, milliseconds for the journal), so every
// conversion says whether it was exact.

// uuidEpochSec is the number of seconds from the UUID epoch (1582-10-15) to
// the Unix epoch.
const uuidEpochSec = 12219292800

// ticksOf converts t to 100 ns ticks since the UUID epoch, rounding down.
// It reports before when t precedes the UUID epoch and after when t is past
// any UUID timestamp; exact is false when t is not on a tick boundary.
func ticksOf(t time.Time) (ticks uint64, exact, before, after bool) {
	sec := t.Unix()
	if sec > math.MaxInt64-uuidEpochSec {
		return 0, false, false, true
	}
	sec += uuidEpochSec
	if sec < 0 {
		return 0, false, true, false
	}
	if uint64(sec) > maxTicks/10_000_000 {
		return 0, false, false, true
	}
	ns := uint64(t.Nanosecond())
	ticks = uint64(sec)*1e7 + ns/100
	if ticks > maxTicks {
		return 0, false, false, true
	}
	return ticks, ns%100 == 0, false, false
}

// historyStart returns the key at which the history of the path whose own
// entries start with prefix resumes strictly after the position after, or
// ok == false when nothing can follow after.
func historyStart(prefix []byte, after cache.Position) (start []byte, ok bool) {
	if after.IsZero() {
		return prefix, true
	}
	ticks, exact, before, later := ticksOf(after.At)
	switch {
	case before: // every entry is at or after the UUID epoch: none is older
		return nil, false
	case later: // every entry is older
		return prefix, true
	case exact:
		// Keys greater than (ticks, after.ID)'s own key are older positions.
		k := appendOrderKey(bytes.Clone(prefix), ticks, after.ID)
		return successor(k), true
	default:
		// after.At falls between ticks: entries at ticks or earlier are
		// older whatever their id; the first of them has the inverted id
		// 00…00 (id ff…ff).
		k := binary.BigEndian.AppendUint64(bytes.Clone(prefix), ^ticks)
		return append(k, make([]byte, idLen)...), true
	}
}

// journalRange returns the key range [lo, hi) of journal entries received in
// [from, to) and strictly after the position after, or ok == false when it
// is empty.
func journalRange(from, to time.Time, after cache.Position) (lo, hi []byte, ok bool) {
	lo = timeBound(prefixJournal, timeconv.CeilMs(from))
	hi = timeBound(prefixJournal, timeconv.CeilMs(to))
	if !after.IsZero() {
		ms, exact := timeconv.FloorMs(after.At)
		var a []byte
		switch {
		case exact:
			a = successor(journalKey(ms, after.ID))
		case ms == math.MaxInt64:
			return nil, nil, false
		default: // entries in the millisecond of after.At are before it
			a = timeBound(prefixJournal, ms+1)
		}
		if bytes.Compare(a, lo) > 0 {
			lo = a
		}
	}
	return lo, hi, bytes.Compare(lo, hi) < 0
}
