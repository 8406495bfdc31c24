package rollup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heraldmq/herald"
)

// Event is one event as a rollup reads it.
type Event struct {
	ID   string
	Time time.Time
	// Values are the event's values of the scope members and dimensions,
	// by member name; a member the event lacks (or gives as null or "")
	// is absent.
	Values map[string]string
	// Deltas are the event's metric deltas, in the order of the
	// definition's Metrics (0 for a metric the event lacks).
	Deltas []int64
}

// Limits on events.
const (
	MaxEventsPerBody = 1000
	MaxIDLen         = 128
	MaxValueLen      = 256
	// MaxDelta bounds one delta, so that sums of many stay exact in an
	// int64 (and in a JSON reader's float64).
	MaxDelta = 1 << 40
)

// ParseEvents reads a message body as events of d: one JSON object, or an
// array of them. It returns the events that are well formed and one error
// per malformed event, naming its position and member (such an event is
// counted and skipped, never stopping the others). err is set, and nothing
// returned, when the body as a whole is not an object or an array of
// objects.
func (d *Definition) ParseEvents(body []byte) (events []Event, bad []error, err error) {
	body = bytes.TrimSpace(body)
	var raws []json.RawMessage
	switch {
	case len(body) > 0 && body[0] == '{':
		raws = []json.RawMessage{body}
	case len(body) > 0 && body[0] == '[':
		if err := json.Unmarshal(body, &raws); err != nil {
			return nil, nil, herald.Errorf(herald.EInvalid, "events: not a JSON array of objects: %s", herald.Clip(err.Error()))
		}
		if len(raws) > MaxEventsPerBody {
			return nil, nil, herald.Errorf(herald.ETooLarge, "events: %d in one body; at most %d", len(raws), MaxEventsPerBody)
		}
	default:
		return nil, nil, herald.Errorf(herald.EInvalid, "events: a body is one JSON object or an array of them")
	}
	for i, raw := range raws {
		e, err := d.parseEvent(raw)
		if err != nil {
			if len(raws) > 1 {
				err = herald.Errorf(err.Code, "events[%d].%s", i, err.Message)
			}
			bad = append(bad, err)
			continue
		}
		events = append(events, e)
	}
	return events, bad, nil
}

// parseEvent reads one event object.
func (d *Definition) parseEvent(raw json.RawMessage) (Event, *herald.Error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return Event{}, invalid("event", "not a JSON object")
	}
	e := Event{Deltas: make([]int64, len(d.Metrics))}
	id, ok, err := scalar(obj, d.Event.ID)
	switch {
	case err != nil:
		return Event{}, err
	case !ok:
		return Event{}, invalid(d.Event.ID, "the event's id is missing")
	case len(id) > MaxIDLen:
		return Event{}, invalid(d.Event.ID, "an id of %d bytes; at most %d", len(id), MaxIDLen)
	}
	e.ID = id
	if e.Time, err = eventTime(obj, d.Event.Time); err != nil {
		return Event{}, err
	}
	for i := range d.Computed {
		c := &d.Computed[i]
		v, ok, err := c.value(obj, e.Time, d.Location())
		if err != nil {
			return Event{}, err
		}
		if e.Values == nil {
			e.Values = map[string]string{}
		}
		if ok {
			e.Values[c.Name] = v
		}
	}
	for _, scope := range d.Scopes {
		for _, m := range scope {
			if err := d.take(&e, obj, m); err != nil {
				return Event{}, err
			}
		}
	}
	for _, m := range d.Dimensions {
		if err := d.take(&e, obj, m); err != nil {
			return Event{}, err
		}
	}
	for _, x := range d.Distinct {
		if err := d.take(&e, obj, x.Of); err != nil {
			return Event{}, err
		}
	}
	for i, m := range d.Metrics {
		if d.distinctOf(i) != nil {
			continue // counts values of its member, never a delta
		}
		v, found := lookup(obj, m)
		if !found || v == nil {
			continue
		}
		n, ok := v.(json.Number)
		if !ok {
			return Event{}, invalid(m, "a metric is an integer delta, not %s", kind(v))
		}
		x, perr := n.Int64()
		if perr != nil || x > MaxDelta || x < -MaxDelta {
			return Event{}, invalid(m, "%s is not an integer delta within ±%d", herald.Clip(n.String()), int64(MaxDelta))
		}
		e.Deltas[i] = x
	}
	return e, nil
}

// take reads the value of member m into e.Values (once; never for a
// computed member, whose value, if any, is there already).
func (d *Definition) take(e *Event, obj map[string]any, m string) *herald.Error {
	if _, done := e.Values[m]; done || (len(d.Computed) > 0 && d.computed(m) != nil) {
		return nil
	}
	v, ok, err := scalar(obj, m)
	if err != nil || !ok {
		return err
	}
	if len(v) > MaxValueLen {
		return invalid(m, "a value of %d bytes; at most %d", len(v), MaxValueLen)
	}
	if e.Values == nil {
		e.Values = map[string]string{}
	}
	e.Values[m] = v
	return nil
}

// scalar reads member m as a value: a string, a number (its JSON text) or
// a boolean. ok is false when it is missing, null or "". Values must be
// valid UTF-8 without control characters (row keys join values with one).
func scalar(obj map[string]any, m string) (string, bool, *herald.Error) {
	v, _ := lookup(obj, m)
	var s string
	switch x := v.(type) {
	case nil:
		return "", false, nil
	case string:
		s = x
	case json.Number:
		s = x.String()
	case bool:
		s = fmt.Sprint(x)
	default:
		return "", false, invalid(m, "a value is a string, a number or a boolean, not %s", kind(v))
	}
	if s == "" {
		return "", false, nil
	}
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", false, invalid(m, "a value must be UTF-8 text without control characters")
	}
	return s, true, nil
}

// eventTime reads member m as the event's time: an RFC 3339 string, or a
// number of seconds since the Unix epoch.
func eventTime(obj map[string]any, m string) (time.Time, *herald.Error) {
	v, _ := lookup(obj, m)
	switch x := v.(type) {
	case nil:
		return time.Time{}, invalid(m, "the event's time is missing")
	case string:
		t, perr := time.Parse(time.RFC3339Nano, x)
		if perr != nil {
			return time.Time{}, invalid(m, "%q is not an RFC 3339 time such as \"2026-12-01T10:00:00Z\"", herald.Clip(x))
		}
		return t.UTC(), nil
	case json.Number:
		f, perr := x.Float64()
		if perr != nil || math.IsInf(f, 0) || f < 0 || f > 1e11 {
			return time.Time{}, invalid(m, "%s is not a time in seconds since the Unix epoch", herald.Clip(x.String()))
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
	}
	return time.Time{}, invalid(m, "a time is an RFC 3339 string or seconds since the Unix epoch, not %s", kind(v))
}

// lookup follows member m's dot-separated keys into nested objects.
func lookup(obj map[string]any, m string) (any, bool) {
	var cur any = obj
	for key := range strings.SplitSeq(m, ".") {
		o, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = o[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return "null"
}

// ErrLate is the cause of an event refused for its time: older than the
// rollup's dedup window (it could no longer be counted exactly once) or
// too far ahead of the clock.
var ErrLate = errors.New("rollup: event outside the accepted time range")

// MaxAhead is how far ahead of the clock an event's time may be (clock
// skew between producers and Herald).
const MaxAhead = 5 * time.Minute

// CheckTime refuses an event older than the dedup window or more than
// MaxAhead ahead of now.
func (d *Definition) CheckTime(e Event, now time.Time) error {
	switch {
	case e.Time.Before(now.Add(-time.Duration(d.DedupWindow))):
		return &herald.Error{Code: herald.EInvalid, Err: ErrLate,
			Message: fmt.Sprintf("event %q: its time %s is older than the dedup window (%s)", herald.Clip(e.ID), e.Time.Format(time.RFC3339), d.DedupWindow)}
	case e.Time.After(now.Add(MaxAhead)):
		return &herald.Error{Code: herald.EInvalid, Err: ErrLate,
			Message: fmt.Sprintf("event %q: its time %s is more than %s ahead of the clock", herald.Clip(e.ID), e.Time.Format(time.RFC3339), MaxAhead)}
	}
	return nil
}
