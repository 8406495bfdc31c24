package rollup

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heraldmq/herald"
)

// Computed is a member a rollup derives from each event, named like a
// member and usable wherever one is in scopes, dimensions and
// drill-downs (a computed dimension). Fn says how:
//
//   - hour_of_day: the hour of the event's time in the rollup's time
//     zone, "00" to "23";
//   - day_of_week: its day there, "mon" to "sun";
//   - prefix: the first Length characters of Member's value (all of a
//     shorter one);
//   - lookup: Table's value for Member's value, or Default for a value
//     not in Table (with no Default, the event has no value for it).
//
// An event without Member has no value for it. A computed name shadows an
// event member of the same name: the event's own is never read.
type Computed struct {
	Name    string            `json:"name"`
	Fn      string            `json:"fn"`
	Member  string            `json:"member,omitempty"`
	Length  int               `json:"length,omitempty"`
	Table   map[string]string `json:"table,omitempty"`
	Default string            `json:"default,omitempty"`
}

// The functions of a Computed.
const (
	FnHourOfDay = "hour_of_day"
	FnDayOfWeek = "day_of_week"
	FnPrefix    = "prefix"
	FnLookup    = "lookup"
)

// Limits on computed members.
const (
	MaxComputed     = 16
	MaxLookupValues = 1000 // entries of all of a definition's tables
)

var weekdays = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// value returns c's value for an event whose time is at and whose object
// is obj; ok is false when the event has none.
func (c *Computed) value(obj map[string]any, at time.Time, loc *time.Location) (v string, ok bool, err *herald.Error) {
	switch c.Fn {
	case FnHourOfDay:
		return fmt.Sprintf("%02d", at.In(loc).Hour()), true, nil
	case FnDayOfWeek:
		return weekdays[at.In(loc).Weekday()], true, nil
	}
	src, ok, err := scalar(obj, c.Member)
	if err != nil || !ok {
		return "", false, err
	}
	switch c.Fn {
	case FnPrefix:
		p, n := src, 0
		for i := range src {
			if n == c.Length {
				p = src[:i]
				break
			}
			n++
		}
		if len(p) > MaxValueLen {
			return "", false, invalid(c.Member, "a value whose first %d characters are %d bytes; at most %d", c.Length, len(p), MaxValueLen)
		}
		return p, true, nil
	default: // FnLookup
		if v, found := c.Table[src]; found {
			return v, true, nil
		}
		return c.Default, c.Default != "", nil
	}
}

// checkComputed validates d.Computed, each against the event's members,
// the metrics and its siblings, and that scopes or dimensions use it.
func (d *Definition) checkComputed(reserved map[string]string) error {
	if len(d.Computed) > MaxComputed {
		return invalid("computed", "at most %d, got %d", MaxComputed, len(d.Computed))
	}
	entries := 0
	for i := range d.Computed {
		c := &d.Computed[i]
		at := fmt.Sprintf("computed[%d]", i)
		if err := checkMember(at+".name", c.Name); err != nil {
			return err
		}
		if r, ok := reserved[c.Name]; ok {
			return invalid(at+".name", "%q is already %s", c.Name, r)
		}
		if slices.ContainsFunc(d.Computed[:i], func(o Computed) bool { return o.Name == c.Name }) {
			return invalid(at+".name", "%q appears twice", c.Name)
		}
		if !d.usesMember(c.Name) {
			return invalid(at+".name", "%q is in no scope, dimension or drill-down", c.Name)
		}
		if err := d.checkComputedFn(at, c); err != nil {
			return err
		}
		entries += len(c.Table)
		if entries > MaxLookupValues {
			return invalid(at+".table", "the tables hold more than %d entries in all", MaxLookupValues)
		}
	}
	return nil
}

// checkComputedFn checks c's function and the fields it takes (and no
// other).
func (d *Definition) checkComputedFn(at string, c *Computed) error {
	takes := map[string]bool{}
	switch c.Fn {
	case FnHourOfDay, FnDayOfWeek:
	case FnPrefix:
		takes["member"], takes["length"] = true, true
		if c.Length < 1 || c.Length > MaxValueLen {
			return invalid(at+".length", "%d characters; want 1 to %d", c.Length, MaxValueLen)
		}
	case FnLookup:
		takes["member"], takes["table"], takes["default"] = true, true, true
		if len(c.Table) == 0 {
			return invalid(at+".table", "a lookup needs a table of values, such as {\"FR\": \"Europe\"}")
		}
		for k, v := range c.Table {
			if err := checkText(at+".table", k); err != nil {
				return err
			}
			if err := checkText(at+".table", v); err != nil {
				return err
			}
		}
		if c.Default != "" {
			if err := checkText(at+".default", c.Default); err != nil {
				return err
			}
		}
	default:
		return invalid(at+".fn", "%q is not one of hour_of_day, day_of_week, prefix, lookup", herald.Clip(c.Fn))
	}
	for field, set := range map[string]bool{"member": c.Member != "", "length": c.Length != 0, "table": c.Table != nil, "default": c.Default != ""} {
		if set && !takes[field] {
			return invalid(at+"."+field, "%s takes no %s", c.Fn, field)
		}
	}
	if takes["member"] {
		if err := checkMember(at+".member", c.Member); err != nil {
			return err
		}
		if d.computed(c.Member) != nil {
			return invalid(at+".member", "%q is computed; a computed member reads the event's own", c.Member)
		}
	}
	return nil
}

// checkText checks a value a table gives or takes: what an event's value
// may be.
func checkText(at, s string) error {
	if s == "" || len(s) > MaxValueLen || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return invalid(at, "%q is not a value: 1 to %d bytes of UTF-8 text without control characters", herald.Clip(s), MaxValueLen)
	}
	return nil
}

// usesMember reports whether a scope or a dimension names m (a
// drill-down's members are dimensions).
func (d *Definition) usesMember(m string) bool {
	if slices.Contains(d.Dimensions, m) {
		return true
	}
	return slices.ContainsFunc(d.Scopes, func(s []string) bool { return slices.Contains(s, m) })
}

// computed returns the computed member named m, or nil.
func (d *Definition) computed(m string) *Computed {
	for i := range d.Computed {
		if d.Computed[i].Name == m {
			return &d.Computed[i]
		}
	}
	return nil
}
