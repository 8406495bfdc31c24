package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// runRollup is 'herald rollup VERB ...': the rollup API from the command
// line (docs/rollups.md).
func runRollup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = "usage: herald rollup put NAME [FILE] | get NAME | list | delete NAME | send NAME [FILE] | backfill NAME --from T --to T | series|totals|top NAME [flags]"
	switch {
	case len(args) == 0:
		return errors.New("rollup needs a verb: put, get, list, delete, send, backfill, series, totals or top (herald rollup --help)")
	case isHelp(args[0]):
		fmt.Fprintln(stdout, usage)
		return flag.ErrHelp
	}
	verb, rest := args[0], args[1:]
	switch verb {
	case "put", "get", "list", "delete", "send", "backfill", "series", "totals", "top":
	default:
		return fmt.Errorf("unknown rollup verb %q: the verbs are put, get, list, delete, send, backfill, series, totals and top (herald rollup --help)", verb)
	}
	fs, cf := newClientFlagSet("rollup "+verb, "rollup "+verb+" [flags]", stderr, false)
	var (
		scope, within                                stringList
		unit, from, to, dim, value, metrics, orderBy string
		n, offset, limit                             int
		after, start                                 string
		asc                                          bool
	)
	switch verb {
	case "series", "totals", "top":
		fs.Var(&scope, "scope", "MEMBER=VALUE of the scope (repeat for each member), e.g. channel=c1")
		fs.StringVar(&unit, "unit", "all", "a period of the rollup: minute, hour, day, week, month, year or all")
		fs.StringVar(&from, "from", "", "start of the range: RFC 3339, or relative to now such as -24h (not for unit all)")
		fs.StringVar(&to, "to", "", "end of the range, excluded: RFC 3339, now, or relative such as -1h (not for unit all)")
		fs.StringVar(&dim, "dimension", "", "a dimension (top: the one ranked)")
		fs.StringVar(&value, "value", "", "the dimension's value (series, totals)")
		fs.Var(&within, "within", "OUTER=VALUE: the outer value of a drill-down")
		fs.StringVar(&metrics, "metrics", "", "comma-separated metrics (series, totals; default all)")
		fs.StringVar(&orderBy, "order-by", "", "top: the metric to rank by (default the first)")
		fs.BoolVar(&asc, "asc", false, "top: smallest first")
		fs.IntVar(&n, "n", 0, "top: values per page (default 10)")
		fs.IntVar(&offset, "offset", 0, "top: values to skip (next_offset of the previous page)")
	case "backfill":
		fs.StringVar(&from, "from", "", "read the messages the cache stored from: RFC 3339, or relative to now such as -24h (required)")
		fs.StringVar(&to, "to", "now", "to (excluded): RFC 3339, now, or relative such as -1h")
		fs.StringVar(&start, "start", "", "fill the parts starting then (RFC 3339; default the newest)")
	case "list":
		fs.StringVar(&after, "after", "", "the last name of the previous page")
		fs.IntVar(&limit, "limit", 100, "rollups per page")
	}
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	c := cf.client()
	arg := func(i int) string {
		if fs.NArg() > i {
			return fs.Arg(i)
		}
		return ""
	}
	need := func(k int) error {
		if fs.NArg() < k || fs.NArg() > k+1 {
			return fmt.Errorf("%s", usage)
		}
		return nil
	}
	var out json.RawMessage
	var err error
	switch verb {
	case "put", "send":
		if err := need(1); err != nil {
			return err
		}
		file := arg(1)
		if file == "" {
			file = "-" // the body on standard input
		}
		body, rerr := readFileOrStdin(file)
		if rerr != nil {
			return rerr
		}
		if verb == "put" {
			out, _, err = c.PutRollup(ctx, arg(0), body)
		} else {
			out, err = c.SendRollupEvents(ctx, arg(0), body)
		}
	case "get":
		if err := need(1); err != nil {
			return err
		}
		out, err = c.GetRollup(ctx, arg(0))
	case "delete":
		if err := need(1); err != nil {
			return err
		}
		if err := c.DeleteRollup(ctx, arg(0)); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "deleted", arg(0))
		return nil
	case "list":
		out, err = c.ListRollups(ctx, after, limit)
	case "backfill":
		if err := need(1); err != nil || fs.NArg() != 1 {
			return fmt.Errorf("%s", usage)
		}
		if from == "" {
			return usageErrorf(fs, "--from is required: where in the cache's journal to start reading")
		}
		now := time.Now()
		var times [3]time.Time
		for i, t := range []struct{ flag, text string }{{"from", from}, {"to", to}, {"start", start}} {
			if t.text == "" {
				continue
			}
			at, perr := parseTime(t.text, now)
			if perr != nil {
				return usageErrorf(fs, "--%s %v", t.flag, perr)
			}
			times[i] = at
		}
		out, err = c.BackfillRollup(ctx, arg(0), times[0], times[1], times[2])
	case "series", "totals", "top":
		if err := need(1); err != nil {
			return err
		}
		q := url.Values{"unit": {unit}}
		now := time.Now()
		for name, t := range map[string]*string{"from": &from, "to": &to} {
			if *t == "" {
				continue
			}
			at, err := parseTime(*t, now)
			if err != nil {
				return usageErrorf(fs, "--%s %v", name, err)
			}
			*t = at.UTC().Format(time.RFC3339Nano)
		}
		for k, v := range map[string]string{"from": from, "to": to, "dimension": dim, "value": value, "metrics": metrics, "order_by": orderBy} {
			if v != "" {
				q.Set(k, v)
			}
		}
		for prefix, list := range map[string]stringList{"scope.": scope, "within.": within} {
			for _, kv := range list {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return fmt.Errorf("--%s %q: want MEMBER=VALUE", strings.TrimSuffix(prefix, "."), kv)
				}
				q.Set(prefix+k, v)
			}
		}
		if n > 0 {
			q.Set("n", strconv.Itoa(n))
		}
		if offset > 0 {
			q.Set("offset", strconv.Itoa(offset))
		}
		if asc {
			q.Set("order", "asc")
		}
		out, err = c.QueryRollup(ctx, arg(0), verb, q)
	default:
		return fmt.Errorf("%s", usage)
	}
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return err
	}
	return printJSON(stdout, v)
}
