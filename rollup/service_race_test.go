package rollup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
)

// racingStore lets another writer commit first: before each of its first
// races Commits it calls before, which commits through another service
// one of the events the batch holds.
type racingStore struct {
	rollup.Store
	races  int
	before func(b *rollup.Batch)
}

func (r *racingStore) Commit(ctx context.Context, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	if r.races > 0 {
		r.races--
		r.before(b)
	}
	return r.Store.Commit(ctx, d, b, now)
}

// TestIngestDropsEventsCommittedMeanwhile: a batch that meets events
// another writer committed while it was being committed, again and again
// (more times than a fixed number of attempts would allow), drops them as
// duplicates and commits the rest; the Ingest never fails.
func TestIngestDropsEventsCommittedMeanwhile(t *testing.T) {
	ctx := context.Background()
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clock := func() time.Time { return now }
	other := rollup.NewService(rollup.Config{Store: db.Rollups(), Clock: clock, DefaultAccount: "000000000000"})
	const events, races = 20, 12
	bodyOf := func(ids ...int) []byte {
		var evs []map[string]any
		for _, i := range ids {
			evs = append(evs, map[string]any{"id": fmt.Sprint(i), "time": now.Add(-time.Minute).Format(time.RFC3339), "channel": "c", "plays": i + 1})
		}
		b, _ := json.Marshal(evs)
		return b
	}
	next := 0 // the event the other writer commits next
	store := &racingStore{Store: db.Rollups(), races: races, before: func(b *rollup.Batch) {
		if _, err := other.Ingest(ctx, "video", bodyOf(next)); err != nil {
			t.Errorf("the other writer's Ingest: %v", err)
		}
		next++
	}}
	s := rollup.NewService(rollup.Config{Store: store, Clock: clock, DefaultAccount: "000000000000"})
	put(t, s, ctx, "video", videoDef)
	all := make([]int, events)
	var want int64
	for i := range all {
		all[i] = i
		want += int64(i + 1)
	}
	res, err := s.Ingest(ctx, "video", bodyOf(all...))
	if err != nil {
		t.Fatalf("Ingest after %d races: %v", races, err)
	}
	if res.Accepted != events-races || res.Duplicates != races {
		t.Fatalf("accepted %d, duplicates %d; want %d, %d", res.Accepted, res.Duplicates, events-races, races)
	}
	if got := s.Stats.Raced.Load(); got != races {
		t.Errorf("Stats.Raced = %d, want %d", got, races)
	}
	got, err := s.Totals(ctx, "video", rollup.Selector{Scope: map[string]string{"channel": "c"}}, rollup.Range{Unit: rollup.All}, []string{"plays"})
	if err != nil || got.Values[0] != want {
		t.Fatalf("all-time plays = %+v, %v; want %d", got, err, want)
	}
}
