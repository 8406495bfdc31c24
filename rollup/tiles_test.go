package rollup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
)

func TestTilePath(t *testing.T) {
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{"c1"}, "rollups.000000000000.video.c1"},
		{[]string{"c1", "New York"}, "rollups.000000000000.video.c1.New_20York"},
		{[]string{"a.b_c"}, "rollups.000000000000.video.a_2eb_5fc"},
	}
	for _, tc := range tests {
		if got := rollup.TilePath("000000000000", "video", tc.values); got != tc.want {
			t.Errorf("TilePath(%q) = %q, want %q", tc.values, got, tc.want)
		}
	}
}

// TestLiveTiles: a rollup with tiles publishes each changed scope's
// current values into the message cache, where latest sees them.
func TestLiveTiles(t *testing.T) {
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := cache.NewService(db, cache.DefaultConfig())
	svc := rollup.NewService(rollup.Config{Store: db.Rollups(), DefaultAccount: account, Cache: c})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	bg := context.Background()
	if _, _, err := svc.Put(bg, "video", []byte(`{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
		"metrics": ["plays"], "periods": [{"unit": "day"}, {"unit": "all"}], "tiles": true}`)); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		body := fmt.Sprintf(`{"id": "%d", "time": %q, "channel": "c1", "plays": 2}`, i, time.Now().UTC().Format(time.RFC3339))
		if _, err := svc.Ingest(bg, "video", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	path := rollup.TilePath(account, "video", []string{"c1"})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		got, _, err := c.Latest(bg, path, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 1 {
			var tile struct {
				Scope   map[string]string
				Periods map[string]struct{ Values []int64 }
			}
			if err := json.Unmarshal(got[0].Message.Body, &tile); err != nil {
				t.Fatal(err)
			}
			if tile.Scope["channel"] == "c1" && tile.Periods["all"].Values[0] == 10 && tile.Periods["day"].Values[0] == 10 {
				if n := svc.Stats.Tiles.Load(); n > 3 {
					t.Fatalf("%d tiles published for one scope in about a second", n)
				}
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no tile with the scope's values in the cache")
}

// TestCacheFeedsARollup: messages stored in the cache under a rollup's
// cache pattern are counted, each once, though every one is stored twice;
// a message outside the pattern is not.
func TestCacheFeedsARollup(t *testing.T) {
	e := newCacheEnv(t)
	c, svc, bg := e.c, e.svc, e.ctx
	if _, _, err := svc.Put(bg, "scores", []byte(`{"event": {"id": "message_uuid", "time": "message_time"},
		"scopes": [["league"]], "metrics": ["goals"], "periods": [{"unit": "all"}], "sources": {"cache_pattern": "scores.#"}}`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the subscription starts with Run's next look
	put := func(path string, goals int) {
		t.Helper()
		id, _ := uuid.NewUUID()
		meta := fmt.Sprintf(`{"paths": [%q], "league": "nba", "goals": %d}`, path, goals)
		for range 2 { // stored twice: the second is a repeat of the same message_uuid
			if _, _, err := c.Put(bg, cache.PutInput{MessageID: id.String(), Metadata: json.RawMessage(meta)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("scores.nba.game1", 3)
	put("scores.nba.game2", 4)
	put("news.nba", 100) // outside the pattern
	deadline := time.Now().Add(10 * time.Second)
	var got int64
	for time.Now().Before(deadline) {
		tot, err := svc.Totals(bg, "scores", rollup.Selector{Scope: map[string]string{"league": "nba"}}, rollup.Range{Unit: rollup.All}, nil)
		if err == nil {
			got = tot.Values[0]
		}
		if got == 7 {
			time.Sleep(200 * time.Millisecond)
			tot, _ = svc.Totals(bg, "scores", rollup.Selector{Scope: map[string]string{"league": "nba"}}, rollup.Range{Unit: rollup.All}, nil)
			if tot.Values[0] != 7 {
				t.Fatalf("goals = %d after settling, want 7", tot.Values[0])
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("goals = %d, want 7", got)
}
