package rollup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
)

// cacheEnv is a rollup service fed by a real message cache (on Pebble).
type cacheEnv struct {
	c   *cache.Service
	svc *rollup.Service
	ctx context.Context
}

func newCacheEnv(t *testing.T) *cacheEnv {
	t.Helper()
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	events := cache.NewLocalEvents(cache.LocalEventsOptions{})
	t.Cleanup(func() { events.Close() })
	c := cache.NewService(db, cache.DefaultConfig())
	c.SetEvents(events)
	svc := rollup.NewService(rollup.Config{Store: db.Rollups(), DefaultAccount: account, Events: events, CacheReader: c,
		FlushInterval: 50 * time.Millisecond, SourcesInterval: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &cacheEnv{c: c, svc: svc, ctx: context.Background()}
}

// put stores a message under path whose metadata carries the event's
// members (its time is its message_uuid's: now).
func (e *cacheEnv) put(t *testing.T, path, members string) {
	t.Helper()
	id, _ := uuid.NewUUID()
	meta := fmt.Sprintf(`{"paths": [%q], %s}`, path, members)
	if _, _, err := e.c.Put(e.ctx, cache.PutInput{MessageID: id.String(), Metadata: json.RawMessage(meta)}); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls the all-time totals of scope league=nba until they read
// want.
func (e *cacheEnv) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		tot, err := e.svc.Totals(e.ctx, "scores", rollup.Selector{Scope: map[string]string{"league": "nba"}}, rollup.Range{Unit: rollup.All}, nil)
		if got = fmt.Sprint(tot.Values, err); got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("totals %s, want %s", got, want)
}

func (e *cacheEnv) top(t *testing.T, dim string) string {
	t.Helper()
	top, err := e.svc.Top(e.ctx, "scores", rollup.TopQuery{Selector: rollup.Selector{Scope: map[string]string{"league": "nba"}, Dim: dim}, Range: rollup.Range{Unit: rollup.All}})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(top.Values)
}

// TestBackfillFillsTheNewPartsFromTheCache: a cache-fed rollup gains a
// metric and a computed dimension; after their start, a backfill over the
// journal fills them with the messages stored before, and only them: the
// rollup then holds what one defined with its final shape from the start
// would, and a second backfill counts nothing again. A backfill of a
// rollup without new parts, or not fed from the cache, is refused.
func TestBackfillFillsTheNewPartsFromTheCache(t *testing.T) {
	e := newCacheEnv(t)
	first := `{"event": {"id": "message_uuid", "time": "message_time"}, "scopes": [["league"]], "metrics": ["goals"],
		"periods": [{"unit": "all"}], "sources": {"cache_pattern": "scores.#"}}`
	if _, _, err := e.svc.Put(e.ctx, "scores", []byte(first)); err != nil {
		t.Fatal(err)
	}
	e.waitSubscribed(t)
	// The journal keeps store times in milliseconds: from is a whole
	// millisecond after the last probe's, so the backfill reads the games.
	waitPast(time.Now().Add(2 * time.Millisecond))
	from := time.Now().Truncate(time.Millisecond)
	e.put(t, "scores.nba.g1", `"league": "nba", "team": "LAL", "goals": 3, "fouls": 1`)
	e.put(t, "scores.nba.g2", `"league": "nba", "team": "BOS", "goals": 4, "fouls": 2`)
	e.put(t, "news.nba", `"league": "nba", "team": "BOS", "goals": 100, "fouls": 100`) // outside the pattern
	e.waitFor(t, "[7] <nil>")
	if _, err := e.svc.Backfill(e.ctx, "scores", from, time.Now(), time.Time{}); herald.ErrorCode(err) != herald.EInvalid {
		t.Errorf("a backfill of a rollup that gained no part: %v, want invalid_argument", err)
	}
	grown := `{"event": {"id": "message_uuid", "time": "message_time"}, "scopes": [["league"]], "metrics": ["goals", "fouls"],
		"dimensions": ["coast"], "computed": [{"name": "coast", "fn": "lookup", "member": "team", "table": {"LAL": "west", "BOS": "east"}}],
		"periods": [{"unit": "all"}], "sources": {"cache_pattern": "scores.#"}}`
	d, _, err := e.svc.Put(e.ctx, "scores", []byte(grown))
	if err != nil {
		t.Fatal(err)
	}
	start := d.Added["dimensions.coast"]
	waitPast(start)
	e.put(t, "scores.nba.g3", `"league": "nba", "team": "LAL", "goals": 1, "fouls": 5`)
	e.waitFor(t, "[8 5] <nil>")
	if got := e.top(t, "coast"); got != "[{west [1 5]}]" {
		t.Fatalf("before the backfill, coast = %s, want only the game stored after the start", got)
	}
	res, err := e.svc.Backfill(e.ctx, "scores", from, time.Now().Add(time.Second), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Messages != 3 || res.Counted != 2 || res.Skipped != 1 || !res.Start.Equal(start) ||
		strings.Join(res.Parts, ",") != "dimensions.coast,metrics.fouls" {
		t.Errorf("backfill %+v: want 3 messages (not the one outside the pattern), 2 counted, 1 skipped, the two parts of %v", res, start)
	}
	e.waitFor(t, "[8 8] <nil>") // goals unchanged; fouls of every game
	if got := e.top(t, "coast"); got != "[{east [4 2]} {west [4 6]}]" {
		t.Errorf("after the backfill, coast = %s, want east [4 2], west [4 6]", got)
	}
	again, err := e.svc.Backfill(e.ctx, "scores", from, time.Now().Add(time.Second), time.Time{})
	if err != nil || again.Counted != 0 || again.Duplicates != 2 {
		t.Errorf("a second backfill: %+v, %v; want 0 counted, 2 duplicates", again, err)
	}
	e.waitFor(t, "[8 8] <nil>")
	if _, err := e.svc.Backfill(e.ctx, "scores", from, time.Now(), start.Add(time.Hour)); herald.ErrorCode(err) != herald.EInvalid {
		t.Errorf("a backfill of a start no part has: %v, want invalid_argument", err)
	}
}

// waitSubscribed waits until the rollup's cache consumer runs: one of the
// probe messages it stores under its pattern, until then, is counted (the
// consumer counts only what is stored once it subscribed).
func (e *cacheEnv) waitSubscribed(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		e.put(t, "scores.probe", `"league": "probe", "goals": 1`)
		tot, err := e.svc.Totals(e.ctx, "scores", rollup.Selector{Scope: map[string]string{"league": "probe"}}, rollup.Range{Unit: rollup.All}, nil)
		if err == nil && tot.Values[0] > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the rollup's cache consumer never counted a probe")
}

// waitPast polls the clock until it is past at: events are timed by it.
func waitPast(at time.Time) {
	for !time.Now().After(at) {
		time.Sleep(time.Millisecond)
	}
}
