package rollups

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

// Generator's events carry every member of the definition (but region,
// which Run's events never had), draw the same
// values from the same seed, and are what Run's messages hold.
func TestGeneratorEvents(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a, b := NewGenerator(7, 20), NewGenerator(7, 20)
	for i := range 50 {
		e, f := a.Event("e", at), b.Event("e", at)
		if !reflect.DeepEqual(e, f) {
			t.Fatalf("event %d differs for one seed: %v and %v", i, e, f)
		}
		if e["id"] != "e" || e["time"] != "2026-12-01T10:00:00Z" {
			t.Fatalf("id and time %v %v", e["id"], e["time"])
		}
		for _, m := range append([]string{"channel", "video", "campaign"}, dimensions...) {
			if s, ok := e[m].(string); (!ok || s == "") && m != "region" {
				t.Fatalf("member %s: %v", m, e[m])
			}
		}
		for _, m := range metrics {
			if _, ok := e[m].(int); !ok {
				t.Fatalf("metric %s: %v", m, e[m])
			}
		}
		if p := e["plays"].(int); p < 0 || p > 2 {
			t.Fatalf("plays %d", p)
		}
	}
	ref := newReference()
	var events []map[string]any
	if err := json.Unmarshal([]byte(newGenerator(3, 20).message("m", 10, ref)), &events); err != nil || len(events) != 10 {
		t.Fatalf("message: %d events, %v", len(events), err)
	}
	var plays int64
	for _, e := range events {
		plays += int64(e["plays"].(float64))
	}
	var counted int64
	for _, p := range ref.plays {
		counted += p
	}
	if counted != plays {
		t.Errorf("the reference counted %d plays, the message holds %d", counted, plays)
	}
}

// A fraction Overlap of each batch is events another sender sent
// before, the other door's first and never the taker's own, each resent
// once; the reference counts every event once.
func TestSendersOverlap(t *testing.T) {
	for _, tc := range []struct {
		overlap                   float64
		wantResent, wantFromQueue int
	}{{0.5, 10, 10}, {1, 10, 10}, {0, 0, 0}} {
		ref := newReference()
		s := newSenders(Config{Senders: 1, APISenders: 2, Overlap: tc.overlap, Channels: 20}, ref, nil)
		g, h, k := newGenerator(1, 20), newGenerator(2, 20), newGenerator(3, 20)
		first := s.batch(g, 0, doorQueue, "q", 10) // all new
		second := s.batch(h, 1, doorAPI, "a", 20)  // overlap·20 of the queue's 10, the rest new
		third := s.batch(k, 1, doorAPI, "b", 4)    // sender 1 never takes its own
		if len(first) != 10 || len(second) != 20 || len(third) != 4 {
			t.Fatalf("batches of %d, %d, %d events", len(first), len(second), len(third))
		}
		if got := s.resent.Load(); got != int64(tc.wantResent) {
			t.Errorf("overlap %v: %d resent, want %d", tc.overlap, got, tc.wantResent)
		}
		fromQueue := 0
		for _, e := range second {
			if slices.ContainsFunc(first, func(f []byte) bool { return string(f) == string(e) }) {
				fromQueue++
			}
		}
		if fromQueue != tc.wantFromQueue {
			t.Errorf("overlap %v: %d of the API batch came from the queue's, want %d", tc.overlap, fromQueue, tc.wantFromQueue)
		}
		ids := map[string]int{}
		var plays int64
		for _, raw := range slices.Concat(first, second, third) {
			var e struct {
				ID    string `json:"id"`
				Plays int64  `json:"plays"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			if ids[e.ID]++; ids[e.ID] == 1 {
				plays += e.Plays
			}
		}
		if int64(len(ids)) != s.events.Load() || len(ids) != 34-tc.wantResent {
			t.Errorf("overlap %v: %d distinct IDs sent, %d new events, want %d", tc.overlap, len(ids), s.events.Load(), 34-tc.wantResent)
		}
		var counted int64
		for _, p := range ref.plays {
			counted += p
		}
		if counted != plays {
			t.Errorf("overlap %v: the reference counted %d plays, the distinct events hold %d", tc.overlap, counted, plays)
		}
	}
}

// array joins events into a JSON array.
func TestArray(t *testing.T) {
	for _, tc := range []struct {
		in   [][]byte
		want string
	}{{nil, "[]"}, {[][]byte{[]byte(`{"a":1}`)}, `[{"a":1}]`}, {[][]byte{[]byte(`1`), []byte(`2`)}, `[1,2]`}} {
		if got := string(array(tc.in)); got != tc.want {
			t.Errorf("array(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
