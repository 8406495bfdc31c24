package rollup

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// shardedVisits is visitsJSON with four commit shards.
func shardedVisits(t *testing.T) *Definition {
	return parseDef(t, strings.Replace(visitsJSON, `"name": "visits",`, `"name": "visits", "commit_shards": 4,`, 1))
}

// The batches of a rollup's commit shards split the rows and sights of
// one unsharded batch of the same events between them, each row and
// sight in exactly one, with the same sums; each holds every event's ID;
// Split of one batch of every row makes the same batches.
func TestShardBatchesPartitionTheRowsAndSights(t *testing.T) {
	d := shardedVisits(t)
	one := *d
	one.CommitShards = 0
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var events []Event
	for i := range 200 {
		events = append(events, parseOne(t, d, fmt.Sprintf(`{"id": "e%d", "time": %q, "channel": "c%d", "city": "city%d", "viewer": "v%d", "plays": %d}`,
			i, now.Add(-time.Duration(i)*time.Minute).Format(time.RFC3339), i%7, i%11, i%13, i%3+1)))
	}
	whole := NewBatch(&one)
	shards := make([]*Batch, d.Shards())
	for k := range shards {
		shards[k] = NewShardBatch(d, k)
	}
	for _, e := range events {
		whole.Add(e, now)
		for _, b := range shards {
			b.Add(e, now)
		}
	}
	rows := map[Row][]int64{}
	sights := map[Sight]time.Time{}
	for k, b := range shards {
		if b.Shard() != k || b.Events != len(events) || len(b.IDs()) != len(events) {
			t.Fatalf("shard %d: Shard %d, %d events, %d IDs; want every one of %d", k, b.Shard(), b.Events, len(b.IDs()), len(events))
		}
		if b.Len() == 0 {
			t.Fatalf("shard %d counts no row", k)
		}
		for r, sums := range b.Rows() {
			if _, twice := rows[r]; twice || d.ShardOf(r) != k {
				t.Fatalf("row %+v in shard %d: twice, or its shard is %d", r, k, d.ShardOf(r))
			}
			rows[r] = sums
		}
		for x, at := range b.Sights() {
			if _, twice := sights[x]; twice || d.ShardOf(x.Set) != k {
				t.Fatalf("sight %+v in shard %d: twice, or its set's shard is %d", x, k, d.ShardOf(x.Set))
			}
			sights[x] = at
		}
	}
	// Split of one batch of every row gives the same batches.
	all := NewSplitBatch(d)
	for _, e := range events {
		all.Add(e, now)
	}
	for k, b := range all.Split() {
		if b.Shard() != k || b.Events != shards[k].Events || !maps.Equal(b.ids, shards[k].ids) ||
			!maps.EqualFunc(b.Rows(), shards[k].Rows(), slices.Equal) || !maps.EqualFunc(b.Sights(), shards[k].Sights(), time.Time.Equal) {
			t.Fatalf("Split's shard %d differs from NewShardBatch's", k)
		}
	}
	if !maps.EqualFunc(rows, whole.Rows(), slices.Equal) {
		t.Fatalf("the shards' rows (%d) differ from one batch's (%d)", len(rows), whole.Len())
	}
	if !maps.EqualFunc(sights, whole.Sights(), time.Time.Equal) {
		t.Fatalf("the shards' sights (%d) differ from one batch's (%d)", len(sights), len(whole.Sights()))
	}
}

// Every bucket of a row, and its first_seen set (All), fall in the
// row's shard: a windowed trigger and a late first sighting stay in one.
func TestShardOfKeepsARowsBucketsTogether(t *testing.T) {
	d := shardedVisits(t)
	seen := map[int]bool{}
	for i := range 64 {
		base := Row{Scope: 0, Key: fmt.Sprint("c", i), Dim: i%2 - 1, Value: fmt.Sprint("city", i)}
		if base.Dim == Total {
			base.Value = ""
		}
		k := d.ShardOf(base)
		seen[k] = true
		for _, u := range []Unit{Hour, Day, All} {
			for _, bucket := range []int64{0, 3600, 86400 * 9} {
				r := base
				r.Unit, r.Bucket = u, bucket
				if got := d.ShardOf(r); got != k {
					t.Fatalf("row %+v in shard %d, its identity in %d", r, got, k)
				}
			}
		}
	}
	if len(seen) != d.Shards() {
		t.Fatalf("64 rows fall in %d shards of %d", len(seen), d.Shards())
	}
	if one := parseDef(t, visitsJSON); one.Shards() != 1 || one.ShardOf(Row{Key: "x"}) != 0 || one.ShardID(0) != one.ID {
		t.Fatalf("a rollup of one shard: %d shards, row in %d", one.Shards(), one.ShardOf(Row{Key: "x"}))
	}
	if d.ShardID(1) == d.ShardID(2) || d.ShardID(1) == d.ID || d.ShardID(0) != d.ID {
		t.Fatal("shard IDs are not distinct, or shard 0's is not the rollup's")
	}
}

// The number of commit shards is fixed at creation: a definition put
// again without it keeps it, one giving another is another shape.
func TestCommitShardsFixedAtCreation(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	old := shardedVisits(t)
	if again := parseDef(t, visitsJSON); !again.Evolve(old, at) || again.Shards() != 4 {
		t.Fatalf("put again without commit_shards: %d shards", again.Shards())
	}
	if same := shardedVisits(t); !same.Evolve(old, at) {
		t.Fatal("put again with the same commit_shards refused")
	}
	other := parseDef(t, strings.Replace(visitsJSON, `"name": "visits",`, `"name": "visits", "commit_shards": 8,`, 1))
	if other.Evolve(old, at) {
		t.Fatal("another number of commit shards taken as the same rollup")
	}
	for _, n := range []string{"-1", "65"} {
		d, err := decodeDefinition([]byte(strings.Replace(visitsJSON, `"name": "visits",`, `"name": "visits", "commit_shards": `+n+`,`, 1)))
		if err == nil {
			err = d.Normalize()
		}
		if err == nil || !strings.Contains(err.Error(), "commit_shards") {
			t.Errorf("commit_shards %s: %v", n, err)
		}
	}
}
