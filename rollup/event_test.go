package rollup

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald"
)

func TestParseEvents(t *testing.T) {
	d := parseDef(t, videoJSON)
	e := parseOne(t, d, `{"id": "e1", "time": "2026-12-01T10:00:00.5+01:00", "channel": "c1", "video": 42,
		"country": "FR", "city": "Paris", "site": "", "plays": 1, "viewers": -1, "extra": {"x": [1]}}`)
	if e.ID != "e1" || !e.Time.Equal(time.Date(2026, 12, 1, 9, 0, 0, 5e8, time.UTC)) {
		t.Errorf("ID %q, Time %s", e.ID, e.Time)
	}
	want := map[string]string{"channel": "c1", "video": "42", "country": "FR", "city": "Paris"}
	if fmt.Sprint(e.Values) != fmt.Sprint(want) {
		t.Errorf("Values = %v, want %v (an empty site is absent)", e.Values, want)
	}
	if fmt.Sprint(e.Deltas) != "[1 -1]" {
		t.Errorf("Deltas = %v, want [1 -1]", e.Deltas)
	}
	// Seconds since the epoch; a metric the event lacks is 0.
	e = parseOne(t, d, `{"id": 7, "time": 1764583200.25, "channel": "c1"}`)
	if e.ID != "7" || !e.Time.Equal(time.Unix(1764583200, 25e7)) || fmt.Sprint(e.Deltas) != "[0 0]" {
		t.Errorf("ID %q, Time %s, Deltas %v", e.ID, e.Time, e.Deltas)
	}
}

func TestParseEventsNested(t *testing.T) {
	d := parseDef(t, `{"name": "n", "event": {"id": "meta.id", "time": "meta.at"}, "scopes": [["who.channel"]],
		"metrics": ["m.plays"], "dimensions": ["geo.city"], "periods": [{"unit": "all"}]}`)
	e := parseOne(t, d, `{"meta": {"id": "x", "at": "2026-12-01T00:00:00Z"}, "who": {"channel": "c"}, "geo": {"city": "Oslo"}, "m": {"plays": 3}}`)
	if e.ID != "x" || e.Values["who.channel"] != "c" || e.Values["geo.city"] != "Oslo" || e.Deltas[0] != 3 {
		t.Errorf("event %+v", e)
	}
}

// TestParseEventsArray: an array of events, the malformed ones reported
// by position and member, the others kept.
func TestParseEventsArray(t *testing.T) {
	d := parseDef(t, videoJSON)
	body := `[
		{"id": "a", "time": "2026-12-01T10:00:00Z", "channel": "c", "plays": 1},
		{"id": "b", "time": "yesterday", "channel": "c"},
		{"id": "c", "time": "2026-12-01T10:00:00Z", "channel": "c", "plays": 1.5},
		{"time": "2026-12-01T10:00:00Z"},
		{"id": "e", "time": "2026-12-01T10:00:00Z", "channel": ["c"]},
		{"id": "f", "time": "2026-12-01T10:00:00Z", "channel": "c", "city": "a\u0000b"},
		{"id": "g", "time": "2026-12-01T10:00:00Z", "channel": "c", "plays": 1099511627777},
		{"id": "h", "time": "2026-12-01T10:00:00Z", "channel": "c", "plays": "1"},
		"not an object",
		{"id": "j", "time": 1764583200, "channel": "c"}
	]`
	events, bad, err := d.ParseEvents([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[0].ID != "a" || events[1].ID != "j" {
		t.Errorf("events %+v, want a and j", events)
	}
	wantPrefixes := []string{"events[1].time: ", "events[2].plays: ", "events[3].id: ", "events[4].channel: ",
		"events[5].city: ", "events[6].plays: ", "events[7].plays: ", "events[8].event: "}
	if len(bad) != len(wantPrefixes) {
		t.Fatalf("%d bad events, want %d: %v", len(bad), len(wantPrefixes), bad)
	}
	for i, e := range bad {
		var he *herald.Error
		if !errors.As(e, &he) || he.Code != herald.EInvalid || !strings.HasPrefix(he.Message, wantPrefixes[i]) {
			t.Errorf("bad[%d] = %v, want a message starting %q", i, e, wantPrefixes[i])
		}
	}
}

func TestParseEventsBody(t *testing.T) {
	d := parseDef(t, videoJSON)
	tests := []struct {
		body string
		code string
	}{
		{``, herald.EInvalid},
		{`42`, herald.EInvalid},
		{`"event"`, herald.EInvalid},
		{`[{"id": 1}`, herald.EInvalid},
		{"[" + strings.Repeat(`{},`, MaxEventsPerBody) + `{}]`, herald.ETooLarge},
	}
	for _, tc := range tests {
		_, _, err := d.ParseEvents([]byte(tc.body))
		if got := herald.ErrorCode(err); got != tc.code {
			t.Errorf("body %.40q: code %q (%v), want %q", tc.body, got, err, tc.code)
		}
	}
	// An object that is not valid JSON is one malformed event.
	events, bad, err := d.ParseEvents([]byte(`{"id": `))
	if err != nil || len(events) != 0 || len(bad) != 1 {
		t.Errorf("truncated object: %v, %v, %v", events, bad, err)
	}
}

func TestCheckTime(t *testing.T) {
	d := parseDef(t, videoJSON)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		at   time.Time
		late bool
	}{
		{now, false},
		{now.Add(-96*time.Hour + time.Second), false},
		{now.Add(-96*time.Hour - time.Second), true},
		{now.Add(MaxAhead), false},
		{now.Add(MaxAhead + time.Second), true},
	}
	for _, tc := range tests {
		err := d.CheckTime(Event{ID: "x", Time: tc.at}, now)
		if late := errors.Is(err, ErrLate); late != tc.late {
			t.Errorf("event at %s: %v, want late %v", tc.at, err, tc.late)
		}
	}
}
