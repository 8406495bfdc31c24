package limits

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/paths"
)

// Doors: the ways into Herald a rule can limit.
const (
	DoorSQS    = "sqs"
	DoorSNS    = "sns"
	DoorCache  = "cache"  // Herald's HTTP API to the message cache
	DoorWS     = "ws"     // WebSocket publishes
	DoorAMQP   = "amqp"   // AMQP ingest
	DoorRollup = "rollup" // rollup events
)

// Doors lists every door, in the order the console shows them.
var Doors = []string{DoorSQS, DoorSNS, DoorCache, DoorWS, DoorAMQP, DoorRollup}

// Quotas: counts an account may hold, not rates. A rule "queues=1000"
// bounds each account's queues (in each region), "topics=100" its topics,
// "subscriptions=1000" the subscriptions of each of its topics,
// "rollups=50" its rollups, "websockets=500" the WebSockets it holds open
// on each node.
const (
	QuotaQueues        = "queues"
	QuotaTopics        = "topics"
	QuotaSubscriptions = "subscriptions"
	QuotaRollups       = "rollups"
	QuotaWebSockets    = "websockets"
)

// Quotas lists every quota.
var Quotas = []string{QuotaQueues, QuotaTopics, QuotaSubscriptions, QuotaRollups, QuotaWebSockets}

// maxQuota bounds a quota's count.
const maxQuota = 1 << 30

// ScopePath is not a door: a rule "path=RATE/s" bounds the writes to each
// single path of the message cache, through whatever door they come (a
// path written in a tight loop; AdmitPaths).
const ScopePath = "path"

// Bounds of what a rule may say.
const (
	maxAccountLen = 64
	maxRate       = 1e9 // per second, requests or bytes
	maxRules      = 10000
)

// Rule is one limit: a rate of requests (or of bytes, when Bytes) through
// Door, for Account or, when Account is "", for each account alone.
type Rule struct {
	Account string
	Door    string
	// Name, when set, makes the rule one queue's (Door sqs), one topic's
	// (sns) or one subtree of paths' (path): it overrides the account's
	// rule of that door for the requests that name it (Limiter.AdmitOn).
	Name  string
	Bytes bool
	// PerSecond is the sustained rate; 0 with Off means no limit (a rule
	// for one account lifting the default for it).
	PerSecond float64
	// Count, for a quota (Door one of Quotas), is how many the account may
	// hold.
	Count int
	// Burst is how many (requests or bytes) may come at once above the
	// rate; 0 takes the default: one second's worth, at least 1 request
	// or 1 MiB.
	Burst int
	Off   bool
}

// Doors whose rules may name one queue, topic or subtree of paths
// ("sqs:orders=50/s", "sns:alerts=10/s", "path:news.live=5/s").
var namedScopes = []string{DoorSQS, DoorSNS, ScopePath}

const maxNameLen = 256

// ParseRule reads "[ACCOUNT/]DOOR[.bytes][:NAME]=RATE/s[:BURST]" or
// "...=off". RATE is a number, for bytes with an optional unit (KiB, MiB,
// GiB, KB, MB, GB). NAME, for the doors sqs and sns and the scope path, is
// a queue's, a topic's or a subtree's.
func ParseRule(s string) (Rule, error) {
	var r Rule
	key, value, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return r, fmt.Errorf("limit %q: want [ACCOUNT/]DOOR[.bytes][:NAME]=RATE/s[:BURST] or ...=off", clip(s))
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if account, door, ok := strings.Cut(key, "/"); ok {
		if account == "" || len(account) > maxAccountLen || strings.ContainsFunc(account, badAccountRune) {
			return r, fmt.Errorf("limit %q: account %q is not an account id", clip(s), part(account))
		}
		r.Account, key = account, door
	}
	if head, name, ok := strings.Cut(key, ":"); ok {
		if err := r.setName(head, name); err != nil {
			return r, fmt.Errorf("limit %q: %w", clip(s), err)
		}
		key = head
	}
	if door, kind, ok := strings.Cut(key, "."); ok {
		if kind != "bytes" {
			return r, fmt.Errorf("limit %q: %q is not a kind of limit (only DOOR.bytes is)", clip(s), part(kind))
		}
		r.Bytes, key = true, door
	}
	if slices.Contains(Quotas, key) {
		r.Door = key
		if r.Name != "" {
			return r, fmt.Errorf("limit %q: a quota is the account's, not one resource's", clip(s))
		}
		if r.Bytes {
			return r, fmt.Errorf("limit %q: a quota counts %s, not bytes", clip(s), key)
		}
		if value == "off" {
			r.Off = true
			return r, nil
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n > maxQuota {
			return r, fmt.Errorf("limit %q: quota %q is not a whole number from 0 to %d (or off)", clip(s), part(value), maxQuota)
		}
		r.Count = n
		return r, nil
	}
	if !slices.Contains(Doors, key) && key != ScopePath {
		return r, fmt.Errorf("limit %q: %q is not a door (%s), path or a quota (%s)", clip(s), part(key), strings.Join(Doors, ", "), strings.Join(Quotas, ", "))
	}
	if key == ScopePath && r.Bytes {
		return r, fmt.Errorf("limit %q: a path's limit counts writes, not bytes", clip(s))
	}
	r.Door = key
	if r.Name != "" && !slices.Contains(namedScopes, key) {
		return r, fmt.Errorf("limit %q: only a rule of %s may name one queue, topic or subtree", clip(s), strings.Join(namedScopes, ", "))
	}
	if value == "off" {
		r.Off = true
		return r, nil
	}
	rate, burst, hasBurst := strings.Cut(value, ":")
	num, ok := strings.CutSuffix(rate, "/s")
	if !ok {
		return r, fmt.Errorf("limit %q: rate %q must end in /s", clip(s), part(rate))
	}
	v, err := parseAmount(num, r.Bytes)
	if err != nil || v <= 0 || v > maxRate {
		return r, fmt.Errorf("limit %q: rate %q is not a number between 0 and %g per second (or off)", clip(s), part(num), float64(maxRate))
	}
	r.PerSecond = v
	if hasBurst {
		b, err := parseAmount(burst, r.Bytes)
		if err != nil || b < 1 || b > maxRate || b != math.Trunc(b) {
			return r, fmt.Errorf("limit %q: burst %q is not a whole number between 1 and %g", clip(s), part(burst), float64(maxRate))
		}
		r.Burst = int(b)
	}
	return r, nil
}

// ParseRules reads rules one after the other; a later rule for the same
// account, door and kind replaces an earlier one.
func ParseRules(specs []string) ([]Rule, error) {
	if len(specs) > maxRules {
		return nil, fmt.Errorf("%d limits: at most %d", len(specs), maxRules)
	}
	var out []Rule
	for _, s := range specs {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		out = slices.DeleteFunc(out, func(o Rule) bool { return o.key() == r.key() })
		out = append(out, r)
	}
	return out, nil
}

// String is the rule as ParseRule reads it.
func (r Rule) String() string {
	var b strings.Builder
	if r.Account != "" {
		b.WriteString(r.Account + "/")
	}
	b.WriteString(r.Door)
	if r.Bytes {
		b.WriteString(".bytes")
	}
	if r.Name != "" {
		b.WriteString(":" + r.Name)
	}
	b.WriteString("=")
	if r.Off {
		b.WriteString("off")
		return b.String()
	}
	if slices.Contains(Quotas, r.Door) {
		b.WriteString(strconv.Itoa(r.Count))
		return b.String()
	}
	b.WriteString(strconv.FormatFloat(r.PerSecond, 'f', -1, 64) + "/s")
	if r.Burst > 0 {
		b.WriteString(":" + strconv.Itoa(r.Burst))
	}
	return b.String()
}

// burst is the bucket's depth: the rule's, or one second's worth, at
// least one request or 1 MiB (so that one message of the largest size
// passes).
func (r Rule) burst() int {
	if r.Burst > 0 {
		return r.Burst
	}
	b := int(math.Ceil(r.PerSecond))
	if r.Bytes {
		b = max(b, 1<<20)
	}
	return max(b, 1)
}

// ruleKey names what a rule limits.
// ruleKey names what a rule limits, and a bucket (whose name is then the
// queue, topic or path it counts).
type ruleKey struct {
	account, door, name string
	bytes               bool
}

func (r Rule) key() ruleKey {
	return ruleKey{account: r.Account, door: r.Door, name: r.Name, bytes: r.Bytes}
}

// setName checks name, the part after ":" of a rule's key.
func (r *Rule) setName(head, name string) error {
	if name == "" || len(name) > maxNameLen || strings.ContainsFunc(name, func(c rune) bool { return c <= ' ' || c == 0x7f || c == '=' || c == '/' || c == ':' }) {
		return fmt.Errorf("%q is not a queue, topic or path name (1 to %d characters, no spaces, \"=\", \"/\" or \":\")", part(name), maxNameLen)
	}
	door, _, _ := strings.Cut(head, ".")
	if door == ScopePath {
		if err := paths.Validate(name); err != nil {
			return fmt.Errorf("%q is not a path: %v", part(name), err)
		}
	}
	r.Name = name
	return nil
}

// parseAmount reads a number with, for bytes, an optional unit.
func parseAmount(s string, bytes bool) (float64, error) {
	mult := 1.0
	if bytes {
		for _, u := range []struct {
			suffix string
			mult   float64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}} {
			if n, ok := strings.CutSuffix(s, u.suffix); ok {
				s, mult = n, u.mult
				break
			}
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return v * mult, nil
}

func badAccountRune(c rune) bool {
	return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_')
}

// clip bounds the whole rule an error repeats; part bounds a piece of it
// named besides, so that no error grows with its input.
func clip(s string) string { return herald.Clip(s) }

func part(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
