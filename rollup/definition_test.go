package rollup

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestNormalizeDefaults(t *testing.T) {
	d := parseDef(t, videoJSON)
	if d.DedupWindow != DefaultDedupWindow {
		t.Errorf("DedupWindow = %s, want %s", d.DedupWindow, DefaultDedupWindow)
	}
	if d.Periods[0].Retention != DefaultRetention[Hour] {
		t.Errorf("hour retention = %s, want the default %s", d.Periods[0].Retention, DefaultRetention[Hour])
	}
	if d.Periods[1].Retention != Duration(400*24*time.Hour) {
		t.Errorf("day retention = %s, want 400d", d.Periods[1].Retention)
	}
	if d.Location() != time.UTC {
		t.Errorf("Location = %v, want UTC", d.Location())
	}
	b, err := json.Marshal(d)
	if err != nil || !strings.Contains(string(b), `"retention":"400d"`) || !strings.Contains(string(b), `"dedup_window":"4d"`) {
		t.Errorf("marshalled: %s (%v)", b, err)
	}
}

// TestNormalizeNamesTheBadMember: every rule, one bad member at a time;
// the error must start with the member's name.
func TestNormalizeNamesTheBadMember(t *testing.T) {
	base := func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(videoJSON), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	long := strings.Repeat("a", MaxMemberLen+1)
	many := func(n int, f func(i int) any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	tests := []struct {
		name   string
		edit   func(m map[string]any)
		member string
	}{
		{"empty name", func(m map[string]any) { m["name"] = "" }, "name"},
		{"name with a slash", func(m map[string]any) { m["name"] = "a/b" }, "name"},
		{"name too long", func(m map[string]any) { m["name"] = strings.Repeat("n", MaxNameLen+1) }, "name"},
		{"no id member", func(m map[string]any) { m["event"] = map[string]any{"time": "time"} }, "event.id"},
		{"bad time member", func(m map[string]any) { m["event"] = map[string]any{"id": "id", "time": "t ime"} }, "event.time"},
		{"time is id", func(m map[string]any) { m["event"] = map[string]any{"id": "id", "time": "id"} }, "event.time"},
		{"no scopes", func(m map[string]any) { m["scopes"] = []any{} }, "scopes"},
		{"too many scopes", func(m map[string]any) {
			m["scopes"] = many(MaxScopes+1, func(i int) any { return []any{"s" + strings.Repeat("x", i)} })
		}, "scopes"},
		{"empty scope", func(m map[string]any) { m["scopes"] = []any{[]any{}} }, "scopes[0]"},
		{"scope too deep", func(m map[string]any) { m["scopes"] = []any{[]any{"a", "b", "c", "d", "e"}} }, "scopes[0]"},
		{"bad scope member", func(m map[string]any) { m["scopes"] = []any{[]any{"channel"}, []any{"channel", "vid eo"}} }, "scopes[1][1]"},
		{"member too long", func(m map[string]any) { m["scopes"] = []any{[]any{long}} }, "scopes[0][0]"},
		{"member with empty key", func(m map[string]any) { m["scopes"] = []any{[]any{"a..b"}} }, "scopes[0][0]"},
		{"scope member is the id", func(m map[string]any) { m["scopes"] = []any{[]any{"id"}} }, "scopes[0][0]"},
		{"member twice in a scope", func(m map[string]any) { m["scopes"] = []any{[]any{"a", "a"}} }, "scopes[0][1]"},
		{"scope twice", func(m map[string]any) { m["scopes"] = []any{[]any{"a", "b"}, []any{"a", "b"}} }, "scopes[1]"},
		{"no metrics", func(m map[string]any) { m["metrics"] = []any{} }, "metrics"},
		{"too many metrics", func(m map[string]any) {
			m["metrics"] = many(MaxMetrics+1, func(i int) any { return "m" + strings.Repeat("x", i) })
		}, "metrics"},
		{"metric is the time", func(m map[string]any) { m["metrics"] = []any{"time"} }, "metrics[0]"},
		{"metric twice", func(m map[string]any) { m["metrics"] = []any{"plays", "plays"} }, "metrics[1]"},
		{"metric is a dimension", func(m map[string]any) { m["metrics"] = []any{"plays", "city"} }, "metrics[1]"},
		{"metric is a scope member", func(m map[string]any) { m["metrics"] = []any{"video"} }, "metrics[0]"},
		{"bad dimension", func(m map[string]any) { m["dimensions"] = []any{"country", "9city"} }, "dimensions[1]"},
		{"dimension is the id", func(m map[string]any) { m["dimensions"] = []any{"id"}; m["drilldowns"] = []any{} }, "dimensions[0]"},
		{"dimension twice", func(m map[string]any) { m["dimensions"] = []any{"city", "site", "city"} }, "dimensions[2]"},
		{"too many dimensions", func(m map[string]any) {
			m["dimensions"] = many(MaxDimensions+1, func(i int) any { return "d" + strings.Repeat("x", i) })
			m["drilldowns"] = []any{}
		}, "dimensions"},
		{"drill-down of one", func(m map[string]any) { m["drilldowns"] = []any{[]any{"city"}} }, "drilldowns[0]"},
		{"drill-down of three", func(m map[string]any) { m["drilldowns"] = []any{[]any{"country", "city", "site"}} }, "drilldowns[0]"},
		{"drill-down not a dimension", func(m map[string]any) { m["drilldowns"] = []any{[]any{"city", "street"}} }, "drilldowns[0][1]"},
		{"drill-down into itself", func(m map[string]any) { m["drilldowns"] = []any{[]any{"city", "city"}} }, "drilldowns[0][1]"},
		{"drill-down twice", func(m map[string]any) { m["drilldowns"] = []any{[]any{"city", "site"}, []any{"city", "site"}} }, "drilldowns[1]"},
		{"too many drill-downs", func(m map[string]any) {
			m["drilldowns"] = many(MaxDrillDowns+1, func(int) any { return []any{"city", "site"} })
		}, "drilldowns"},
		{"no periods", func(m map[string]any) { m["periods"] = []any{} }, "periods"},
		{"unknown unit", func(m map[string]any) { m["periods"] = []any{map[string]any{"unit": "fortnight"}} }, "periods[0].unit"},
		{"unit twice", func(m map[string]any) {
			m["periods"] = []any{map[string]any{"unit": "day"}, map[string]any{"unit": "day"}}
		}, "periods[1].unit"},
		{"retention shorter than a bucket", func(m map[string]any) {
			m["periods"] = []any{map[string]any{"unit": "day", "retention": "2h"}}
		}, "periods[0].retention"},
		{"retention too long", func(m map[string]any) {
			m["periods"] = []any{map[string]any{"unit": "year", "retention": "5000d"}}
		}, "periods[0].retention"},
		{"retention on all", func(m map[string]any) {
			m["periods"] = []any{map[string]any{"unit": "all", "retention": "1d"}}
		}, "periods[0].retention"},
		{"unknown time zone", func(m map[string]any) { m["time_zone"] = "Mars/Olympus" }, "time_zone"},
		{"local time zone", func(m map[string]any) { m["time_zone"] = "Local" }, "time_zone"},
		{"dedup window too short", func(m map[string]any) { m["dedup_window"] = "10s" }, "dedup_window"},
		{"dedup window too long", func(m map[string]any) { m["dedup_window"] = "31d" }, "dedup_window"},
		{"source too long", func(m map[string]any) {
			m["sources"] = map[string]any{"queue": strings.Repeat("q", MaxSourceLen+1)}
		}, "sources.queue"},
		{"trigger id", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["id"] = "a b"
			m["triggers"] = []any{t}
		}, "triggers[0].id"},
		{"trigger metric", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["metric"] = "likes"
			m["triggers"] = []any{t}
		}, "triggers[0].metric"},
		{"trigger scope", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["scope"] = map[string]any{"video": "*"}
			m["triggers"] = []any{t}
		}, "triggers[0].scope"},
		{"trigger value without dimension", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["value"] = "Paris"
			m["triggers"] = []any{t}
		}, "triggers[0].value"},
		{"trigger dimension without value", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["dimension"] = "city"
			m["triggers"] = []any{t}
		}, "triggers[0].value"},
		{"trigger unknown dimension", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["dimension"] = "street"
			t["value"] = "x"
			m["triggers"] = []any{t}
		}, "triggers[0].dimension"},
		{"trigger drill-down value", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["dimension"] = "city/site"
			t["value"] = "Paris"
			m["triggers"] = []any{t}
		}, "triggers[0].value"},
		{"trigger unit", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["unit"] = "week"
			m["triggers"] = []any{t}
		}, "triggers[0].unit"},
		{"trigger direction", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["direction"] = "sideways"
			m["triggers"] = []any{t}
		}, "triggers[0].direction"},
		{"trigger window of day buckets", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "window": "48h", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			m["triggers"] = []any{t}
		}, "triggers[0].window"},
		{"trigger window not whole buckets", func(m map[string]any) {
			m["periods"] = []any{map[string]any{"unit": "minute"}, map[string]any{"unit": "day"}}
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "minute", "window": "90s", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			m["triggers"] = []any{t}
		}, "triggers[0].window"},
		{"trigger window too long", func(m map[string]any) {
			m["periods"] = []any{map[string]any{"unit": "minute"}, map[string]any{"unit": "day"}}
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "minute", "window": "61m", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			m["triggers"] = []any{t}
		}, "triggers[0].window"},
		{"trigger window down", func(m map[string]any) {
			m["periods"] = []any{map[string]any{"unit": "minute"}, map[string]any{"unit": "day"}}
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "minute", "window": "5m", "direction": "down", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			m["triggers"] = []any{t}
		}, "triggers[0].direction"},
		{"trigger topic", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			t["topic_arn"] = "alerts"
			m["triggers"] = []any{t}
		}, "triggers[0].topic_arn"},
		{"trigger twice", func(m map[string]any) {
			t := map[string]any{"id": "t1", "metric": "plays", "scope": map[string]any{"channel": "*"}, "unit": "day", "threshold": 5, "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}
			m["triggers"] = []any{t, t}
		}, "triggers[1].id"},
		{"too many rows per event", func(m map[string]any) {
			m["scopes"] = many(MaxScopes, func(i int) any { return []any{"s" + strings.Repeat("x", i)} })
			m["dimensions"] = many(MaxDimensions, func(i int) any { return "d" + strings.Repeat("x", i) })
			m["drilldowns"] = []any{}
			m["periods"] = []any{map[string]any{"unit": "hour"}, map[string]any{"unit": "day"}, map[string]any{"unit": "month"}, map[string]any{"unit": "year"}, map[string]any{"unit": "all"}}
		}, "scopes"},
		{"too many counters per event", func(m map[string]any) {
			m["metrics"] = many(MaxMetrics, func(i int) any { return "m" + strings.Repeat("x", i) })
			m["dimensions"] = many(MaxDimensions, func(i int) any { return "d" + strings.Repeat("x", i) })
			m["drilldowns"] = []any{}
			m["scopes"] = many(8, func(i int) any { return []any{"s" + strings.Repeat("x", i)} })
			m["periods"] = []any{map[string]any{"unit": "hour"}, map[string]any{"unit": "day"}, map[string]any{"unit": "month"}, map[string]any{"unit": "all"}}
		}, "metrics"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := base()
			tc.edit(m)
			b, _ := json.Marshal(m)
			var d Definition
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatalf("decode: %v", err)
			}
			err := d.Normalize()
			if err == nil {
				t.Fatalf("Normalize accepted %s", b)
			}
			if want := "invalid_argument: " + tc.member + ": "; !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q does not start with %q", err, want)
			}
		})
	}
}

func TestDurationJSON(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		out  string
		bad  bool
	}{
		{`"400d"`, 400 * 24 * time.Hour, `"400d"`, false},
		{`"96h"`, 96 * time.Hour, `"4d"`, false},
		{`"90m"`, 90 * time.Minute, `"1h30m"`, false},
		{`"5m"`, 5 * time.Minute, `"5m"`, false},
		{`"2h"`, 2 * time.Hour, `"2h"`, false},
		{`"90s"`, 90 * time.Second, `"1m30s"`, false},
		{`"1500ms"`, 1500 * time.Millisecond, `"1.5s"`, false},
		{`"25h"`, 25 * time.Hour, `"25h"`, false},
		{`"-1d"`, 0, "", true},
		{`"1.5d"`, 0, "", true},
		{`"soon"`, 0, "", true},
		{`5`, 0, "", true},
	}
	for _, tc := range tests {
		var d Duration
		err := json.Unmarshal([]byte(tc.in), &d)
		if tc.bad {
			if err == nil {
				t.Errorf("%s: accepted as %s", tc.in, d)
			}
			continue
		}
		if err != nil || time.Duration(d) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.in, time.Duration(d), err, tc.want)
			continue
		}
		if b, _ := json.Marshal(d); string(b) != tc.out {
			t.Errorf("%s: marshalled %s, want %s", tc.in, b, tc.out)
		}
	}
}

// TestDefinitionErrorsNameTheMember: a duration that does not parse is
// reported at its member's path, not as a body that is not JSON.
func TestDefinitionErrorsNameTheMember(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"periods": [{"unit": "day", "retention": "soon"}]}`, `periods[0].retention: "soon" is not a duration`},
		{`{"periods": [{"unit": "hour"}, {"unit": "day", "retention": "1.5d"}]}`, `periods[1].retention: "1.5d" is not a whole number of days`},
		{`{"dedup_window": "x"}`, `dedup_window: "x" is not a duration`},
		{`{"triggers": [{"id": "t", "window": "5 minutes"}]}`, `triggers[0].window: "5 minutes" is not a duration`},
	}
	for _, tc := range tests {
		var d Definition
		err := decodeStrict([]byte(tc.body), &d, "definition")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.body, err, tc.want)
		}
	}
}

// TestTimeZoneDefaultIsUTC: a definition without time_zone is shown with
// "UTC", and one that gives "UTC" has the same shape as one that gives
// none (it may replace it and keep its counts).
func TestTimeZoneDefaultIsUTC(t *testing.T) {
	without := parseDef(t, videoJSON)
	if without.TimeZone != "UTC" {
		t.Fatalf("time_zone of a definition without one: %q, want UTC", without.TimeZone)
	}
	b, _ := json.Marshal(without)
	if !strings.Contains(string(b), `"time_zone":"UTC"`) {
		t.Errorf("shown as %s, want time_zone UTC", b)
	}
	with := parseDef(t, strings.Replace(videoJSON, `"name": "video",`, `"name": "video", "time_zone": "UTC",`, 1))
	if !without.SameShape(with) || !with.SameShape(without) {
		t.Error(`a definition with "time_zone": "UTC" is another shape than one without`)
	}
	paris := parseDef(t, strings.Replace(videoJSON, `"name": "video",`, `"name": "video", "time_zone": "Europe/Paris",`, 1))
	if without.SameShape(paris) {
		t.Error("a definition in Europe/Paris has the shape of one in UTC")
	}
}
