package rollup_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
)

// now is the services' clock in these tests.
var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func newService(t *testing.T) *rollup.Service {
	t.Helper()
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return rollup.NewService(rollup.Config{Store: db.Rollups(), Clock: func() time.Time { return now }, DefaultAccount: "000000000000"})
}

const videoDef = `{
  "event": {"id": "id", "time": "time"},
  "scopes": [["channel"], ["channel", "video"]],
  "metrics": ["plays", "viewers"],
  "dimensions": ["country", "city", "site"],
  "drilldowns": [["city", "site"]],
  "periods": [{"unit": "hour"}, {"unit": "day"}, {"unit": "all"}]
}`

func put(t *testing.T, s *rollup.Service, ctx context.Context, name, body string) *rollup.Definition {
	t.Helper()
	d, _, err := s.Put(ctx, name, []byte(body))
	if err != nil {
		t.Fatalf("Put %s: %v", name, err)
	}
	return d
}

func TestPutDefinition(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	d, created, err := s.Put(ctx, "video", []byte(videoDef))
	if err != nil || !created || d.Name != "video" || d.Account != "000000000000" {
		t.Fatalf("Put = %+v, %v, %v", d, created, err)
	}
	// Idempotent, and a new retention keeps the counts (same ID).
	again, created, err := s.Put(ctx, "video", []byte(strings.Replace(videoDef, `{"unit": "day"}`, `{"unit": "day", "retention": "30d"}`, 1)))
	if err != nil || created || again.ID != d.ID {
		t.Fatalf("Put again = %+v, %v, %v; want the same rollup", again, created, err)
	}
	tests := []struct {
		name, body, code, prefix string
	}{
		{"another shape", strings.Replace(videoDef, `"viewers"`, `"likes"`, 1), herald.EConflict, "rollup video exists"},
		{"unknown member", `{"scopes": [["a"]], "metric": ["m"]}`, herald.EInvalid, "metric: "},
		{"wrong type", `{"scopes": "channel"}`, herald.EInvalid, "scopes: "},
		{"another name", `{"name": "other"}`, herald.EInvalid, "name: "},
		{"an id", strings.Replace(videoDef, `"event"`, `"id": "0f1e2d3c-0000-1000-8000-000000000000", "event"`, 1), herald.EInvalid, "id: "},
		{"not JSON", `{"scopes": [`, herald.EInvalid, "definition: "},
		{"two values", videoDef + " {}", herald.EInvalid, "definition: "},
		{"bad scope", strings.Replace(videoDef, `["channel"],`, `["chan nel"],`, 1), herald.EInvalid, "scopes[0][0]: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.Put(ctx, "video", []byte(tc.body))
			var he *herald.Error
			if herald.ErrorCode(err) != tc.code || !asError(err, &he) || !strings.HasPrefix(he.Message, tc.prefix) {
				t.Fatalf("Put: %v; want %s starting %q", err, tc.code, tc.prefix)
			}
		})
	}
	if _, _, err := s.Put(ctx, "bad/name", []byte(videoDef)); herald.ErrorCode(err) != herald.EInvalid {
		t.Fatalf("bad name: %v", err)
	}
}

func asError(err error, he **herald.Error) bool {
	e, ok := err.(*herald.Error)
	*he = e
	return ok
}

// TestAccountsAreApart: one account never sees, counts into or deletes
// another's rollup of the same name.
func TestAccountsAreApart(t *testing.T) {
	s := newService(t)
	a := access.WithIdentity(context.Background(), access.Identity{Account: "111111111111"})
	b := access.WithIdentity(context.Background(), access.Identity{Account: "222222222222"})
	put(t, s, a, "video", videoDef)
	if _, err := s.Get(b, "video"); herald.ErrorCode(err) != herald.ENotFound {
		t.Fatalf("b reads a's rollup: %v", err)
	}
	if _, err := s.Ingest(b, "video", []byte(`{"id": "x", "time": "2026-12-01T11:00:00Z", "channel": "c", "plays": 1}`)); herald.ErrorCode(err) != herald.ENotFound {
		t.Fatalf("b counts into a's rollup: %v", err)
	}
	if err := s.Delete(b, "video"); herald.ErrorCode(err) != herald.ENotFound {
		t.Fatalf("b deletes a's rollup: %v", err)
	}
	if list, err := s.List(b, "", 10); err != nil || len(list) != 0 {
		t.Fatalf("b lists %v, %v", list, err)
	}
	strict := rollup.NewService(rollup.Config{Store: nil, RequireIdentity: true})
	if _, err := strict.Get(context.Background(), "video"); herald.ErrorCode(err) != herald.EUnauthenticated {
		t.Fatalf("no identity: %v", err)
	}
}

// TestIngestCountsEachEventOnce: every event sent twice (in one body and
// in another), packed in arrays, with malformed and late events among
// them: totals equal the reference.
func TestIngestCountsEachEventOnce(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	put(t, s, ctx, "video", videoDef)
	var bodies [][]byte
	var want int64
	for i := range 200 {
		ev := map[string]any{"id": fmt.Sprint(i), "time": now.Add(-time.Duration(i) * time.Minute).Format(time.RFC3339), "channel": "c", "plays": i % 7}
		want += int64(i % 7)
		b, _ := json.Marshal([]any{ev, ev}) // twice in one body
		bodies = append(bodies, b)
	}
	late := `[{"id": "late", "time": "2026-11-20T00:00:00Z", "channel": "c", "plays": 100}, {"id": "bad", "time": "2026-12-01T10:00:00Z", "channel": "c", "plays": "1"}]`
	var total rollup.IngestResult
	for round := range 2 { // and every body again
		for _, b := range append(bodies, []byte(late)) {
			res, err := s.Ingest(ctx, "video", b)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			total.Accepted += res.Accepted
			total.Duplicates += res.Duplicates
			total.Malformed += res.Malformed
			total.Late += res.Late
		}
	}
	if total.Accepted != 200 || total.Duplicates != 600 || total.Malformed != 2 || total.Late != 2 {
		t.Fatalf("accepted %d, duplicates %d, malformed %d, late %d; want 200, 600, 2, 2", total.Accepted, total.Duplicates, total.Malformed, total.Late)
	}
	got, err := s.Totals(ctx, "video", rollup.Selector{Scope: map[string]string{"channel": "c"}}, rollup.Range{Unit: rollup.All}, []string{"plays"})
	if err != nil || got.Values[0] != want {
		t.Fatalf("all-time plays = %+v, %v; want %d", got, err, want)
	}
}

// refEvent is an event of the reference computation.
type refEvent struct {
	id                         string
	at                         time.Time
	channel, city, site, video string
	plays, viewers             int64
}

// TestQueriesMatchBruteForce: series, totals, top and drill-down answers
// equal sums computed directly over the events sent.
func TestQueriesMatchBruteForce(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	put(t, s, ctx, "video", videoDef)
	r := rand.New(rand.NewPCG(5, 6))
	var events []refEvent
	var body []map[string]any
	flush := func() {
		b, _ := json.Marshal(body)
		if _, err := s.Ingest(ctx, "video", b); err != nil {
			t.Fatal(err)
		}
		body = body[:0]
	}
	for i := range 3000 {
		e := refEvent{id: fmt.Sprint(i), at: now.Add(-time.Duration(r.IntN(3*24*3600)) * time.Second),
			channel: fmt.Sprint("c", r.IntN(3)), city: fmt.Sprint("city", r.IntN(40)), site: fmt.Sprint("s", r.IntN(5)),
			video: fmt.Sprint("v", r.IntN(4)), plays: int64(r.IntN(5)), viewers: int64(r.IntN(3) - 1)}
		events = append(events, e)
		body = append(body, map[string]any{"id": e.id, "time": e.at.Format(time.RFC3339), "channel": e.channel,
			"city": e.city, "site": e.site, "video": e.video, "plays": e.plays, "viewers": e.viewers})
		if len(body) == 100 {
			flush()
		}
	}
	day := func(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }
	from, to := day(now).Add(-48*time.Hour), day(now).Add(24*time.Hour)

	// Series of c1's plays and viewers per day, and its totals.
	series, err := s.Series(ctx, "video", rollup.Selector{Scope: map[string]string{"channel": "c1"}}, rollup.Range{Unit: rollup.Day, From: from, To: to}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(series.Points) != 3 {
		t.Fatalf("%d points, want 3", len(series.Points))
	}
	for _, p := range series.Points {
		var plays, viewers int64
		for _, e := range events {
			if e.channel == "c1" && day(e.at).Equal(p.Bucket) {
				plays, viewers = plays+e.plays, viewers+e.viewers
			}
		}
		if p.Values[0] != plays || p.Values[1] != viewers {
			t.Errorf("day %s: %v, want [%d %d]", p.Bucket, p.Values, plays, viewers)
		}
	}

	// Top cities of c2 by plays over the last two days, paged.
	type kv struct {
		v     string
		plays int64
	}
	refTop := func(keep func(refEvent) bool, value func(refEvent) string) []kv {
		sums := map[string]int64{}
		for _, e := range events {
			if keep(e) {
				sums[value(e)] += e.plays
			}
		}
		var out []kv
		for v, p := range sums {
			out = append(out, kv{v, p})
		}
		slices.SortFunc(out, func(a, b kv) int {
			if c := cmp.Compare(b.plays, a.plays); c != 0 {
				return c
			}
			return strings.Compare(a.v, b.v)
		})
		return out
	}
	inRange := func(e refEvent) bool { return !day(e.at).Before(from.Add(24*time.Hour)) && day(e.at).Before(to) }
	want := refTop(func(e refEvent) bool { return e.channel == "c2" && inRange(e) }, func(e refEvent) string { return e.city })
	if len(want) < 30 {
		t.Fatalf("the reference has %d cities: the test data is too thin", len(want))
	}
	var got []kv
	q := rollup.TopQuery{Selector: rollup.Selector{Scope: map[string]string{"channel": "c2"}, Dim: "city"},
		Range: rollup.Range{Unit: rollup.Day, From: from.Add(24 * time.Hour), To: to}, OrderBy: "plays", N: 7}
	for {
		top, err := s.Top(ctx, "video", q)
		if err != nil {
			t.Fatal(err)
		}
		if top.Distinct != len(want) {
			t.Fatalf("Distinct = %d, want %d", top.Distinct, len(want))
		}
		for _, v := range top.Values {
			got = append(got, kv{v.Value, v.Values[0]})
		}
		if top.Next == 0 {
			break
		}
		q.Offset = top.Next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("top cities\n got %v\nwant %v", got, want)
	}

	// Drill-down: top sites within city7 for c0 and video v1, all time.
	want = refTop(func(e refEvent) bool { return e.channel == "c0" && e.video == "v1" && e.city == "city7" }, func(e refEvent) string { return e.site })
	top, err := s.Top(ctx, "video", rollup.TopQuery{
		Selector: rollup.Selector{Scope: map[string]string{"channel": "c0", "video": "v1"}, Dim: "site", WithinDim: "city", WithinValue: "city7"},
		Range:    rollup.Range{Unit: rollup.All}, N: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 3 {
		t.Fatalf("the reference has %d sites: the test data is too thin", len(want))
	}
	got = got[:0]
	for _, v := range top.Values {
		got = append(got, kv{v.Value, v.Values[0]})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("sites within city7\n got %v\nwant %v", got, want)
	}

	// Totals of one city over the three days, by hour buckets.
	var wantPlays int64
	for _, e := range events {
		if e.channel == "c0" && e.city == "city3" && !e.at.Before(from) && e.at.Before(to) {
			wantPlays += e.plays
		}
	}
	tot, err := s.Totals(ctx, "video", rollup.Selector{Scope: map[string]string{"channel": "c0"}, Dim: "city", Value: "city3"},
		rollup.Range{Unit: rollup.Hour, From: from, To: to}, []string{"plays"})
	if err != nil || tot.Values[0] != wantPlays || tot.Buckets != 72 {
		t.Fatalf("totals = %+v, %v; want plays %d over 72 buckets", tot, err, wantPlays)
	}
}

func TestQueryErrors(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	put(t, s, ctx, "video", videoDef)
	c := map[string]string{"channel": "c"}
	day := rollup.Range{Unit: rollup.Day, From: now.Add(-48 * time.Hour), To: now}
	tests := []struct {
		name   string
		run    func() error
		prefix string
	}{
		{"unknown scope", func() error {
			_, err := s.Series(ctx, "video", rollup.Selector{Scope: map[string]string{"video": "v"}}, day, nil)
			return err
		}, "scope: "},
		{"unknown unit", func() error {
			_, err := s.Series(ctx, "video", rollup.Selector{Scope: c}, rollup.Range{Unit: rollup.Week, From: day.From, To: day.To}, nil)
			return err
		}, "unit: "},
		{"empty range", func() error {
			_, err := s.Series(ctx, "video", rollup.Selector{Scope: c}, rollup.Range{Unit: rollup.Day, From: now, To: now}, nil)
			return err
		}, "from: "},
		{"too many buckets", func() error {
			_, err := s.Series(ctx, "video", rollup.Selector{Scope: c}, rollup.Range{Unit: rollup.Hour, From: now.Add(-2000 * time.Hour), To: now}, nil)
			return err
		}, "to: "},
		{"unknown metric", func() error {
			_, err := s.Series(ctx, "video", rollup.Selector{Scope: c}, day, []string{"likes"})
			return err
		}, "metrics: "},
		{"dimension without value", func() error {
			_, err := s.Series(ctx, "video", rollup.Selector{Scope: c, Dim: "city"}, day, nil)
			return err
		}, "value: "},
		{"unknown dimension", func() error {
			_, err := s.Top(ctx, "video", rollup.TopQuery{Selector: rollup.Selector{Scope: c, Dim: "street"}, Range: day})
			return err
		}, "dimension: "},
		{"no drill-down", func() error {
			_, err := s.Top(ctx, "video", rollup.TopQuery{Selector: rollup.Selector{Scope: c, Dim: "city", WithinDim: "site", WithinValue: "x"}, Range: day})
			return err
		}, "within: "},
		{"top too large", func() error {
			_, err := s.Top(ctx, "video", rollup.TopQuery{Selector: rollup.Selector{Scope: c, Dim: "city"}, Range: day, N: rollup.MaxTop + 1})
			return err
		}, "n: "},
		{"order by unknown", func() error {
			_, err := s.Top(ctx, "video", rollup.TopQuery{Selector: rollup.Selector{Scope: c, Dim: "city"}, Range: day, OrderBy: "likes"})
			return err
		}, "order_by: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var he *herald.Error
			if !asError(err, &he) || he.Code != herald.EInvalid || !strings.HasPrefix(he.Message, tc.prefix) {
				t.Fatalf("%v; want invalid_argument starting %q", err, tc.prefix)
			}
		})
	}
}
