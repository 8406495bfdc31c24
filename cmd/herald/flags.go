package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
)

// newFlagSet returns a flag set for one command whose usage text lists its
// flags with their environment variables.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: herald %s\n\nFlags (those with a variable shown also settable from the environment):\n", synopsis)
		fs.VisitAll(func(f *flag.Flag) {
			if fromEnv(fs, f.Name) {
				fmt.Fprintf(fs.Output(), "  --%s (%s)\n    \t%s", f.Name, envName(f.Name), f.Usage)
			} else {
				fmt.Fprintf(fs.Output(), "  --%s\n    \t%s", f.Name, f.Usage)
			}
			if f.DefValue != "" {
				fmt.Fprintf(fs.Output(), " (default %s)", f.DefValue)
			}
			fmt.Fprintln(fs.Output())
		})
	}
	return fs
}

// envName is the environment variable that sets a flag: HERALD_DATA_DIR for
// --data-dir.
func envName(flagName string) string {
	return "HERALD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// envOnly records the flag sets whose flags are read from the environment
// only when named there: a client command reads HERALD_SERVER and
// HERALD_TOKEN, not generic names such as HERALD_PATH or HERALD_LIMIT.
var envOnly = struct {
	sync.Mutex
	sets map[*flag.FlagSet][]string
}{sets: map[*flag.FlagSet][]string{}}

// limitEnv makes parseFlags read only the named flags of fs from the
// environment.
func limitEnv(fs *flag.FlagSet, names ...string) {
	envOnly.Lock()
	defer envOnly.Unlock()
	envOnly.sets[fs] = names
}

// fromEnv reports whether parseFlags reads flag name of fs from the
// environment.
func fromEnv(fs *flag.FlagSet, name string) bool {
	envOnly.Lock()
	defer envOnly.Unlock()
	names, limited := envOnly.sets[fs]
	return !limited || slices.Contains(names, name)
}

// parseFlags applies environment variables, then the command line.
func parseFlags(fs *flag.FlagSet, args []string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if !fromEnv(fs, f.Name) {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok && err == nil {
			if setErr := f.Value.Set(v); setErr != nil {
				err = fmt.Errorf("%s=%q: %v", envName(f.Name), v, setErr)
			}
		}
	})
	if err != nil {
		return err
	}
	// The flag package prints the whole usage on any mistake; here a
	// mistake gets one line with a hint (see usageError), and only --help
	// prints the usage.
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err = parseInterspersed(fs, args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		usage()
		return err
	}
	return flagError(fs, err)
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments (`herald get UUID --server URL`), unlike flag.Parse, which stops at
// the first positional one. "--" ends flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	return fs.Parse(append([]string{"--"}, positional...))
}
