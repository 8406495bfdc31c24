package rollups

import (
	"encoding/json"
	"reflect"
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
	ref := &reference{plays: map[string]int64{}, cities: map[string]map[string]int64{}}
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
