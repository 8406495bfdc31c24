package rollup

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/heraldmq/herald"
)

// Trigger is a threshold rule on a rollup: when a metric of a matching row
// crosses Threshold in Direction within one bucket, Herald publishes a
// notification to the SNS topic TopicARN, once per (trigger, row, bucket),
// however many times the crossing events are replayed and whichever node
// commits them. With a Window, the trigger watches the sum of the last
// Window of buckets instead ("≥ 100 plays within 5 minutes": minute
// buckets, a 5m window), once per (trigger, row, last bucket of the
// window).
type Trigger struct {
	ID     string            `json:"id"`
	Metric string            `json:"metric"`
	Scope  map[string]string `json:"scope"` // the scope's members, each a value or "*" (any)
	// Dimension and Value narrow the trigger to one dimension value
	// ("" for the scope's totals). A drill-down is named "city/site",
	// with Value "Paris/s1".
	Dimension string `json:"dimension,omitempty"`
	Value     string `json:"value,omitempty"`
	Unit      Unit   `json:"unit"` // the period whose buckets it watches
	// Window, when set, is a sliding window of whole minute or hour
	// buckets (Unit), 2 to MaxWindowBuckets of them, direction up: the
	// trigger fires when a commit brings the sum over the window ending
	// at a bucket it changed from below Threshold to at least it.
	Window    Duration `json:"window,omitempty"`
	Threshold int64    `json:"threshold"`
	Direction string   `json:"direction,omitempty"` // "up" (default): old < threshold ≤ new; "down": old > threshold ≥ new
	TopicARN  string   `json:"topic_arn"`
}

// MaxTriggers bounds the triggers of one rollup.
const MaxTriggers = 100

// MaxWindowBuckets bounds the buckets of a sliding window.
const MaxWindowBuckets = 60

var triggerIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// checkTrigger validates t against d, filling in its defaults.
func (d *Definition) checkTrigger(t *Trigger) error {
	if !triggerIDRE.MatchString(t.ID) {
		return invalid("id", "%q is not a trigger id: 1 to 64 letters, digits, '_' or '-'", herald.Clip(t.ID))
	}
	if !slices.Contains(d.Metrics, t.Metric) {
		return invalid("metric", "%q is not one of the rollup's metrics", herald.Clip(t.Metric))
	}
	if _, _, err := d.scopeOfPattern(t.Scope); err != nil {
		return err
	}
	if _, err := d.triggerDim(t); err != nil {
		return err
	}
	if !slices.ContainsFunc(d.Periods, func(p Period) bool { return p.Unit == t.Unit }) {
		return invalid("unit", "%q is not one of the rollup's periods", herald.Clip(string(t.Unit)))
	}
	switch t.Direction {
	case "":
		t.Direction = "up"
	case "up", "down":
	default:
		return invalid("direction", "up or down, not %q", herald.Clip(t.Direction))
	}
	if t.Window != 0 {
		if err := checkWindow(t); err != nil {
			return err
		}
	}
	if !strings.HasPrefix(t.TopicARN, "arn:") || strings.Count(t.TopicARN, ":") != 5 {
		return invalid("topic_arn", "%q is not an SNS topic ARN", herald.Clip(t.TopicARN))
	}
	return nil
}

// checkWindow validates a trigger's sliding window.
func checkWindow(t *Trigger) error {
	var unit time.Duration
	switch t.Unit {
	case Minute:
		unit = time.Minute
	case Hour:
		unit = time.Hour
	default:
		return invalid("window", "a sliding window is made of minute or hour buckets, not %s ones", t.Unit)
	}
	w := time.Duration(t.Window)
	if w%unit != 0 || w < 2*unit || w > MaxWindowBuckets*unit {
		return invalid("window", "%s is not 2 to %d whole %s buckets", w, MaxWindowBuckets, t.Unit)
	}
	if t.Direction != "up" {
		return invalid("direction", "a sliding window watches its sum rise (up): it falls as time passes, with no commit to see it")
	}
	return nil
}

// windowBuckets is the number of buckets of m's window (0: none) and
// their length in seconds.
func (m matcher) windowBuckets() (n int, step int64) {
	if m.t.Window == 0 {
		return 0, 0
	}
	step = 60
	if m.t.Unit == Hour {
		step = 3600
	}
	return int(time.Duration(m.t.Window) / (time.Duration(step) * time.Second)), step
}

// scopeOfPattern resolves a trigger's scope: the scope with exactly those
// members, and per member its value or "" for any ("*").
func (d *Definition) scopeOfPattern(sel map[string]string) (int, []string, error) {
	i, vals, ok := d.scopeWith(sel)
	if !ok {
		return 0, nil, invalid("scope", "the members of one of the rollup's scopes %v, each a value or \"*\"", d.Scopes)
	}
	for j, v := range vals {
		if v == "*" {
			vals[j] = ""
		}
	}
	return i, vals, nil
}

// triggerDim resolves a trigger's dimension to a Row.Dim.
func (d *Definition) triggerDim(t *Trigger) (int, error) {
	if t.Dimension == "" {
		if t.Value != "" {
			return 0, invalid("value", "a value needs a dimension")
		}
		return Total, nil
	}
	if t.Value == "" {
		return 0, invalid("value", "a trigger on a dimension watches one of its values")
	}
	if i := slices.Index(d.Dimensions, t.Dimension); i >= 0 {
		return d.dimID(i), nil
	}
	outer, inner, _ := strings.Cut(t.Dimension, "/")
	for i, pair := range d.DrillDowns {
		if pair[0] == outer && pair[1] == inner {
			if strings.Count(t.Value, "/") != 1 {
				return 0, invalid("value", "a drill-down's value is OUTER/INNER")
			}
			return d.drillDownID(i), nil
		}
	}
	return 0, invalid("dimension", "%q is not one of the rollup's dimensions or drill-downs (outer/inner)", herald.Clip(t.Dimension))
}

// matcher is a trigger compiled against its definition.
type matcher struct {
	t      Trigger
	scope  int
	vals   []string // "" = any
	dim    int
	value  string // in row form (drill-downs joined by Sep)
	metric int
}

func (d *Definition) matchers() []matcher {
	out := make([]matcher, 0, len(d.Triggers))
	for _, t := range d.Triggers {
		scope, vals, err := d.scopeOfPattern(t.Scope)
		if err != nil {
			continue
		}
		dim, err := d.triggerDim(&t)
		if err != nil {
			continue
		}
		out = append(out, matcher{t: t, scope: scope, vals: vals, dim: dim,
			value: strings.Replace(t.Value, "/", Sep, 1), metric: slices.Index(d.Metrics, t.Metric)})
	}
	return out
}

func (m matcher) matches(r Row) bool {
	if r.Scope != m.scope || r.Unit != m.t.Unit || r.Dim != m.dim || r.Value != m.value {
		return false
	}
	parts := strings.Split(r.Key, Sep)
	for i, v := range m.vals {
		if v != "" && (i >= len(parts) || parts[i] != v) {
			return false
		}
	}
	return true
}

// Firing is one crossing of a trigger: what the notification carries.
type Firing struct {
	ID        string    `json:"firing_id"` // stable: the same crossing always has this ID
	Account   string    `json:"account"`
	Rollup    string    `json:"rollup"`
	Trigger   string    `json:"trigger"`
	TopicARN  string    `json:"topic_arn"`
	Metric    string    `json:"metric"`
	Scope     []string  `json:"scope"` // the row's scope values
	Dimension string    `json:"dimension,omitempty"`
	Value     string    `json:"value,omitempty"`
	Unit      Unit      `json:"unit"`
	Bucket    time.Time `json:"bucket"`           // the bucket crossed; with a window, its last bucket
	Window    Duration  `json:"window,omitempty"` // the trigger's sliding window
	Total     int64     `json:"total"`            // the metric's value (with a window, the window's sum) once the crossing commit applied
	Threshold int64     `json:"threshold"`
	Direction string    `json:"direction"`
	At        time.Time `json:"at"` // when the crossing was committed
}

// HasTriggers reports whether d has any trigger (a store skips Crossings
// otherwise).
func (d *Definition) HasTriggers() bool { return len(d.ms) > 0 }

// Watches reports whether a trigger of d watches row r: only such a row's
// change can make Crossings return a firing.
func (d *Definition) Watches(r Row) bool {
	for _, m := range d.ms {
		if m.matches(r) {
			return true
		}
	}
	return false
}

// Lookup returns a row's values before and after the commit being
// checked (the same for a row it does not change; nil for one never
// written): what a sliding-window trigger sums over its other buckets.
type Lookup func(r Row) (before, after []int64, err error)

// sumAt is sums[i], or 0 for a row of no sums or written before metric i
// was added.
func sumAt(sums []int64, i int) int64 {
	if i < len(sums) {
		return sums[i]
	}
	return 0
}

// Crossings returns the firings of a commit that moves row r's sums from
// old (nil: never written) to cur, for every trigger of d that matches r;
// a sliding-window trigger reads the window's other buckets with lookup.
// A firing's ID is derived from (rollup, trigger, row, bucket), so the
// store records each at most once.
func (d *Definition) Crossings(r Row, old, cur []int64, now time.Time, lookup Lookup) ([]Firing, error) {
	var out []Firing
	for _, m := range d.ms {
		if !m.matches(r) {
			continue
		}
		before, after := sumAt(old, m.metric), sumAt(cur, m.metric)
		if n, step := m.windowBuckets(); n > 0 {
			for i := 1; i < n; i++ {
				o := r
				o.Bucket -= int64(i) * step
				b, a, err := lookup(o)
				if err != nil {
					return nil, err
				}
				before += sumAt(b, m.metric)
				after += sumAt(a, m.metric)
			}
		}
		th := m.t.Threshold
		crossed := before < th && th <= after
		if m.t.Direction == "down" {
			crossed = before > th && th >= after
		}
		if !crossed {
			continue
		}
		h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%s\x00%s\x00%d\x00%d\x00%s", d.ID, m.t.ID, r.Scope, r.Key, r.Unit, r.Bucket, r.Dim, r.Value))
		f := Firing{ID: hex.EncodeToString(h[:16]), Account: d.Account, Rollup: d.Name, Trigger: m.t.ID, TopicARN: m.t.TopicARN,
			Metric: m.t.Metric, Scope: strings.Split(r.Key, Sep), Dimension: m.t.Dimension, Value: m.t.Value,
			Unit: r.Unit, Bucket: time.Unix(r.Bucket, 0).In(d.Location()), Window: m.t.Window, Total: after, Threshold: th, Direction: m.t.Direction, At: now.UTC()}
		out = append(out, f)
	}
	return out, nil
}
