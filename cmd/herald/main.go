// Command herald runs the Herald server and talks to one from a terminal.
//
//	herald [serve] [flags]      run the server (the default command)
//	herald put|get|latest|all|journal|paths ...   client commands
//
// Run `herald --help` or `herald COMMAND --help` for every flag.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// command is one herald subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "run the Herald server (the default when no command is given)", runServe},
		{"put", "store a message", runPut},
		{"get", "show one message by its message_uuid", runGet},
		{"latest", "show the latest message of every path matching a pattern", runLatest},
		{"all", "show every unexpired message of one path, newest first", runAll},
		{"journal", "show the messages received in a time range, oldest first", runJournal},
		{"paths", "list the paths at or below a prefix", runPaths},
		{"queues", "list the account's SQS queues with their visible, in-flight and delayed counts", runQueues},
		{"topics", "list the account's SNS topics with their subscriptions", runTopics},
		{"peek", "show a queue's oldest messages without receiving them", runPeek},
		{"sqs-reindex", "rebuild every queue's Redis state of the server's data center from Cassandra (after a switch-back)", runSQSReindex},
		{"dc", "show the data centers, or fence a lost one and unfence it when back (dc status|fence DC|unfence DC)", runDC},
		{"rollup", "define rollups, send them events and query their counters (rollup put|get|list|delete|send|series|totals|top)", runRollup},
		{"bench", "load a running server and report throughput and latency (bench cache)", runBench},
		{"backup", "copy the embedded store into a new directory, also while Herald runs (docs/operations.md)", runBackup},
		{"chaos", "run a fault drill: load herald processes of its own while injecting faults (RELIABILITY.md)", runChaos},
		{"version", "print the version, commit and Go version of this binary (also: herald --version)", runVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(1)
	}
}

// errorLine is how a command's error is printed: one line, with one
// "herald" prefix however many layers added theirs ("herald get: ..." for a
// mistake on the command line, else "herald: ...").
func errorLine(err error) string {
	var ue *usageError
	if errors.As(err, &ue) {
		return "herald " + ue.Error()
	}
	msg := err.Error()
	for {
		trimmed := strings.TrimPrefix(msg, "herald: ")
		if trimmed == msg {
			break
		}
		msg = trimmed
	}
	msg = strings.ReplaceAll(msg, ": herald: ", ": ")
	return "herald: " + strings.ReplaceAll(msg, "\n", "\n  ")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			usage(stdout)
			return nil
		case "-version", "--version":
			return runVersion(ctx, args[1:], stdout, stderr)
		}
		for _, c := range commands() {
			if c.name == args[0] {
				return c.run(ctx, args[1:], stdout, stderr)
			}
		}
		if args[0] != "" && args[0][0] != '-' {
			return unknownCommand(args[0])
		}
	}
	return runServe(ctx, args, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Herald: a message cache with path queries, SQS/SNS-compatible queues and
topics, WebSocket push and an AMQP bridge.

Usage:
  herald [serve] [flags]     run the server; see 'herald serve --help'
  herald COMMAND [flags]     talk to a running server

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Every flag of 'herald serve' can also be set with an environment variable:
HERALD_ followed by the flag name in capitals with '-' as '_' (for example
HERALD_LISTEN=0.0.0.0:4566). A flag on the command line wins over the
environment. Client commands take --server (HERALD_SERVER), default
http://127.0.0.1:4566.

Run 'herald COMMAND --help' for the flags of a command.
`)
}

// unknownCommand is the one-line error for a command herald does not have,
// with the nearest one.
func unknownCommand(name string) error {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	best := nearest(name, names, 2)
	msg := fmt.Sprintf("unknown command %q", name)
	if best != "" {
		msg += "; did you mean " + best + "?"
	}
	return errors.New(msg + " (herald --help lists the commands)")
}
