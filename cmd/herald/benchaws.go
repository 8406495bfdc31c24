package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// signingFlags are the SigV4 flags of the benchmarks that call Herald's
// AWS APIs ('bench sqs', 'bench sns').
type signingFlags struct {
	accessKey, secretKey, region *string
}

// register adds --access-key, --secret-key and --region; services names
// what the requests are signed for, in the help.
func (s signingFlags) register(fs *flag.FlagSet, services string) {
	fs.StringVar(s.accessKey, "access-key", "", "AWS access key id; with --secret-key, requests are signed with SigV4 ("+services+")")
	fs.StringVar(s.secretKey, "secret-key", "", "AWS secret access key (prefer the environment variable)")
	fs.StringVar(s.region, "region", "us-east-1", "AWS region named in signatures")
}

func (s signingFlags) check() error {
	if (*s.accessKey == "") != (*s.secretKey == "") {
		return fmt.Errorf("--access-key and --secret-key go together")
	}
	return nil
}

// scenarios are a benchmark's runs by --scenario name.
type scenarios map[string]func(context.Context) (fmt.Stringer, error)

// check reports an unknown scenario name, listing the known ones.
func (sc scenarios) check(name string) error {
	if _, ok := sc[name]; ok {
		return nil
	}
	names := make([]string, 0, len(sc))
	for n := range sc {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Errorf("unknown scenario %q (%s)", name, strings.Join(names, ", "))
}

// run runs scenario name and writes its report (see writeReport).
func (sc scenarios) run(ctx context.Context, name string, stdout io.Writer, jsonOut bool) error {
	report, err := sc[name](ctx)
	return writeReport(stdout, report, jsonOut, err)
}
