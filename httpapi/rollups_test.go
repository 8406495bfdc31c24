package httpapi_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/rollup"
)

// rollupNow is the rollup service's clock in these tests.
var rollupNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// newRollupServer returns a handler serving the rollup API over a Pebble
// store, and the store.
func newRollupServer(t *testing.T) (http.Handler, rollup.Store) {
	t.Helper()
	db := openStore(t)
	m := metrics.New()
	s := httpapi.New(cache.NewService(db, cache.DefaultConfig()), m, quietLog)
	s.SetRollups(rollup.NewService(rollup.Config{Store: db.Rollups(), Clock: func() time.Time { return rollupNow }, DefaultAccount: "000000000000"}))
	return s, db.Rollups()
}

// triggersOf sends a request answering a definition (or, for GET
// /v1/rollups, a list of one) and returns its triggers as JSON objects.
func triggersOf(t *testing.T, h http.Handler, method, target, body string, status int) []map[string]any {
	t.Helper()
	rec := serve(h, method, target, body)
	if rec.Code != status {
		t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
	}
	var out struct {
		Triggers []map[string]any `json:"triggers"`
		Rollups  []struct {
			Triggers []map[string]any `json:"triggers"`
		} `json:"rollups"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: %v: %s", method, target, err, rec.Body)
	}
	if len(out.Rollups) == 1 {
		return out.Rollups[0].Triggers
	}
	return out.Triggers
}

// TestRollupTriggersShowTheirLastFiring: every answer holding a
// definition gives each trigger that fired its last_firing (the firing,
// then what became of its notification), and none to the others.
func TestRollupTriggersShowTheirLastFiring(t *testing.T) {
	h, store := newRollupServer(t)
	const def = `{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays"],
		"periods": [{"unit": "day"}, {"unit": "all"}],
		"triggers": [{"id": "ten", "metric": "plays", "scope": {"channel": "*"}, "unit": "day", "threshold": 10,
			"topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"},
		{"id": "quiet", "metric": "plays", "scope": {"channel": "*"}, "unit": "day", "threshold": 1000,
			"topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}]}`
	const trigger = `{"metric": "plays", "scope": {"channel": "*"}, "unit": "day", "threshold": 10, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}`
	fired := map[string]any{"scope": []any{"c1"}, "bucket": "2026-12-01T00:00:00Z", "total": 12.0, "at": "2026-12-01T12:00:00Z", "published": false}
	with := func(extra map[string]any) map[string]any {
		m := maps.Clone(fired)
		maps.Copy(m, extra)
		return m
	}
	firing := func() rollup.Firing {
		t.Helper()
		fs, err := store.PendingFirings(t.Context(), 10)
		if err != nil || len(fs) != 1 {
			t.Fatalf("PendingFirings = %+v, %v", fs, err)
		}
		return fs[0]
	}
	steps := []struct {
		name           string
		before         func() // what happens first, if anything
		method, target string
		body           string
		status         int
		want           map[string]map[string]any // trigger ID -> its last_firing, nil for none
	}{
		{"defined", nil, http.MethodPut, "/v1/rollups/plays", def, http.StatusCreated, map[string]map[string]any{"ten": nil, "quiet": nil}},
		{"fired", func() {
			events := `[{"id": "1", "time": "2026-12-01T11:00:00Z", "channel": "c1", "plays": 5}, {"id": "2", "time": "2026-12-01T11:30:00Z", "channel": "c1", "plays": 7}]`
			if rec := serve(h, http.MethodPost, "/v1/rollups/plays/events", events); rec.Code != http.StatusOK {
				t.Fatalf("POST events: %d %s", rec.Code, rec.Body)
			}
		}, http.MethodGet, "/v1/rollups/plays", "", http.StatusOK, map[string]map[string]any{"ten": fired, "quiet": nil}},
		{"publish failed", func() {
			if err := store.FiringFailed(t.Context(), firing(), rollupNow.Add(time.Second), "NotFound: Topic does not exist"); err != nil {
				t.Fatal(err)
			}
		}, http.MethodGet, "/v1/rollups", "", http.StatusOK, map[string]map[string]any{
			"ten": with(map[string]any{"error": "NotFound: Topic does not exist", "error_at": "2026-12-01T12:00:01Z"}), "quiet": nil}},
		{"published", func() {
			if err := store.FiringDone(t.Context(), firing(), rollupNow.Add(2*time.Second)); err != nil {
				t.Fatal(err)
			}
		}, http.MethodGet, "/v1/rollups/plays", "", http.StatusOK, map[string]map[string]any{
			"ten": with(map[string]any{"published": true, "published_at": "2026-12-01T12:00:02Z"}), "quiet": nil}},
		{"trigger replaced", nil, http.MethodPut, "/v1/rollups/plays/triggers/ten", trigger, http.StatusOK, map[string]map[string]any{
			"ten": with(map[string]any{"published": true, "published_at": "2026-12-01T12:00:02Z"}), "quiet": nil}},
		{"trigger deleted", func() {
			if rec := serve(h, http.MethodDelete, "/v1/rollups/plays/triggers/ten", ""); rec.Code != http.StatusNoContent {
				t.Fatalf("DELETE trigger: %d %s", rec.Code, rec.Body)
			}
		}, http.MethodGet, "/v1/rollups/plays", "", http.StatusOK, map[string]map[string]any{"quiet": nil}},
		{"trigger added again", nil, http.MethodPut, "/v1/rollups/plays/triggers/ten", trigger, http.StatusOK, map[string]map[string]any{"ten": nil, "quiet": nil}},
	}
	var firingID string
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		triggers := triggersOf(t, h, s.method, s.target, s.body, s.status)
		got := map[string]map[string]any{}
		for _, tr := range triggers {
			if tr["metric"] != "plays" || tr["topic_arn"] == nil {
				t.Fatalf("%s: trigger %v lacks its definition", s.name, tr)
			}
			if v, ok := tr["last_firing"]; ok && v == nil {
				t.Fatalf("%s: last_firing is null, want it omitted", s.name)
			}
			lf, _ := tr["last_firing"].(map[string]any)
			if lf != nil {
				id, _ := lf["firing_id"].(string)
				if firingID == "" {
					firingID = id
				}
				if id == "" || id != firingID {
					t.Fatalf("%s: firing_id %q, want %q", s.name, id, firingID)
				}
				delete(lf, "firing_id")
			}
			got[tr["id"].(string)] = lf
		}
		if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(s.want))) {
			t.Fatalf("%s: triggers %v, want %v", s.name, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(s.want)))
		}
		for id, want := range s.want {
			if g, _ := json.Marshal(got[id]); string(g) != mustJSON(t, want) {
				t.Fatalf("%s: trigger %s has last_firing %s, want %s", s.name, id, g, mustJSON(t, want))
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
