package rollup

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald"
)

// FuzzDefinition: any JSON either fails to decode, or Normalize refuses it
// with an invalid_argument naming a member, or it is a definition within
// every limit whose events expand without panicking.
func FuzzDefinition(f *testing.F) {
	f.Add([]byte(videoJSON))
	f.Add([]byte(computedJSON))
	f.Add([]byte(visitsJSON))
	f.Add([]byte(`{"name":"x","event":{"id":"i","time":"t"},"scopes":[["a","b"]],"metrics":["m"],"periods":[{"unit":"minute","retention":"1d"}],"time_zone":"Asia/Kolkata"}`))
	f.Add([]byte(`{"name":"x","scopes":[[]],"drilldowns":[["a"]],"periods":[{"unit":"all","retention":"1d"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Definition
		if json.Unmarshal(b, &d) != nil {
			return
		}
		if err := d.Normalize(); err != nil {
			var msg string
			if he, ok := err.(*herald.Error); ok && he.Code == herald.EInvalid {
				msg = he.Message
			}
			if _, _, ok := strings.Cut(msg, ": "); !ok {
				t.Fatalf("Normalize error %v does not name a member", err)
			}
			return
		}
		rows := len(d.Scopes) * len(d.Periods) * (1 + len(d.Dimensions) + len(d.DrillDowns))
		if rows > MaxRowsPerEvent || rows*len(d.Metrics) > MaxCellsPerEvent {
			t.Fatalf("accepted a definition of %d rows per event", rows)
		}
		// An event carrying every member expands to at most rows rows.
		vals := map[string]string{}
		for _, s := range d.Scopes {
			for _, m := range s {
				vals[m] = "v"
			}
		}
		for _, m := range d.Dimensions {
			vals[m] = "v"
		}
		now := time.Now()
		n := 0
		d.Expand(Event{ID: "e", Time: now, Values: vals, Deltas: make([]int64, len(d.Metrics))}, now, func(Row) { n++ })
		if n > rows {
			t.Fatalf("an event expanded to %d rows, more than %d", n, rows)
		}
	})
}

// FuzzParseEvents: any body is refused whole, or split into well-formed
// events and malformed ones; every event kept respects the limits, for a
// definition of event members and one of computed members.
func FuzzParseEvents(f *testing.F) {
	f.Add([]byte(`{"id": "e1", "time": "2026-12-01T10:00:00Z", "channel": "c", "video": 4, "city": "Paris", "plays": 1}`))
	f.Add([]byte(`[{"id": 1, "time": 1764583200.5, "channel": true, "viewers": -1}, {"id": null}, 3]`))
	f.Add([]byte(`{"id": "x", "time": "2026-12-01T10:00:00Z", "plays": 1e3, "city": "\u001f"}`))
	f.Add([]byte(`{"id": "e1", "time": 1e9, "channel": "ñ", "site": "日本語のサイト", "country": "FR", "hour": {"x": 1}}`))
	defs := []*Definition{parseDef(f, videoJSON), parseDef(f, computedJSON), parseDef(f, visitsJSON)}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, d := range defs {
			checkParsed(t, d, body)
		}
	})
}

// checkParsed: d refuses body whole, or splits it into well-formed events
// and malformed ones; every event kept respects the limits.
func checkParsed(t *testing.T, d *Definition, body []byte) {
	{
		events, bad, err := d.ParseEvents(body)
		if err != nil {
			if len(events) > 0 || len(bad) > 0 {
				t.Fatal("a refused body also returned events")
			}
			return
		}
		for _, e := range bad {
			if herald.ErrorCode(e) != herald.EInvalid {
				t.Fatalf("malformed event error %v is not invalid_argument", e)
			}
		}
		for _, e := range events {
			if e.ID == "" || len(e.ID) > MaxIDLen || e.Time.IsZero() || len(e.Deltas) != len(d.Metrics) {
				t.Fatalf("event %+v breaks a limit", e)
			}
			for m, v := range e.Values {
				if v == "" || len(v) > MaxValueLen || strings.Contains(v, Sep) {
					t.Fatalf("value %q of %s breaks a limit", v, m)
				}
			}
			for i, x := range e.Deltas {
				if d.distinctOf(i) != nil && x != 0 {
					t.Fatalf("distinct metric %s read a delta %d", d.Metrics[i], x)
				}
				if x > MaxDelta || x < -MaxDelta {
					t.Fatalf("delta %d out of range", x)
				}
			}
		}
	}
}

// FuzzDecodeBackfill: any body is a backfill request or an invalid_argument
// naming what is wrong; never a panic.
func FuzzDecodeBackfill(f *testing.F) {
	f.Add([]byte(`{"from": "2026-12-06T00:00:00Z", "to": "2026-12-07T00:00:00Z"}`))
	f.Add([]byte(`{"from": "yesterday", "start": 3, "x": 1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := DecodeBackfill(body); err != nil && herald.ErrorCode(err) != herald.EInvalid {
			t.Fatalf("DecodeBackfill error %v is not invalid_argument", err)
		}
	})
}
