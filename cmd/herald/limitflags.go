package main

import (
	"flag"
	"strings"

	"github.com/heraldmq/herald/limits"
)

// limitRules is the repeatable --limit flag: rate limits per account and
// door (package limits). A later rule for the same account, door and kind
// replaces an earlier one.
type limitRules struct {
	rules []limits.Rule
	// maxInFlight is --max-in-flight: the node's admission control.
	maxInFlight int
}

func (l *limitRules) register(fs *flag.FlagSet) {
	fs.IntVar(&l.maxInFlight, "max-in-flight", 0, "requests a node serves at once (SQS, SNS, cache puts and queries, rollup events) before it shares itself between accounts, refusing those over their share with a throttling answer; 0: no admission control")
	fs.Var(l, "limit", "a rate limit, [ACCOUNT/]DOOR[.bytes][:NAME]=RATE/s[:BURST] or ...=off (repeatable; doors: "+
		strings.Join(limits.Doors, ", ")+"; path=RATE/s bounds each path's writes), or a quota, [ACCOUNT/]QUOTA=N ("+
		strings.Join(limits.Quotas, ", ")+"), e.g. sqs=500/s, 123456789012/sqs=5000/s:10000, cache.bytes=10MiB/s, queues=10000; none by default: no limit")
}

func (l *limitRules) String() string {
	var s []string
	for _, r := range l.rules {
		s = append(s, r.String())
	}
	return strings.Join(s, " ")
}

func (l *limitRules) Set(text string) error {
	r, err := limits.ParseRule(text)
	if err != nil {
		return err
	}
	rules, err := limits.ParseRules(append(specsOf(l.rules), r.String()))
	if err != nil {
		return err
	}
	l.rules = rules
	return nil
}

func specsOf(rules []limits.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.String()
	}
	return out
}
