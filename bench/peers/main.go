// Command peers runs Herald side by side with its peers on this machine
// and writes the table BENCHMARKS.md quotes (issue 17):
//
//	go run ./bench/peers [flags]
//
// It installs fauxqs (npm, with Node 22 from the npm registry), ElasticMQ
// (Maven Central), moto (PyPI, in a virtual environment) and Centrifugo
// (its Go module) at the versions pinned in versions.go, under a cache
// directory, once. It builds herald and bench/tcpfloor from this work
// tree, then starts every server on a free loopback port: a trivial Go
// SQS server (the ceiling), Herald embedded on a fresh data directory,
// optionally Herald on Cassandra + Redis (--cassandra), fauxqs, ElasticMQ,
// moto and Centrifugo. It warms each SQS server up and runs `herald bench
// sqs` (the default mix, then batches of 10) against each in interleaved
// rounds, the ceiling in every round; then `herald bench ws` against Herald
// and Centrifugo (--protocol centrifugo) and bench/tcpfloor, interleaved
// the same way. For every run it records throughput, latencies, errors,
// the server's CPU seconds from /proc/PID/stat (its children's and, under
// Herald on Cassandra, Cassandra's and Redis's apart) and its resident
// memory from /proc/PID/status.
//
// Every load it makes runs under the exclusive lock /tmp/herald-load.lock
// (flock(2), the lock `flock /tmp/herald-load.lock CMD` takes), held from
// the first server's start to the last one's stop; installs and builds
// happen before it. All traffic stays on 127.0.0.1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	opts, err := parseOptions(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(2)
	}
	if opts.serveCeiling != "" {
		if err := serveCeiling(opts.serveCeiling, opts.messageSize); err != nil {
			fmt.Fprintln(os.Stderr, "peers: ceiling:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, os.Args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}
