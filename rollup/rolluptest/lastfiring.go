package rolluptest

import (
	"slices"
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
