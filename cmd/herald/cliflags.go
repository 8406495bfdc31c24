package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// usageError is a mistake on a command line: main prints it as one line,
// "herald CMD: what was wrong (herald CMD --help)", instead of the whole
// usage.
type usageError struct {
	cmd string // "get", "bench cache"
	msg string
}

func (e *usageError) Error() string {
	return fmt.Sprintf("%s: %s (herald %s --help)", e.cmd, e.msg, e.cmd)
}

// usageErrorf is a usageError of fs's command.
func usageErrorf(fs *flag.FlagSet, format string, args ...any) error {
	return &usageError{cmd: fs.Name(), msg: fmt.Sprintf(format, args...)}
}

// flagError rewrites an error of the flag package as a usageError: flags
// spelled --name as the help spells them, and an unknown flag with the
// nearest known one.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + name
		if near := nearestFlag(fs, name); near != "" {
			msg += "; did you mean --" + near + "?"
		}
		return &usageError{cmd: fs.Name(), msg: msg}
	}
	for _, p := range []string{"for flag -", "for -", "needs an argument: -"} {
		msg = strings.Replace(msg, p, strings.TrimSuffix(p, "-")+"--", 1)
	}
	return &usageError{cmd: fs.Name(), msg: msg}
}

// nearestFlag is the flag of fs whose name is closest to name (at most two
// edits away, or a prefix), or "".
func nearestFlag(fs *flag.FlagSet, name string) string {
	name = strings.TrimLeft(name, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return nearest(name, names, 2)
}

// nearest is the candidate closest to name: at the least edit distance,
// a candidate that name begins (of two letters or more) counting as one
// edit away; "" when none is within maxEdits (< 0: no bound).
func nearest(name string, candidates []string, maxEdits int) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(name, c)
		if strings.HasPrefix(c, name) && len(name) >= 2 {
			d = min(d, 1)
		}
		if (maxEdits < 0 || d <= maxEdits) && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ttlValue is a TTL flag: whole seconds (3600) or a Go duration (1h, 90m)
// as the server's --default-ttl takes; 0 leaves it to the server.
type ttlValue struct{ seconds *int64 }

func (v ttlValue) String() string {
	if v.seconds == nil {
		return ""
	}
	return strconv.FormatInt(*v.seconds, 10)
}

func (v ttlValue) Set(s string) error {
	n, err := parseTTL(s)
	if err != nil {
		return err
	}
	*v.seconds = n
	return nil
}

// parseTTL reads seconds or a duration of whole seconds.
func parseTTL(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, errors.New("a TTL cannot be negative")
		}
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want seconds (3600) or a duration (1h, 90m, 30s)")
	}
	if d < time.Second || d%time.Second != 0 {
		return 0, fmt.Errorf("a TTL is whole seconds, at least 1s")
	}
	return int64(d / time.Second), nil
}

// parseTime reads a time on the command line: RFC 3339 (2026-01-02T15:04:05Z),
// "now", or a signed duration relative to now (-1h, -30m, +5m).
func parseTime(s string, now time.Time) (time.Time, error) {
	switch {
	case s == "now":
		return now, nil
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		d, err := time.ParseDuration(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q: want a duration relative to now such as -1h or -30m", s)
		}
		return now.Add(d), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: want RFC 3339 (2026-01-02T15:04:05Z), now, or relative to now (-1h, -30m)", s)
	}
	return t, nil
}

// outputValue is --output: text (for people, the default) or json (for
// scripts).
type outputValue struct{ format *string }

func (v outputValue) String() string {
	if v.format == nil {
		return ""
	}
	return *v.format
}

func (v outputValue) Set(s string) error {
	if s != "text" && s != "json" {
		return fmt.Errorf("the formats are text and json")
	}
	*v.format = s
	return nil
}
