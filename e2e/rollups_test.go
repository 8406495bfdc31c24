package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"
	rabbit "github.com/rabbitmq/amqp091-go"
)

// call sends a JSON request to s and decodes the answer into out (if not
// nil), returning the status.
func call(t *testing.T, s *server, method, path string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, ok := body.([]byte)
		if !ok {
			b, _ = json.Marshal(body)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(testContext(t), method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

// TestRollupsOverHTTP: define a rollup, post events (each twice, packed
// in arrays), read the top cities, a drill-down, a series and totals, on
// a herald serve process; then delete it.
func TestRollupsOverHTTP(t *testing.T) {
	eachEngine(t, func(t *testing.T, e engine) {
		testRollupsOverHTTP(t, e.start(t, "", "--ws-anonymous", "true")) // Cassandra's default is false
	})
}

func testRollupsOverHTTP(t *testing.T, s *server) {
	def := map[string]any{
		"event":      map[string]any{"id": "id", "time": "time"},
		"scopes":     [][]string{{"channel"}},
		"metrics":    []string{"plays"},
		"dimensions": []string{"city", "site"},
		"drilldowns": [][]string{{"city", "site"}},
		"periods":    []map[string]any{{"unit": "day"}, {"unit": "all"}},
	}
	if st := call(t, s, http.MethodPut, "/v1/rollups/video", def, nil); st != http.StatusCreated {
		t.Fatalf("PUT: %d, want 201", st)
	}
	if st := call(t, s, http.MethodPut, "/v1/rollups/video", def, nil); st != http.StatusOK {
		t.Fatalf("PUT again: %d, want 200", st)
	}
	var bad struct {
		Error struct{ Code, Message string }
	}
	if st := call(t, s, http.MethodPut, "/v1/rollups/other", map[string]any{"scopes": "x"}, &bad); st != http.StatusBadRequest || bad.Error.Code != "invalid_argument" {
		t.Fatalf("bad PUT: %d %+v", st, bad)
	}
	now := time.Now().UTC()
	cities := map[string]int{"Paris": 5, "Oslo": 3, "Lima": 1}
	var events []map[string]any
	n := 0
	for city, count := range cities {
		for i := range count {
			events = append(events, map[string]any{"id": fmt.Sprint(n), "time": now.Add(-time.Minute).Format(time.RFC3339),
				"channel": "c1", "city": city, "site": fmt.Sprint("s", i%2), "plays": 2})
			n++
		}
	}
	var res struct{ Accepted, Duplicates int }
	for range 2 {
		if st := call(t, s, http.MethodPost, "/v1/rollups/video/events", events, &res); st != http.StatusOK {
			t.Fatalf("POST events: %d", st)
		}
	}
	if res.Accepted != 0 || res.Duplicates != 9 {
		t.Fatalf("second post: %+v, want 0 accepted, 9 duplicates", res)
	}
	var top struct {
		Values []struct {
			Value  string
			Values []int64
		}
	}
	q := url.Values{"scope.channel": {"c1"}, "unit": {"all"}, "dimension": {"city"}}
	if st := call(t, s, http.MethodGet, "/v1/rollups/video/top?"+q.Encode(), nil, &top); st != http.StatusOK {
		t.Fatalf("top: %d", st)
	}
	if got := fmt.Sprint(top.Values); got != "[{Paris [10]} {Oslo [6]} {Lima [2]}]" {
		t.Fatalf("top cities = %s", got)
	}
	q = url.Values{"scope.channel": {"c1"}, "unit": {"all"}, "dimension": {"site"}, "within.city": {"Paris"}}
	if st := call(t, s, http.MethodGet, "/v1/rollups/video/top?"+q.Encode(), nil, &top); st != http.StatusOK {
		t.Fatalf("drill-down: %d", st)
	}
	if got := fmt.Sprint(top.Values); got != "[{s0 [6]} {s1 [4]}]" {
		t.Fatalf("sites within Paris = %s", got)
	}
	day := now.Truncate(24 * time.Hour)
	q = url.Values{"scope.channel": {"c1"}, "unit": {"day"}, "from": {day.Add(-24 * time.Hour).Format(time.RFC3339)}, "to": {day.Add(24 * time.Hour).Format(time.RFC3339)}}
	var series struct{ Points []struct{ Values []int64 } }
	if st := call(t, s, http.MethodGet, "/v1/rollups/video/series?"+q.Encode(), nil, &series); st != http.StatusOK {
		t.Fatalf("series: %d", st)
	}
	var totals struct{ Values []int64 }
	call(t, s, http.MethodGet, "/v1/rollups/video/totals?"+q.Encode(), nil, &totals)
	wantToday := int64(18)
	if now.Sub(day) < time.Minute { // the events fell on yesterday
		if fmt.Sprint(series.Points) != fmt.Sprintf("[{[%d]} {[0]}]", wantToday) {
			t.Fatalf("series = %v", series.Points)
		}
	} else if fmt.Sprint(series.Points) != fmt.Sprintf("[{[0]} {[%d]}]", wantToday) {
		t.Fatalf("series = %v", series.Points)
	}
	if len(totals.Values) != 1 || totals.Values[0] != wantToday {
		t.Fatalf("totals = %v, want [18]", totals.Values)
	}
	trig := map[string]any{"metric": "plays", "scope": map[string]string{"channel": "*"}, "unit": "day", "threshold": 100,
		"topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
	var withTrigger struct {
		Triggers []struct{ ID, Direction string }
	}
	if st := call(t, s, http.MethodPut, "/v1/rollups/video/triggers/hundred", trig, &withTrigger); st != http.StatusOK ||
		len(withTrigger.Triggers) != 1 || withTrigger.Triggers[0].ID != "hundred" || withTrigger.Triggers[0].Direction != "up" {
		t.Fatalf("PUT trigger: %d %+v", st, withTrigger)
	}
	trig["unit"] = "week"
	if st := call(t, s, http.MethodPut, "/v1/rollups/video/triggers/bad", trig, &bad); st != http.StatusBadRequest || bad.Error.Message[:len("triggers[1].unit")] != "triggers[1].unit" {
		t.Fatalf("bad trigger: %d %+v", st, bad)
	}
	if st := call(t, s, http.MethodDelete, "/v1/rollups/video/triggers/hundred", nil, nil); st != http.StatusNoContent {
		t.Fatalf("DELETE trigger: %d", st)
	}
	// The same top over a WebSocket query frame.
	ws := dialWS(t, s)
	id := ws.request(map[string]any{"type": "query", "query": "rollup_top", "rollup": "video", "scope": map[string]string{"channel": "c1"},
		"unit": "all", "dimension": "site", "within": map[string]string{"city": "Paris"}})
	frame := ws.next(5*time.Second, func(f map[string]any) bool { return f["id"] == id })
	if frame["type"] != "result" || fmt.Sprint(frame["rollup"].(map[string]any)["values"]) != "[map[value:s0 values:[6]] map[value:s1 values:[4]]]" {
		t.Fatalf("WebSocket rollup_top: %v", frame)
	}
	if st := call(t, s, http.MethodDelete, "/v1/rollups/video", nil, nil); st != http.StatusNoContent {
		t.Fatalf("DELETE: %d", st)
	}
	if st := call(t, s, http.MethodGet, "/v1/rollups/video", nil, nil); st != http.StatusNotFound {
		t.Fatalf("GET after DELETE: %d", st)
	}
}

// TestRollupCLI drives a rollup with 'herald rollup' commands.
func TestRollupCLI(t *testing.T) {
	s := startServer(t, "")
	cli := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(heraldBin, append(append([]string{"rollup"}, args[:1]...), append([]string{"--server", s.URL}, args[1:]...)...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("herald rollup %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	cli(`{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays"], "dimensions": ["city"], "periods": [{"unit": "all"}]}`, "put", "video")
	now := time.Now().UTC().Format(time.RFC3339)
	sent := cli(fmt.Sprintf(`[{"id": "1", "time": %q, "channel": "c1", "city": "Paris", "plays": 2}, {"id": "2", "time": %q, "channel": "c1", "city": "Oslo", "plays": 1}]`, now, now), "send", "video")
	if !strings.Contains(sent, `"accepted": 2`) {
		t.Fatalf("send: %s", sent)
	}
	var top struct {
		Values []struct {
			Value  string
			Values []int64
		}
	}
	if err := json.Unmarshal([]byte(cli("", "top", "--scope", "channel=c1", "--dimension", "city", "video")), &top); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(top.Values) != "[{Paris [2]} {Oslo [1]}]" {
		t.Fatalf("top = %v", top.Values)
	}
	if out := cli("", "delete", "video"); !strings.Contains(out, "deleted video") {
		t.Fatalf("delete: %s", out)
	}
}

// TestRollupComputedDimensionsOverHTTP: a dimension computed from each
// event (a lookup with a default, the hour of day in the rollup's zone,
// a prefix as the scope) is counted and ranked like one the events carry,
// on each engine; a bad computed member is refused naming it.
func TestRollupComputedDimensionsOverHTTP(t *testing.T) {
	eachEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		def := map[string]any{
			"event":      map[string]any{"id": "id", "time": "time"},
			"scopes":     [][]string{{"initial"}},
			"metrics":    []string{"plays"},
			"dimensions": []string{"continent", "hour"},
			"computed": []map[string]any{
				{"name": "continent", "fn": "lookup", "member": "country", "table": map[string]string{"FR": "Europe", "DE": "Europe", "JP": "Asia"}, "default": "other"},
				{"name": "hour", "fn": "hour_of_day"},
				{"name": "initial", "fn": "prefix", "member": "channel", "length": 1},
			},
			"periods":   []map[string]any{{"unit": "all"}},
			"time_zone": "Asia/Tokyo",
		}
		if st := call(t, s, http.MethodPut, "/v1/rollups/geo", def, nil); st != http.StatusCreated {
			t.Fatalf("PUT: %d, want 201", st)
		}
		at := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour + 5*time.Minute)
		var events []map[string]any
		for i, country := range []string{"FR", "DE", "JP", "US", "FR", "BR"} {
			events = append(events, map[string]any{"id": fmt.Sprint(i), "time": at.Format(time.RFC3339), "channel": "news", "country": country, "hour": "ignored", "plays": 1})
		}
		var res struct{ Accepted int }
		if st := call(t, s, http.MethodPost, "/v1/rollups/geo/events", events, &res); st != http.StatusOK || res.Accepted != 6 {
			t.Fatalf("POST events: %d %+v", st, res)
		}
		var top struct {
			Values []struct {
				Value  string
				Values []int64
			}
		}
		q := url.Values{"scope.initial": {"n"}, "unit": {"all"}, "dimension": {"continent"}}
		if st := call(t, s, http.MethodGet, "/v1/rollups/geo/top?"+q.Encode(), nil, &top); st != http.StatusOK {
			t.Fatalf("top continents: %d", st)
		}
		if got := fmt.Sprint(top.Values); got != "[{Europe [3]} {other [2]} {Asia [1]}]" {
			t.Errorf("top continents = %s", got)
		}
		q.Set("dimension", "hour")
		if st := call(t, s, http.MethodGet, "/v1/rollups/geo/top?"+q.Encode(), nil, &top); st != http.StatusOK {
			t.Fatalf("top hours: %d", st)
		}
		tokyo := fmt.Sprintf("%02d", at.In(time.FixedZone("JST", 9*3600)).Hour())
		if got, want := fmt.Sprint(top.Values), "[{"+tokyo+" [6]}]"; got != want {
			t.Errorf("top hours = %s, want %s (Tokyo's hour of %s)", got, want, at.Format(time.RFC3339))
		}
		var bad struct {
			Error struct{ Code, Message string }
		}
		def["computed"] = []map[string]any{{"name": "continent", "fn": "lookup", "member": "country"}}
		def["dimensions"], def["scopes"] = []string{"continent"}, [][]string{{"channel"}}
		if st := call(t, s, http.MethodPut, "/v1/rollups/geo2", def, &bad); st != http.StatusBadRequest || !strings.HasPrefix(bad.Error.Message, "computed[0].table:") {
			t.Errorf("a lookup without a table: %d %+v", st, bad)
		}
	})
}

// TestRollupDistinctVisitorsOverHTTP: visitors (distinct viewers) and
// first-time visitors over HTTP on each engine: a viewer counts once per
// bucket and once ever, a redelivered body counts nothing, and top ranks
// by a distinct metric.
func TestRollupDistinctVisitorsOverHTTP(t *testing.T) {
	eachEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		def := map[string]any{
			"event":      map[string]any{"id": "id", "time": "time"},
			"scopes":     [][]string{{"site"}},
			"metrics":    []string{"views", "visitors", "new_visitors"},
			"dimensions": []string{"page"},
			"distinct": []map[string]string{{"metric": "visitors", "of": "viewer", "kind": "distinct"},
				{"metric": "new_visitors", "of": "viewer", "kind": "first_seen"}},
			"periods": []map[string]any{{"unit": "hour"}, {"unit": "day"}},
		}
		if st := call(t, s, http.MethodPut, "/v1/rollups/visits", def, nil); st != http.StatusCreated {
			t.Fatalf("PUT: %d, want 201", st)
		}
		h0 := time.Now().UTC().Truncate(time.Hour).Add(-2 * time.Hour)
		views := []struct {
			hour         int
			page, viewer string
		}{{0, "home", "ann"}, {0, "home", "ann"}, {0, "news", "bob"}, {1, "home", "bob"}, {1, "news", "cy"}, {1, "news", "ann"}, {1, "news", "cy"}}
		var events []map[string]any
		for i, v := range views {
			events = append(events, map[string]any{"id": fmt.Sprint(i), "time": h0.Add(time.Duration(v.hour)*time.Hour + time.Duration(i)*time.Minute).Format(time.RFC3339),
				"site": "s", "page": v.page, "viewer": v.viewer, "views": 1})
		}
		for round, wantAccepted := range []int{7, 0} { // the second time, a redelivery
			var res struct{ Accepted, Duplicates int }
			if st := call(t, s, http.MethodPost, "/v1/rollups/visits/events", events, &res); st != http.StatusOK || res.Accepted != wantAccepted {
				t.Fatalf("POST %d: %d %+v, want %d accepted", round, st, res, wantAccepted)
			}
		}
		q := url.Values{"scope.site": {"s"}, "unit": {"hour"}, "from": {h0.Format(time.RFC3339)}, "to": {h0.Add(2 * time.Hour).Format(time.RFC3339)}}
		var series struct{ Points []struct{ Values []int64 } }
		if st := call(t, s, http.MethodGet, "/v1/rollups/visits/series?"+q.Encode(), nil, &series); st != http.StatusOK {
			t.Fatalf("series: %d", st)
		}
		// Hour 0: 3 views, ann and bob, both new; hour 1: 4 views, bob, cy and ann, cy new.
		if got := fmt.Sprint(series.Points); got != "[{[3 2 2]} {[4 3 1]}]" {
			t.Errorf("hourly series = %s, want [{[3 2 2]} {[4 3 1]}]", got)
		}
		var totals struct{ Values []int64 }
		if st := call(t, s, http.MethodGet, "/v1/rollups/visits/totals?"+q.Encode(), nil, &totals); st != http.StatusOK {
			t.Fatalf("totals: %d", st)
		}
		if got := fmt.Sprint(totals.Values); got != "[7 5 3]" { // visitors: the hours' sum; new visitors: exact
			t.Errorf("totals over the two hours = %s, want [7 5 3]", got)
		}
		day := h0.Truncate(24 * time.Hour)
		q.Set("unit", "day")
		q.Set("from", day.Format(time.RFC3339))
		q.Set("to", h0.Add(2*time.Hour).Format(time.RFC3339))
		if h0.Add(time.Hour).Truncate(24*time.Hour) == day { // both hours on one day
			if st := call(t, s, http.MethodGet, "/v1/rollups/visits/totals?"+q.Encode(), nil, &totals); st != http.StatusOK {
				t.Fatalf("day totals: %d", st)
			}
			if got := fmt.Sprint(totals.Values); got != "[7 3 3]" {
				t.Errorf("the day's totals = %s, want [7 3 3]", got)
			}
		}
		var top struct {
			Values []struct {
				Value  string
				Values []int64
			}
		}
		q = url.Values{"scope.site": {"s"}, "unit": {"hour"}, "from": {h0.Add(time.Hour).Format(time.RFC3339)}, "to": {h0.Add(2 * time.Hour).Format(time.RFC3339)},
			"dimension": {"page"}, "order_by": {"visitors"}}
		if st := call(t, s, http.MethodGet, "/v1/rollups/visits/top?"+q.Encode(), nil, &top); st != http.StatusOK {
			t.Fatalf("top: %d", st)
		}
		// New visitors of a page: first seen on that page (ann and cy on
		// news, bob on home, all in hour 1).
		if got := fmt.Sprint(top.Values); got != "[{news [3 2 2]} {home [1 1 1]}]" {
			t.Errorf("top pages of hour 1 by visitors = %s", got)
		}
		var bad struct {
			Error struct{ Code, Message string }
		}
		def["distinct"] = []map[string]string{{"metric": "visitors", "of": "viewer", "kind": "unique"}}
		if st := call(t, s, http.MethodPut, "/v1/rollups/visits2", def, &bad); st != http.StatusBadRequest || !strings.HasPrefix(bad.Error.Message, "distinct[0].kind:") {
			t.Errorf("an unknown kind: %d %+v", st, bad)
		}
	})
}

// TestRollupGainsADimensionAndAMetricOverHTTP: re-putting a rollup with
// a metric, a computed dimension and a drill-down added answers 200 and
// shows when the new parts start, seconds ahead; the counts it had carry
// over, the old parts count every event and the new parts those timed
// from their start, on each engine; a change that is not an addition
// stays a 409.
func TestRollupGainsADimensionAndAMetricOverHTTP(t *testing.T) {
	eachEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		def := map[string]any{
			"event":      map[string]any{"id": "id", "time": "time"},
			"scopes":     [][]string{{"channel"}},
			"metrics":    []string{"plays"},
			"dimensions": []string{"city", "site"},
			"drilldowns": [][]string{{"city", "site"}},
			"periods":    []map[string]any{{"unit": "all"}},
		}
		if st := call(t, s, http.MethodPut, "/v1/rollups/grow", def, nil); st != http.StatusCreated {
			t.Fatalf("PUT: %d", st)
		}
		before := time.Now().UTC().Add(-time.Minute)
		post := func(from, n int, at time.Time) {
			t.Helper()
			var events []map[string]any
			for i := from; i < from+n; i++ {
				events = append(events, map[string]any{"id": fmt.Sprint(i), "time": at.Format(time.RFC3339Nano), "channel": "c", "city": "Paris", "site": "s1", "country": "FR", "plays": 1, "shares": 2})
			}
			var res struct{ Accepted int }
			if st := call(t, s, http.MethodPost, "/v1/rollups/grow/events", events, &res); st != http.StatusOK || res.Accepted != n {
				t.Fatalf("POST: %d %+v", st, res)
			}
		}
		post(0, 3, before)
		def["metrics"] = []string{"plays", "shares"}
		def["dimensions"] = []string{"city", "site", "continent"}
		def["drilldowns"] = [][]string{{"city", "site"}, {"continent", "city"}}
		def["computed"] = []map[string]any{{"name": "continent", "fn": "lookup", "member": "country", "table": map[string]string{"FR": "Europe"}}}
		var got struct {
			Added        map[string]time.Time `json:"added"`
			DimensionIDs []int                `json:"dimension_ids"`
		}
		if st := call(t, s, http.MethodPut, "/v1/rollups/grow", def, &got); st != http.StatusOK {
			t.Fatalf("PUT with parts added: %d, want 200", st)
		}
		start := got.Added["metrics.shares"]
		for _, part := range []string{"metrics.shares", "dimensions.continent", "drilldowns.continent/city"} {
			if a, ok := got.Added[part]; !ok || !a.Equal(start) || !a.After(time.Now()) || time.Until(a) > time.Minute {
				t.Errorf("added[%s] = %v, want the parts' start, ahead of the clock by seconds (all: %v)", part, a, got.Added)
			}
		}
		post(3, 1, before) // timed before the parts' start: counted in the old ones only
		waitPast(start)    // events are timed by the clock
		post(4, 2, time.Now())
		var top struct {
			Values []struct {
				Value  string
				Values []int64
			}
		}
		for _, tc := range []struct{ query, want string }{
			{"dimension=city", "[{Paris [6 4]}]"},                // plays of every event; shares from the start
			{"dimension=site&within.city=Paris", "[{s1 [6 4]}]"}, // the old drill-down still answers
			{"dimension=continent", "[{Europe [2 4]}]"},
			{"dimension=city&within.continent=Europe", "[{Paris [2 4]}]"},
		} {
			if st := call(t, s, http.MethodGet, "/v1/rollups/grow/top?scope.channel=c&unit=all&"+tc.query, nil, &top); st != http.StatusOK {
				t.Fatalf("top %s: %d", tc.query, st)
			}
			if g := fmt.Sprint(top.Values); g != tc.want {
				t.Errorf("top %s = %s, want %s", tc.query, g, tc.want)
			}
		}
		def["metrics"] = []string{"shares", "plays"}
		if st := call(t, s, http.MethodPut, "/v1/rollups/grow", def, nil); st != http.StatusConflict {
			t.Errorf("PUT with metrics reordered: %d, want 409", st)
		}
	})
}

// TestRollupBackfillOverHTTP: a rollup fed from the message cache gains a
// metric and a computed dimension; POST .../backfill fills them from the
// cache's journal with the messages stored before their start, once (a
// second backfill counts nothing), on each engine.
func TestRollupBackfillOverHTTP(t *testing.T) {
	eachEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		word := "bf" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
		def := map[string]any{
			"event": map[string]any{"id": "message_uuid", "time": "message_time"}, "scopes": [][]string{{"league"}},
			"metrics": []string{"goals"}, "periods": []map[string]any{{"unit": "all"}},
			"sources": map[string]any{"cache_pattern": word + ".#"},
		}
		if st := call(t, s, http.MethodPut, "/v1/rollups/scores", def, nil); st != http.StatusCreated {
			t.Fatalf("PUT: %d", st)
		}
		put := func(path, members string) {
			t.Helper()
			body := fmt.Sprintf(`{"metadata": {"paths": [%q], %s}}`, word+"."+path, members)
			if st := call(t, s, http.MethodPost, "/v1/messages", json.RawMessage(body), nil); st != http.StatusCreated {
				t.Fatalf("put %s: %d", path, st)
			}
		}
		totals := func(league string) string {
			var tot struct{ Values []int64 }
			call(t, s, http.MethodGet, "/v1/rollups/scores/totals?unit=all&scope.league="+league, nil, &tot)
			return fmt.Sprint(tot.Values)
		}
		waitTotals := func(league, want string) {
			t.Helper()
			deadline := time.Now().Add(30 * time.Second)
			for totals(league) != want {
				if time.Now().After(deadline) {
					t.Fatalf("totals of %s %s, want %s", league, totals(league), want)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		// The consumer subscribes with its node's next look at the
		// definitions: probes until one is counted.
		for deadline := time.Now().Add(30 * time.Second); totals("probe") == "[]" || totals("probe") == "[0]"; {
			if time.Now().After(deadline) {
				t.Fatal("no probe counted")
			}
			put("probe", `"league": "probe", "goals": 1`)
			time.Sleep(200 * time.Millisecond)
		}
		// The journal keeps store times in milliseconds: from is a whole
		// millisecond after the last probe's.
		waitPast(time.Now().Add(2 * time.Millisecond))
		from := time.Now().Truncate(time.Millisecond)
		put("nba.g1", `"league": "nba", "team": "LAL", "goals": 3, "fouls": 1`)
		put("nba.g2", `"league": "nba", "team": "BOS", "goals": 4, "fouls": 2`)
		waitTotals("nba", "[7]")
		def["metrics"] = []string{"goals", "fouls"}
		def["dimensions"] = []string{"coast"}
		def["computed"] = []map[string]any{{"name": "coast", "fn": "lookup", "member": "team", "table": map[string]string{"LAL": "west", "BOS": "east"}}}
		var grown struct{ Added map[string]time.Time }
		if st := call(t, s, http.MethodPut, "/v1/rollups/scores", def, &grown); st != http.StatusOK {
			t.Fatalf("PUT grown: %d", st)
		}
		start := grown.Added["dimensions.coast"]
		waitPast(start)
		put("nba.g3", `"league": "nba", "team": "LAL", "goals": 1, "fouls": 5`)
		waitTotals("nba", "[8 5]")
		backfill := map[string]any{"from": from.Format(time.RFC3339Nano), "to": time.Now().Add(time.Second).Format(time.RFC3339Nano)}
		var res struct{ Messages, Counted, Duplicates, Skipped int }
		if st := call(t, s, http.MethodPost, "/v1/rollups/scores/backfill", backfill, &res); st != http.StatusOK || res.Messages != 3 || res.Counted != 2 || res.Skipped != 1 {
			t.Fatalf("backfill: %d %+v, want 3 messages, 2 counted, 1 skipped", st, res)
		}
		waitTotals("nba", "[8 8]")
		var top struct {
			Values []struct {
				Value  string
				Values []int64
			}
		}
		call(t, s, http.MethodGet, "/v1/rollups/scores/top?unit=all&scope.league=nba&dimension=coast&order_by=fouls", nil, &top)
		if got := fmt.Sprint(top.Values); got != "[{west [4 6]} {east [4 2]}]" {
			t.Errorf("top coasts by fouls = %s", got)
		}
		if st := call(t, s, http.MethodPost, "/v1/rollups/scores/backfill", backfill, &res); st != http.StatusOK || res.Counted != 0 || res.Duplicates != 2 {
			t.Errorf("a second backfill: %d %+v, want 0 counted, 2 duplicates", st, res)
		}
		var bad struct {
			Error struct{ Code, Message string }
		}
		if st := call(t, s, http.MethodPost, "/v1/rollups/scores/backfill", map[string]any{"from": "yesterday"}, &bad); st != http.StatusBadRequest {
			t.Errorf("a backfill from yesterday: %d %+v", st, bad)
		}
		waitTotals("nba", "[8 8]")
	})
}

// TestBenchRollupsOverlappingDoorsExact: `herald bench rollups` with
// writers on both doors (a queue and POST .../events), half of every
// writer's events sent again by a writer of the other door, ends exact
// with no failed call on each engine: a commit that finds some of its
// events committed meanwhile drops them and commits the rest (issue 34:
// this was a 503 for the API and a 30 s wait for the queue).
func TestBenchRollupsOverlappingDoorsExact(t *testing.T) {
	eachEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		out, errText, code := heraldCLI(t, s, "bench", "rollups", "--duration", "3s", "--rate", "300",
			"--senders", "4", "--api-senders", "4", "--overlap", "0.5", "--channels", "5")
		if code != 0 {
			t.Fatalf("herald bench rollups exited %d:\n%s\n%s", code, out, tail(errText, 20))
		}
		for _, want := range []string{"exact", "sent a second time"} {
			if !strings.Contains(out, want) {
				t.Errorf("the report does not say %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "failed calls") {
			t.Errorf("calls failed:\n%s", out)
		}
	})
}

// TestRollupFedByAMQP: events published to the rollup exchange under a
// rollup's routing key are counted, each once though every message is
// published twice; a rollup may only bind keys under its own account.
func TestRollupFedByAMQP(t *testing.T) {
	u := amqpURL(t)
	names := newAMQPNames()
	exchange := "t-rollups-" + uuid.NewString()[:8]
	s := startServer(t, "", append(names.args(u), "--amqp-rollup-exchange", exchange)...)
	def := map[string]any{"event": map[string]string{"id": "id", "time": "time"}, "scopes": [][]string{{"channel"}},
		"metrics": []string{"plays"}, "periods": []map[string]string{{"unit": "all"}},
		"sources": map[string]string{"amqp_routing_key": "000000000000.plays.#"}}
	var created struct{ ID string }
	if st := call(t, s, http.MethodPut, "/v1/rollups/plays", def, &created); st != http.StatusCreated {
		t.Fatalf("PUT: %d", st)
	}
	bad := map[string]any{"event": map[string]string{"id": "id", "time": "time"}, "scopes": [][]string{{"channel"}},
		"metrics": []string{"plays"}, "periods": []map[string]string{{"unit": "all"}}, "sources": map[string]string{"amqp_routing_key": "#"}}
	if st := call(t, s, http.MethodPut, "/v1/rollups/all", bad, nil); st != http.StatusBadRequest {
		t.Fatalf("PUT binding every account's events: %d, want 400", st)
	}
	ch := rabbitChannel(t, u)
	waitExchange(t, ch, exchange)
	// The rollup's queue is bound before its feed consumes: wait for the
	// consumer (on a channel of its own: a failed passive declare closes it).
	deadline := time.Now().Add(20 * time.Second)
	for {
		probe := rabbitChannel(t, u)
		q, err := probe.QueueDeclarePassive("herald.rollup."+created.ID, true, false, false, false, nil)
		probe.Close()
		if err == nil && q.Consumers > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rollup's queue has no consumer: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	for i := range 5 {
		body := fmt.Sprintf(`[{"id": "%d", "time": %q, "channel": "c1", "plays": 2}]`, i, now)
		for range 2 {
			publishConfirmed(t, ch, exchange, "000000000000.plays.web", rabbit.Publishing{Body: []byte(body), DeliveryMode: rabbit.Persistent})
		}
	}
	q := url.Values{"scope.channel": {"c1"}, "unit": {"all"}}
	deadline = time.Now().Add(15 * time.Second)
	var tot struct{ Values []int64 }
	for time.Now().Before(deadline) {
		call(t, s, http.MethodGet, "/v1/rollups/plays/totals?"+q.Encode(), nil, &tot)
		if len(tot.Values) == 1 && tot.Values[0] == 10 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("plays = %v, want [10]", tot.Values)
}

// TestRollupExactAcrossKills: a rollup fed by a queue, with every message
// sent twice, while Herald is killed with SIGKILL ten times: once the
// queue is drained, every channel's total equals the reference.
func TestRollupExactAcrossKills(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	ctx := testContext(t)
	if _, err := sqsClient(s).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("plays")}); err != nil {
		t.Fatal(err)
	}
	queueURL := s.URL + "/000000000000/plays"
	def := map[string]any{"event": map[string]string{"id": "id", "time": "time"}, "scopes": [][]string{{"channel"}},
		"metrics": []string{"plays"}, "periods": []map[string]string{{"unit": "all"}}, "sources": map[string]string{"queue": queueURL}}
	if st := call(t, s, http.MethodPut, "/v1/rollups/plays", def, nil); st != http.StatusCreated {
		t.Fatalf("PUT: %d", st)
	}
	want := map[string]int64{}
	n := 0
	for round := range 10 {
		sendEventsTwice(ctx, t, s, queueURL, 20, &n, want)
		time.Sleep(time.Duration(100+round*37) * time.Millisecond) // mid-flush, at different points
		s.kill(t)
		s = startServer(t, dir)
	}
	waitTotals(t, s, "plays", want, 90*time.Second) // messages a killed node held come back after 30 s
}

// waitPast polls the clock until it is past at: events are timed by it.
func waitPast(at time.Time) {
	for !time.Now().After(at) {
		time.Sleep(time.Millisecond)
	}
}
