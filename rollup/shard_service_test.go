package rollup_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
)

// failingShard fails the first commit of one commit shard, as a node
// that died between its shards' commits.
type failingShard struct {
	rollup.Store
	shard  int
	failed atomic.Bool
}

func (f *failingShard) Commit(ctx context.Context, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	if b.Shard() == f.shard && f.failed.CompareAndSwap(false, true) {
		return herald.Unavailable("commit rollup", errors.New("injected: the node died before this shard"))
	}
	return f.Store.Commit(ctx, d, b, now)
}

// A batch whose shards committed in part (one failed) is sent again: the
// shards that committed find its events duplicates, the other counts
// them, and every row equals that of a rollup of one shard fed once.
func TestShardsCommittedInPartCountOnceWhenSentAgain(t *testing.T) {
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	wrapped := &failingShard{Store: db.Rollups(), shard: 2}
	svc := rollup.NewService(rollup.Config{Store: wrapped, DefaultAccount: account, Clock: func() time.Time { return now }})
	ctx := context.Background()
	def := `{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays", "visitors"],
		"dimensions": ["city"], "distinct": [{"metric": "visitors", "of": "viewer", "kind": "distinct"}],
		"periods": [{"unit": "hour"}, {"unit": "all"}]%s}`
	if _, _, err := svc.Put(ctx, "sharded", fmt.Appendf(nil, def, `, "commit_shards": 4`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Put(ctx, "one", fmt.Appendf(nil, def, "")); err != nil {
		t.Fatal(err)
	}
	var evs []string
	for i := range 60 {
		evs = append(evs, fmt.Sprintf(`{"id": "e%d", "time": %q, "channel": "c%d", "city": "city%d", "viewer": "v%d", "plays": %d}`,
			i, now.Add(-time.Duration(i)*time.Minute).Format(time.RFC3339), i%5, i%7, i%9, i%4+1))
	}
	body := []byte("[" + strings.Join(evs, ",") + "]")
	if _, err := svc.Ingest(ctx, "sharded", body); herald.ErrorCode(err) != herald.EUnavailable {
		t.Fatalf("first send, shard 2 failing: %v; want unavailable", err)
	}
	res, err := svc.Ingest(ctx, "sharded", body)
	if err != nil || res.Accepted != 0 || res.Duplicates != len(evs) {
		t.Fatalf("sent again: %+v, %v; want every event a duplicate (shard 0 counted them the first time)", res, err)
	}
	if _, err := svc.Ingest(ctx, "one", body); err != nil {
		t.Fatal(err)
	}
	for c := range 5 {
		sel := rollup.Selector{Scope: map[string]string{"channel": fmt.Sprint("c", c)}, Dim: "city"}
		for _, u := range []rollup.Unit{rollup.Hour, rollup.All} {
			rng := rollup.Range{Unit: u, From: now.Add(-2 * time.Hour), To: now.Add(time.Hour)}
			if u == rollup.All {
				rng = rollup.Range{Unit: u}
			}
			q := rollup.TopQuery{Selector: sel, Range: rng, N: 10}
			want, err := svc.Top(ctx, "one", q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := svc.Top(ctx, "sharded", q)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got.Values) != fmt.Sprint(want.Values) || len(got.Values) == 0 {
				t.Fatalf("channel c%d, %s: sharded %v, want %v", c, u, got.Values, want.Values)
			}
		}
	}
}
