package rollup

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/heraldmq/herald"
)

// computedJSON counts plays by hour of day and weekday in Paris, by the
// first 3 characters of the site, by continent (a lookup with a default)
// and by region (a lookup without one); scopes by the first letter of the
// channel.
const computedJSON = `{
  "name": "computed",
  "event": {"id": "id", "time": "time"},
  "scopes": [["initial"]],
  "metrics": ["plays"],
  "dimensions": ["hour", "weekday", "site3", "continent", "region"],
  "drilldowns": [["continent", "hour"]],
  "computed": [
    {"name": "hour", "fn": "hour_of_day"},
    {"name": "weekday", "fn": "day_of_week"},
    {"name": "site3", "fn": "prefix", "member": "site", "length": 3},
    {"name": "continent", "fn": "lookup", "member": "country", "table": {"FR": "Europe", "JP": "Asia"}, "default": "other"},
    {"name": "region", "fn": "lookup", "member": "country", "table": {"FR": "EMEA"}},
    {"name": "initial", "fn": "prefix", "member": "channel", "length": 1}
  ],
  "periods": [{"unit": "all"}],
  "time_zone": "Europe/Paris"
}`

func TestComputedValues(t *testing.T) {
	d := parseDef(t, computedJSON)
	for _, tc := range []struct {
		name, event string
		want        map[string]string
	}{
		{"every member", `{"id": "1", "time": "2026-12-06T23:30:00Z", "channel": "news", "site": "éléphant.example", "country": "FR", "plays": 1}`,
			// 23:30 UTC on a Sunday is 00:30 on Monday in Paris.
			map[string]string{"hour": "00", "weekday": "mon", "site3": "élé", "continent": "Europe", "region": "EMEA", "initial": "n"}},
		{"lookup default, no region", `{"id": "2", "time": "2026-07-01T10:00:00Z", "channel": "b", "site": "ab", "country": "US", "plays": 1}`,
			map[string]string{"hour": "12", "weekday": "wed", "site3": "ab", "continent": "other", "initial": "b"}},
		{"no country, no site: the time ones only", `{"id": "3", "time": "2026-07-04T10:00:00Z", "channel": "c", "plays": 1}`,
			map[string]string{"hour": "12", "weekday": "sat", "initial": "c"}},
		{"an event member named like a computed one is never read", `{"id": "4", "time": "2026-07-04T10:00:00Z", "channel": "c", "hour": "noon", "region": "nowhere", "plays": 1}`,
			map[string]string{"hour": "12", "weekday": "sat", "initial": "c"}},
		{"a number is looked up by its text", `{"id": "5", "time": "2026-07-04T10:00:00Z", "channel": 42, "country": 7, "plays": 1}`,
			map[string]string{"hour": "12", "weekday": "sat", "continent": "other", "initial": "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := parseOne(t, d, tc.event)
			if len(e.Values) != len(tc.want) {
				t.Errorf("values %v, want %v", e.Values, tc.want)
			}
			for m, v := range tc.want {
				if e.Values[m] != v {
					t.Errorf("%s = %q, want %q (all: %v)", m, e.Values[m], v, e.Values)
				}
			}
		})
	}
}

// An event expands into the rows of its computed dimensions and of a
// drill-down over them, as it would for members it carried.
func TestComputedExpand(t *testing.T) {
	d := parseDef(t, computedJSON)
	e := parseOne(t, d, `{"id": "1", "time": "2026-12-06T23:30:00Z", "channel": "news", "site": "abcdef", "country": "JP", "plays": 2}`)
	var got []string
	d.Expand(e, e.Time, func(r Row) { got = append(got, strings.ReplaceAll(r.Key+"/"+r.Value, Sep, "+")) })
	want := []string{"n/", "n/00", "n/mon", "n/abc", "n/Asia", "n/Asia+00"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want %v", got, want)
	}
}

// A computed value longer than a value may be is the event's error.
func TestComputedPrefixTooLong(t *testing.T) {
	d := parseDef(t, `{"name": "x", "event": {"id": "id", "time": "time"}, "scopes": [["p"]], "metrics": ["n"],
	  "computed": [{"name": "p", "fn": "prefix", "member": "s", "length": 100}], "periods": [{"unit": "all"}]}`)
	body, _ := json.Marshal(map[string]any{"id": "1", "time": "2026-12-01T10:00:00Z", "s": strings.Repeat("€", 100)})
	_, bad, err := d.ParseEvents(body)
	if err != nil || len(bad) != 1 || !strings.Contains(bad[0].Error(), "s: a value whose first 100 characters are 300 bytes") {
		t.Errorf("bad %v, err %v", bad, err)
	}
}

func TestComputedRefused(t *testing.T) {
	base := func(computed, dims string) string {
		return `{"name": "x", "event": {"id": "id", "time": "time"}, "scopes": [["c"]], "metrics": ["n"], "dimensions": ` + dims +
			`, "computed": ` + computed + `, "periods": [{"unit": "all"}]}`
	}
	long := `"` + strings.Repeat("x", MaxValueLen+1) + `"`
	var big strings.Builder
	big.WriteString(`{`)
	for i := range MaxLookupValues + 1 {
		if i > 0 {
			big.WriteString(",")
		}
		big.WriteString(`"k` + strconv.Itoa(i) + `": "v"`)
	}
	big.WriteString(`}`)
	for _, tc := range []struct{ computed, dims, want string }{
		{`[{"name": "h", "fn": "hour"}]`, `["h"]`, `computed[0].fn: "hour" is not one of hour_of_day, day_of_week, prefix, lookup`},
		{`[{"name": "h", "fn": "hour_of_day", "member": "time"}]`, `["h"]`, `computed[0].member: hour_of_day takes no member`},
		{`[{"name": "h", "fn": "hour_of_day"}]`, `["d"]`, `computed[0].name: "h" is in no scope, dimension or drill-down`},
		{`[{"name": "h", "fn": "hour_of_day"}, {"name": "h", "fn": "day_of_week"}]`, `["h"]`, `computed[1].name: "h" appears twice`},
		{`[{"name": "id", "fn": "hour_of_day"}]`, `["d"]`, `computed[0].name: "id" is already event.id`},
		{`[{"name": "p", "fn": "prefix", "member": "s"}]`, `["p"]`, `computed[0].length: 0 characters; want 1 to 256`},
		{`[{"name": "p", "fn": "prefix", "member": "s", "length": 3, "table": {"a": "b"}}]`, `["p"]`, `computed[0].table: prefix takes no table`},
		{`[{"name": "p", "fn": "prefix", "length": 3}]`, `["p"]`, `computed[0].member: "" is not a member name`},
		{`[{"name": "l", "fn": "lookup", "member": "s"}]`, `["l"]`, `computed[0].table: a lookup needs a table of values`},
		{`[{"name": "l", "fn": "lookup", "member": "s", "table": {"a": ` + long + `}}]`, `["l"]`, `computed[0].table: "xxx`},
		{`[{"name": "l", "fn": "lookup", "member": "s", "table": {"a": "b\u001f"}}]`, `["l"]`, `computed[0].table: "b\x1f" is not a value`},
		{`[{"name": "l", "fn": "lookup", "member": "s", "table": ` + big.String() + `}]`, `["l"]`, `computed[0].table: the tables hold more than 1000 entries in all`},
		{`[{"name": "a", "fn": "hour_of_day"}, {"name": "b", "fn": "lookup", "member": "a", "table": {"1": "x"}}]`, `["a", "b"]`, `computed[1].member: "a" is computed`},
	} {
		var d Definition
		if err := json.Unmarshal([]byte(base(tc.computed, tc.dims)), &d); err != nil {
			t.Fatalf("%s: %v", tc.computed, err)
		}
		err := d.Normalize()
		if herald.ErrorCode(err) != herald.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80s: %v, want invalid %q", tc.computed, err, tc.want)
		}
	}
}

// Computed members are part of the shape: a definition differing in one
// is another shape; the same, re-put, is the same.
func TestComputedShape(t *testing.T) {
	a := parseDef(t, computedJSON)
	b := parseDef(t, computedJSON)
	if !a.SameShape(b) || !a.SameShape(a.Clone()) {
		t.Fatal("the same definition is another shape")
	}
	c := a.Clone()
	c.Computed[3].Table["FR"] = "Europa"
	if a.SameShape(c) || a.Computed[3].Table["FR"] != "Europe" {
		t.Errorf("a changed table: same shape %v; the clone shares the original's table: %v", a.SameShape(c), a.Computed[3].Table)
	}
}
