package rolluptest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heraldmq/herald/rollup"
)

// day is the day bucket of the suite's events (event: an hour before now).
var day = now.Add(-time.Hour).Truncate(24 * time.Hour)

// minutes is the suite's clock m minutes later.
func minutes(m int) time.Time { return now.Add(time.Duration(m) * time.Minute) }

// defineWithDayTriggers stores a definition with two triggers: "hot", on
// a channel's daily plays reaching 3, and "never", at a million.
func (e *env) defineWithDayTriggers(name string) *rollup.Definition {
	return e.defineWith(name, func(d *rollup.Definition) {
		topic := "arn:aws:sns:us-east-1:" + e.account + ":alerts"
		d.Triggers = []rollup.Trigger{
			{ID: "hot", Metric: "plays", Scope: map[string]string{"channel": "*"}, Unit: rollup.Day, Threshold: 3, TopicARN: topic},
			{ID: "never", Metric: "plays", Scope: map[string]string{"channel": "*"}, Unit: rollup.Day, Threshold: 1e6, TopicARN: topic},
		}
	})
}

// last returns the last firings of d's triggers.
func (e *env) last(d *rollup.Definition) map[string]rollup.LastFiring {
	e.t.Helper()
	got, err := e.s.LastFirings(e.ctx, d)
	if err != nil {
		e.t.Fatalf("LastFirings: %v", err)
	}
	return got
}

// wantLast fails unless trigger "hot" of d has last firing want.
func (e *env) wantLast(d *rollup.Definition, want rollup.LastFiring) {
	e.t.Helper()
	got, ok := e.last(d)["hot"]
	if !ok || got.FiringID != want.FiringID || !slices.Equal(got.Scope, want.Scope) || !got.Bucket.Equal(want.Bucket) ||
		got.Total != want.Total || !got.At.Equal(want.At) || got.Published != want.Published || !got.PublishedAt.Equal(want.PublishedAt) ||
		got.Error != want.Error || !got.ErrorAt.Equal(want.ErrorAt) {
		e.t.Fatalf("last firing of hot = %+v (found %v)\nwant %+v", got, ok, want)
	}
}

// firingOf returns the pending firing of d on channel c.
func (e *env) firingOf(d *rollup.Definition, c string) rollup.Firing {
	e.t.Helper()
	for _, f := range e.pending(d) {
		if f.Scope[0] == c {
			return f
		}
	}
	e.t.Fatalf("no firing pending for channel %s", c)
	return rollup.Firing{}
}

// testLastFiring: the commit that fires a trigger makes the firing its
// last one, with the row, the bucket, the value and the time; of several
// in one commit, the same one on every engine (rollup.LastOfEach).
func testLastFiring(e *env) {
	d := e.defineWithDayTriggers("r")
	e.commit(d, event("a", "c", "", 2, 0))
	if got := e.last(d); len(got) != 0 {
		e.t.Fatalf("last firings below the threshold: %+v", got)
	}
	e.commit(d, event("b", "c", "", 2, 0))
	f := e.firingOf(d, "c")
	e.wantLast(d, rollup.LastFiring{FiringID: f.ID, Scope: []string{"c"}, Bucket: day, Total: 4, At: now})
	if l, ok := e.last(d)["never"]; ok {
		e.t.Fatalf("a trigger that never fired has a last firing: %+v", l)
	}
	e.commit(d, event("x", "x", "", 5, 0), event("y", "y", "", 7, 0))
	x, y := e.firingOf(d, "x"), e.firingOf(d, "y")
	want := rollup.LastFiring{FiringID: x.ID, Scope: []string{"x"}, Bucket: day, Total: 5, At: now}
	if y.ID > x.ID {
		want = rollup.LastFiring{FiringID: y.ID, Scope: []string{"y"}, Bucket: day, Total: 7, At: now}
	}
	e.wantLast(d, want)
}

// testLastFiringOutcome: a failed publish shows the latest failure until
// the publish, which clears it; a failure after it (another node's
// attempt) or the outcome of an older firing changes nothing.
func testLastFiringOutcome(e *env) {
	d := e.defineWithDayTriggers("r")
	e.commit(d, event("a", "c", "", 3, 0))
	f := e.firingOf(d, "c")
	fired := rollup.LastFiring{FiringID: f.ID, Scope: []string{"c"}, Bucket: day, Total: 3, At: now}
	failedAt := func(m int, reason string) rollup.LastFiring {
		l := fired
		l.Error, l.ErrorAt = reason, minutes(m)
		return l
	}
	published := fired
	published.Published, published.PublishedAt = true, minutes(3)
	steps := []struct {
		name string
		act  func() error
		want rollup.LastFiring
	}{
		{"failed", func() error { return e.s.FiringFailed(e.ctx, f, minutes(1), "ServiceUnavailable: try later") }, failedAt(1, "ServiceUnavailable: try later")},
		// The later failure sorts first by its text: the time decides.
		{"failed again", func() error { return e.s.FiringFailed(e.ctx, f, minutes(2), "NotFound: Topic does not exist") }, failedAt(2, "NotFound: Topic does not exist")},
		{"published", func() error { return e.s.FiringDone(e.ctx, f, minutes(3)) }, published},
		{"failed after the publish", func() error { return e.s.FiringFailed(e.ctx, f, minutes(4), "ServiceUnavailable: late") }, published},
		{"published again", func() error { return e.s.FiringDone(e.ctx, f, minutes(5)) }, published},
	}
	for _, s := range steps {
		if err := s.act(); err != nil {
			e.t.Fatalf("%s: %v", s.name, err)
		}
		e.t.Logf("after %s", s.name)
		e.wantLast(d, s.want)
	}
	if got := e.pending(d); len(got) != 0 {
		e.t.Fatalf("pending after FiringDone: %+v", got)
	}
	e.commit(d, event("b", "other", "", 3, 0))
	g := e.firingOf(d, "other")
	newer := rollup.LastFiring{FiringID: g.ID, Scope: []string{"other"}, Bucket: day, Total: 3, At: now}
	if err := e.s.FiringDone(e.ctx, f, minutes(6)); err != nil {
		e.t.Fatal(err)
	}
	if err := e.s.FiringFailed(e.ctx, f, minutes(6), "ServiceUnavailable: old"); err != nil {
		e.t.Fatal(err)
	}
	e.wantLast(d, newer)
	if err := e.s.FiringDone(e.ctx, g, minutes(7)); err != nil {
		e.t.Fatal(err)
	}
	newer.Published, newer.PublishedAt = true, minutes(7)
	e.wantLast(d, newer)
}

// testLastFiringForgotten: a trigger the definition drops loses its last
// firing, and added again starts with none, though a firing of it is
// published afterwards; a deleted rollup's go with it, and a rollup
// defined again under its name starts with none.
func testLastFiringForgotten(e *env) {
	d := e.defineWithDayTriggers("r")
	e.commit(d, event("a", "c", "", 3, 0))
	f := e.firingOf(d, "c")
	dropped := d.Clone()
	dropped.Triggers = dropped.Triggers[1:]
	if err := dropped.Normalize(); err != nil {
		e.t.Fatal(err)
	}
	for _, put := range []*rollup.Definition{dropped, d} {
		if err := e.s.PutDefinition(e.ctx, put); err != nil {
			e.t.Fatal(err)
		}
		if got := e.last(d); len(got) != 0 { // read with the trigger: nothing kept
			e.t.Fatalf("last firings once %d trigger(s) defined: %+v", len(put.Triggers), got)
		}
	}
	if err := e.s.FiringDone(e.ctx, f, minutes(1)); err != nil {
		e.t.Fatal(err)
	}
	if got := e.last(d); len(got) != 0 {
		e.t.Fatalf("the publish of the dropped trigger's firing brought it back: %+v", got)
	}
	e.commit(d, event("b", "other", "", 3, 0))
	g := e.firingOf(d, "other")
	e.wantLast(d, rollup.LastFiring{FiringID: g.ID, Scope: []string{"other"}, Bucket: day, Total: 3, At: now})

	if err := e.s.DeleteDefinition(e.ctx, e.account, "r"); err != nil {
		e.t.Fatal(err)
	}
	if got := e.last(d); len(got) != 0 {
		e.t.Fatalf("last firings of a deleted rollup: %+v", got)
	}
	again := e.defineWithDayTriggers("r")
	if got := e.last(again); len(got) != 0 {
		e.t.Fatalf("last firings of a rollup defined again: %+v", got)
	}
}

// testShardTriggers: a rollup of several commit shards, fed by writers
// sending each event twice at once, fires its trigger once per channel
// and day whichever shard holds the channel's rows; its last firing is
// one of them, and tells when that one was published; a delete forgets
// the shards' events and last firings.
func testShardTriggers(e *env) {
	e.shards = suiteShards
	svc := e.service(e.s)
	def := fmt.Sprintf(`{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays"],
		"dimensions": ["city"], "periods": [{"unit": "day"}, {"unit": "all"}],
		"triggers": [{"id": "hot", "metric": "plays", "scope": {"channel": "*"}, "unit": "day", "threshold": 3,
			"topic_arn": "arn:aws:sns:us-east-1:%s:alerts"}]}`, e.account)
	if _, _, err := svc.Put(e.ctx, "shards", []byte(def)); err != nil {
		e.t.Fatalf("Put: %v", err)
	}
	d, err := e.s.GetDefinition(e.ctx, e.account, "shards")
	if err != nil || d.Shards() != suiteShards {
		e.t.Fatalf("GetDefinition: %v shards, %v", d.Shards(), err)
	}
	const channels = 24
	used := map[int]bool{}
	var events []map[string]any
	for c := range channels {
		ch := fmt.Sprintf("c%d", c)
		used[d.ShardOf(rollup.Row{Key: ch, Unit: rollup.Day, Dim: rollup.Total})] = true
		for i := range 4 {
			events = append(events, map[string]any{"id": fmt.Sprintf("%s-%d", ch, i), "time": now.Add(-time.Hour).Format(time.RFC3339),
				"channel": ch, "city": [...]string{"Paris", "Lyon"}[i%2], "plays": 1})
		}
	}
	if len(used) < 2 {
		e.t.Fatalf("the channels' total rows fall in %d shard of %d", len(used), suiteShards)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			// Writers w and w+2 send the same half of the events.
			for i := w % 2; i < len(events); i += 2 * 8 {
				body, _ := json.Marshal(events[i:min(i+8, len(events))])
				if _, err := svc.Ingest(e.ctx, "shards", body); err != nil {
					e.t.Errorf("Ingest: %v", err)
				}
			}
		})
	}
	wg.Wait()
	// The other half, once.
	for i := 8; i < len(events); i += 16 {
		body, _ := json.Marshal(events[i:min(i+8, len(events))])
		if _, err := svc.Ingest(e.ctx, "shards", body); err != nil {
			e.t.Fatalf("Ingest: %v", err)
		}
	}
	for c := range channels {
		e.wantRow(d, rollup.Row{Key: fmt.Sprintf("c%d", c), Unit: rollup.All, Dim: rollup.Total}, []int64{4})
	}
	fired := map[string]rollup.Firing{}
	for _, f := range e.pending(d) {
		if _, ok := fired[f.Scope[0]]; ok || f.Total < 3 {
			e.t.Fatalf("firing %+v: a second one of its channel, or below the threshold", f)
		}
		fired[f.Scope[0]] = f
	}
	if len(fired) != channels {
		e.t.Fatalf("%d channels fired, want %d", len(fired), channels)
	}
	last, ok := e.last(d)["hot"]
	f, known := fired[strings.Join(last.Scope, rollup.Sep)]
	if !ok || !known || f.ID != last.FiringID {
		e.t.Fatalf("last firing %+v (found %v) is none of the firings", last, ok)
	}
	for _, f := range fired {
		if err := e.s.FiringDone(e.ctx, f, minutes(1)); err != nil {
			e.t.Fatal(err)
		}
	}
	if got := e.last(d)["hot"]; got.FiringID != last.FiringID || !got.Published || !got.PublishedAt.Equal(minutes(1)) {
		e.t.Fatalf("last firing after every publish = %+v, want %s published", got, last.FiringID)
	}
	if err := e.s.DeleteDefinition(e.ctx, e.account, "shards"); err != nil {
		e.t.Fatal(err)
	}
	if got := e.last(d); len(got) != 0 {
		e.t.Fatalf("last firings after delete: %+v", got)
	}
	for k := range suiteShards {
		got, err := e.s.Committed(e.ctx, d, k, []rollup.EventKey{{ID: "c0-0", Time: now.Add(-time.Hour)}}, now)
		if err != nil || len(got) != 0 {
			e.t.Fatalf("shard %d: Committed after delete = %v, %v", k, got, err)
		}
	}
}
