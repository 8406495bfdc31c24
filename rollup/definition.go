package rollup

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// Definition is one rollup: which events it counts and how. It is what
// PUT /v1/rollups/{name} takes, stored as is (after Normalize).
type Definition struct {
	Name    string    `json:"name"`
	Account string    `json:"account,omitempty"` // the owner, set by the Service from the caller
	ID      uuid.UUID `json:"id,omitzero"`       // set by the Service; rows and events are keyed by it
	Created time.Time `json:"created,omitzero"`  // set by the Service

	Event      EventMembers `json:"event"`
	Scopes     [][]string   `json:"scopes"`
	Metrics    []string     `json:"metrics"`
	Dimensions []string     `json:"dimensions,omitempty"`
	DrillDowns [][]string   `json:"drilldowns,omitempty"` // pairs of dimensions, outer first
	Computed   []Computed   `json:"computed,omitempty"`   // members derived from each event (computed.go)
	Distinct   []Distinct   `json:"distinct,omitempty"`   // metrics that count values (distinct.go)
	// DimensionIDs and DrillDownIDs number the dimensions and drill-downs
	// in rows (Row.Dim), kept as the rollup gains parts (evolve.go); set
	// by the Service. Absent, dimension i is i and drill-down i is
	// len(Dimensions)+i, as in every rollup that never gained one.
	DimensionIDs []int `json:"dimension_ids,omitempty"`
	DrillDownIDs []int `json:"drilldown_ids,omitempty"`
	// Added is when each part the rollup gained after its creation was
	// added, by "metrics.NAME", "dimensions.NAME" or
	// "drilldowns.OUTER/INNER": its counts start then. Set by the Service.
	Added       map[string]time.Time `json:"added,omitempty"`
	Periods     []Period             `json:"periods"`
	TimeZone    string               `json:"time_zone,omitempty"`    // IANA name; Normalize makes "" "UTC"
	DedupWindow Duration             `json:"dedup_window,omitempty"` // default DefaultDedupWindow
	Sources     Sources              `json:"sources,omitzero"`
	Tiles       bool                 `json:"tiles,omitempty"` // publish live values to the message cache
	Triggers    []Trigger            `json:"triggers,omitempty"`
	// CommitShards is how many shards the rollup's commits are split
	// into (shard.go), fixed at creation: given, or the server's default
	// (Config.CommitShards); 0 in a stored definition is 1.
	CommitShards int `json:"commit_shards,omitempty"`

	loc    *time.Location // TimeZone, loaded by Normalize
	ms     []matcher      // Triggers, compiled by Normalize
	starts starts         // Added, compiled by Normalize
	// distinct is Distinct by metric index (nil entries for sums; nil
	// when there is none), compiled by Normalize.
	distinct []*Distinct
}

// EventMembers names the members of an event that identify and date it.
type EventMembers struct {
	ID   string `json:"id"`
	Time string `json:"time"`
}

// Period is one granularity a rollup keeps, and for how long.
type Period struct {
	Unit      Unit     `json:"unit"`
	Retention Duration `json:"retention,omitempty"` // default DefaultRetention[Unit]; none for All
}

// Sources are the doors a rollup takes events from besides direct posts
// and SNS subscriptions with protocol "rollup".
type Sources struct {
	Queue          string `json:"queue,omitempty"`            // an SQS queue URL of the same account
	AMQPRoutingKey string `json:"amqp_routing_key,omitempty"` // a binding key on Herald's AMQP exchange
	CachePattern   string `json:"cache_pattern,omitempty"`    // a path pattern of the message cache
}

// Limits on a definition: each bounds the work one event causes or what a
// definition costs to keep.
const (
	MaxNameLen         = 80
	MaxMemberLen       = 128
	MaxScopes          = 16
	MaxScopeMembers    = 4
	MaxMetrics         = 64
	MaxDimensions      = 32
	MaxDrillDowns      = 16
	MaxRowsPerEvent    = 2048  // scopes × periods × (1 + dimensions + drill-downs)
	MaxCellsPerEvent   = 65536 // rows × metrics
	MaxSourceLen       = 1024
	MinDedupWindow     = Duration(time.Minute)
	MaxDedupWindow     = Duration(30 * 24 * time.Hour)
	MaxRetention       = Duration(10 * 366 * 24 * time.Hour)
	DefaultDedupWindow = Duration(4 * 24 * time.Hour) // SQS's default retention
)

// DefaultRetention is how long a period's buckets are kept when the
// definition does not say.
var DefaultRetention = map[Unit]Duration{
	Minute: Duration(48 * time.Hour),
	Hour:   Duration(35 * 24 * time.Hour),
	Day:    Duration(400 * 24 * time.Hour),
	Week:   Duration(3 * 366 * 24 * time.Hour),
	Month:  Duration(5 * 366 * 24 * time.Hour),
	Year:   MaxRetention,
}

var (
	nameRE   = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	memberRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$`)
)

// ValidName reports whether name can name a rollup.
func ValidName(name string) error {
	if name == "" || len(name) > MaxNameLen || !nameRE.MatchString(name) {
		return invalid("name", "%q is not a rollup name: 1 to %d letters, digits, '_' or '-'", herald.Clip(name), MaxNameLen)
	}
	return nil
}

// Normalize validates d, fills in its defaults and loads its time zone.
// Its error names the first bad member, as "scopes[1][0]: ...".
func (d *Definition) Normalize() error {
	if err := ValidName(d.Name); err != nil {
		return err
	}
	if err := checkMember("event.id", d.Event.ID); err != nil {
		return err
	}
	if err := checkMember("event.time", d.Event.Time); err != nil {
		return err
	}
	if d.Event.ID == d.Event.Time {
		return invalid("event.time", "must differ from event.id")
	}
	reserved := map[string]string{d.Event.ID: "event.id", d.Event.Time: "event.time"}
	if err := d.checkScopes(reserved); err != nil {
		return err
	}
	if err := d.checkDimensions(reserved); err != nil {
		return err
	}
	if err := d.checkMetrics(reserved); err != nil {
		return err
	}
	if err := d.checkComputed(reserved); err != nil {
		return err
	}
	if err := d.checkDistinct(reserved); err != nil {
		return err
	}
	if err := d.checkIDs(); err != nil {
		return err
	}
	if err := d.checkPeriods(); err != nil {
		return err
	}
	if d.TimeZone == "" {
		d.TimeZone = "UTC" // shown as it is meant, and "UTC" given again is the same shape
	}
	loc, err := time.LoadLocation(d.TimeZone)
	if err != nil || strings.EqualFold(d.TimeZone, "local") {
		return invalid("time_zone", "%q is not an IANA time zone name such as \"Europe/Paris\"", herald.Clip(d.TimeZone))
	}
	d.loc = loc
	switch {
	case d.DedupWindow == 0:
		d.DedupWindow = DefaultDedupWindow
	case d.DedupWindow < MinDedupWindow || d.DedupWindow > MaxDedupWindow:
		return invalid("dedup_window", "%s is out of range: %s to %s", d.DedupWindow, MinDedupWindow, MaxDedupWindow)
	}
	if d.CommitShards < 0 || d.CommitShards > MaxCommitShards {
		return invalid("commit_shards", "%d is out of range: 1 to %d", d.CommitShards, MaxCommitShards)
	}
	for member, v := range map[string]string{"sources.queue": d.Sources.Queue, "sources.amqp_routing_key": d.Sources.AMQPRoutingKey, "sources.cache_pattern": d.Sources.CachePattern} {
		if len(v) > MaxSourceLen {
			return invalid(member, "longer than %d bytes", MaxSourceLen)
		}
	}
	if len(d.Triggers) > MaxTriggers {
		return invalid("triggers", "at most %d, got %d", MaxTriggers, len(d.Triggers))
	}
	for i := range d.Triggers {
		if err := d.checkTrigger(&d.Triggers[i]); err != nil {
			he := err.(*herald.Error)
			return herald.Errorf(he.Code, "triggers[%d].%s", i, he.Message)
		}
		for _, other := range d.Triggers[:i] {
			if other.ID == d.Triggers[i].ID {
				return invalid(fmt.Sprintf("triggers[%d].id", i), "%q appears twice", d.Triggers[i].ID)
			}
		}
	}
	rows := len(d.Scopes) * len(d.Periods) * (1 + len(d.Dimensions) + len(d.DrillDowns))
	if rows > MaxRowsPerEvent {
		return invalid("scopes", "one event would update %d rows (scopes × periods × (1 + dimensions + drill-downs)); at most %d", rows, MaxRowsPerEvent)
	}
	if cells := rows * len(d.Metrics); cells > MaxCellsPerEvent {
		return invalid("metrics", "one event would update %d counters (rows × metrics); at most %d", cells, MaxCellsPerEvent)
	}
	d.ms = d.matchers()
	d.compileStarts()
	d.compileDistinct()
	return nil
}

func (d *Definition) checkScopes(reserved map[string]string) error {
	if len(d.Scopes) == 0 || len(d.Scopes) > MaxScopes {
		return invalid("scopes", "want 1 to %d scopes, got %d", MaxScopes, len(d.Scopes))
	}
	seen := map[string]int{}
	for i, scope := range d.Scopes {
		at := fmt.Sprintf("scopes[%d]", i)
		if len(scope) == 0 || len(scope) > MaxScopeMembers {
			return invalid(at, "want 1 to %d members, got %d", MaxScopeMembers, len(scope))
		}
		for j, m := range scope {
			mat := fmt.Sprintf("%s[%d]", at, j)
			if err := checkMember(mat, m); err != nil {
				return err
			}
			if r, ok := reserved[m]; ok {
				return invalid(mat, "%q is already %s", m, r)
			}
			if slices.Index(scope, m) < j {
				return invalid(mat, "%q appears twice in the scope", m)
			}
		}
		key := strings.Join(scope, "\x00")
		if k, ok := seen[key]; ok {
			return invalid(at, "the same as scopes[%d]", k)
		}
		seen[key] = i
	}
	return nil
}

func (d *Definition) checkDimensions(reserved map[string]string) error {
	if len(d.Dimensions) > MaxDimensions {
		return invalid("dimensions", "at most %d, got %d", MaxDimensions, len(d.Dimensions))
	}
	for i, m := range d.Dimensions {
		at := fmt.Sprintf("dimensions[%d]", i)
		if err := checkMember(at, m); err != nil {
			return err
		}
		if r, ok := reserved[m]; ok {
			return invalid(at, "%q is already %s", m, r)
		}
		if slices.Index(d.Dimensions, m) < i {
			return invalid(at, "%q appears twice", m)
		}
	}
	if len(d.DrillDowns) > MaxDrillDowns {
		return invalid("drilldowns", "at most %d, got %d", MaxDrillDowns, len(d.DrillDowns))
	}
	for i, pair := range d.DrillDowns {
		at := fmt.Sprintf("drilldowns[%d]", i)
		if len(pair) != 2 {
			return invalid(at, "a drill-down is a pair of dimensions, outer first, such as [\"city\", \"site\"]; got %d members", len(pair))
		}
		for j, m := range pair {
			if !slices.Contains(d.Dimensions, m) {
				return invalid(fmt.Sprintf("%s[%d]", at, j), "%q is not one of the dimensions", herald.Clip(m))
			}
		}
		if pair[0] == pair[1] {
			return invalid(at+"[1]", "%q drills down into itself", pair[1])
		}
		for k, other := range d.DrillDowns[:i] {
			if slices.Equal(other, pair) {
				return invalid(at, "the same as drilldowns[%d]", k)
			}
		}
	}
	return nil
}

func (d *Definition) checkMetrics(reserved map[string]string) error {
	if len(d.Metrics) == 0 || len(d.Metrics) > MaxMetrics {
		return invalid("metrics", "want 1 to %d metrics, got %d", MaxMetrics, len(d.Metrics))
	}
	for i, m := range d.Metrics {
		at := fmt.Sprintf("metrics[%d]", i)
		if err := checkMember(at, m); err != nil {
			return err
		}
		if r, ok := reserved[m]; ok {
			return invalid(at, "%q is already %s", m, r)
		}
		if slices.Index(d.Metrics, m) < i {
			return invalid(at, "%q appears twice", m)
		}
		if slices.Contains(d.Dimensions, m) {
			return invalid(at, "%q is also a dimension", m)
		}
		for _, scope := range d.Scopes {
			if slices.Contains(scope, m) {
				return invalid(at, "%q is also a scope member", m)
			}
		}
	}
	return nil
}

func (d *Definition) checkPeriods() error {
	if len(d.Periods) == 0 || len(d.Periods) > len(Units) {
		return invalid("periods", "want 1 to %d periods, got %d", len(Units), len(d.Periods))
	}
	for i := range d.Periods {
		p := &d.Periods[i]
		at := fmt.Sprintf("periods[%d]", i)
		if !p.Unit.Valid() {
			return invalid(at+".unit", "%q is not one of minute, hour, day, week, month, year, all", herald.Clip(string(p.Unit)))
		}
		for k, other := range d.Periods[:i] {
			if other.Unit == p.Unit {
				return invalid(at+".unit", "%q is already periods[%d]", p.Unit, k)
			}
		}
		switch {
		case p.Unit == All && p.Retention != 0:
			return invalid(at+".retention", "the all-time period has one bucket, kept as long as the rollup")
		case p.Unit == All:
		case p.Retention == 0:
			p.Retention = DefaultRetention[p.Unit]
		case time.Duration(p.Retention) < p.Unit.shortest() || p.Retention > MaxRetention:
			return invalid(at+".retention", "%s is out of range for %s buckets: one bucket to %s", p.Retention, p.Unit, MaxRetention)
		}
	}
	return nil
}

// Location is the definition's time zone (UTC before Normalize).
func (d *Definition) Location() *time.Location {
	if d.loc == nil {
		return time.UTC
	}
	return d.loc
}

// checkMember checks a member name: dot-separated keys into the event's
// nested objects.
func checkMember(at, m string) error {
	if m == "" || len(m) > MaxMemberLen || !memberRE.MatchString(m) {
		return invalid(at, "%q is not a member name: dot-separated keys of letters, digits, '_' or '-', at most %d bytes", herald.Clip(m), MaxMemberLen)
	}
	return nil
}

// SameShape reports whether d and o count the same rows: the same event
// members, scopes, metrics (and which of them count values), dimensions,
// drill-downs, computed members, period units, time zone and dedup
// window. A definition may be replaced by one of the same shape (new
// retentions, sources, tiles) and keep its counts; adding parts is
// Evolve; any other change needs a new rollup.
func (d *Definition) SameShape(o *Definition) bool {
	if d.Event != o.Event || d.TimeZone != o.TimeZone || d.DedupWindow != o.DedupWindow || d.Shards() != o.Shards() ||
		!slices.Equal(d.Metrics, o.Metrics) || !slices.Equal(d.Dimensions, o.Dimensions) ||
		len(d.Scopes) != len(o.Scopes) || len(d.DrillDowns) != len(o.DrillDowns) || len(d.Periods) != len(o.Periods) {
		return false
	}
	for i := range d.Scopes {
		if !slices.Equal(d.Scopes[i], o.Scopes[i]) {
			return false
		}
	}
	for i := range d.DrillDowns {
		if !slices.Equal(d.DrillDowns[i], o.DrillDowns[i]) {
			return false
		}
	}
	for i := range d.Periods {
		if d.Periods[i].Unit != o.Periods[i].Unit {
			return false
		}
	}
	return slices.EqualFunc(d.Computed, o.Computed, sameComputed) && slices.Equal(d.Distinct, o.Distinct)
}

// Clone returns a deep copy of d.
func (d *Definition) Clone() *Definition {
	c := *d
	c.Scopes = make([][]string, len(d.Scopes))
	for i, s := range d.Scopes {
		c.Scopes[i] = slices.Clone(s)
	}
	c.DrillDowns = make([][]string, len(d.DrillDowns))
	for i, p := range d.DrillDowns {
		c.DrillDowns[i] = slices.Clone(p)
	}
	c.Metrics, c.Dimensions, c.Periods = slices.Clone(d.Metrics), slices.Clone(d.Dimensions), slices.Clone(d.Periods)
	c.Triggers = slices.Clone(d.Triggers)
	c.DimensionIDs, c.DrillDownIDs, c.Added = slices.Clone(d.DimensionIDs), slices.Clone(d.DrillDownIDs), maps.Clone(d.Added)
	c.Distinct = slices.Clone(d.Distinct)
	c.distinct = nil
	c.compileDistinct()
	c.Computed = slices.Clone(d.Computed)
	for i := range c.Computed {
		c.Computed[i].Table = maps.Clone(c.Computed[i].Table)
	}
	return &c
}
