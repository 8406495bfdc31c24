package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/heraldmq/herald/chaos"
)

// runChaos is 'herald chaos': it wires flags to chaos.Run (RELIABILITY.md).
func runChaos(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		cfg               chaos.Config
		scenarios, faults string
		hosts             string
		jsonOut           bool
	)
	fs := newFlagSet("chaos", "chaos [flags]   run a fault drill against herald processes of its own (RELIABILITY.md)", stderr)
	fs.StringVar(&scenarios, "scenario", "sqs", "scenarios, comma-separated: "+strings.Join(chaos.ScenarioNames(), ", ")+", or all")
	fs.StringVar(&cfg.Store, "store", chaos.StoreEmbedded, "setup: embedded, or cassandra (Cassandra + a redis-server the drill runs)")
	fs.StringVar(&hosts, "cassandra-hosts", "127.0.0.1:9042", "Cassandra nodes, comma-separated host:port (loopback); herald reaches them through the drill's proxies")
	fs.StringVar(&cfg.CassandraKeyspace, "cassandra-keyspace", "", "keyspace; empty: a fresh one (herald_chaos_...), dropped at the end")
	fs.StringVar(&cfg.AMQPURL, "amqp-url", "", "RabbitMQ URL (loopback), needed by the amqp scenario")
	fs.IntVar(&cfg.Messages, "messages", 10000, "acknowledged messages each scenario aims for")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Minute, "upper bound of each scenario's load")
	fs.Float64Var(&cfg.Rate, "rate", 0, "messages per second in all (0: flat out)")
	fs.IntVar(&cfg.Producers, "producers", 4, "concurrent producers")
	fs.IntVar(&cfg.Consumers, "consumers", 4, "concurrent consumers (WebSocket connections for ws-queue)")
	fs.IntVar(&cfg.Batch, "batch", 10, "messages per produce call (SQS and AMQP batches; SNS and cache send them one by one)")
	fs.IntVar(&cfg.PayloadBytes, "payload-bytes", 128, "payload size of each message (its body adds the id and checksum)")
	fs.IntVar(&cfg.Subscribers, "subscribers", 2, "subscriptions of the SNS scenarios")
	fs.DurationVar(&cfg.Visibility, "visibility-timeout", 10*time.Second, "VisibilityTimeout of the drill's queues")
	fs.StringVar(&faults, "faults", "", "faults in the order injected, comma-separated, kinds may repeat ("+joinFaultKinds()+", or none); default: every non-optional kind of the setup")
	fs.DurationVar(&cfg.FaultEvery, "fault-every", 10*time.Second, "pause between the end of one fault and the start of the next")
	fs.IntVar(&cfg.FaultRounds, "fault-rounds", 0, "passes over --faults (0: until the load ends; else the load also runs until all were injected)")
	fs.DurationVar(&cfg.CutFor, "cut-for", 5*time.Second, "how long a cut link stays cut")
	fs.DurationVar(&cfg.DownFor, "down-for", time.Second, "how long a killed process stays down")
	fs.DurationVar(&cfg.DrainTimeout, "drain-timeout", time.Minute, "after the load (and again after the recheck restart), stop waiting for acknowledged messages once none arrived for this long")
	fs.BoolVar(&jsonOut, "json", false, "print the report as JSON")
	fs.StringVar(&cfg.HeraldBin, "herald-bin", "", "herald binary to run (default: this one)")
	fs.StringVar(&cfg.RedisServer, "redis-server", "redis-server", "redis-server binary (cassandra setup)")
	fs.StringVar(&cfg.ServicesScript, "services-script", "scripts/services", "scripts/services, run by the cassandra-restart and rabbitmq-restart faults")
	fs.StringVar(&cfg.WorkDir, "work-dir", "", "directory for herald's data and logs (default: a temporary one, removed unless the drill failed)")
	fs.BoolVar(&cfg.KeepWorkDir, "keep", false, "keep the temporary work directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("chaos: unexpected argument %q", fs.Arg(0))
	}
	cfg.Scenarios = strings.Split(scenarios, ",")
	cfg.CassandraHosts = strings.Split(hosts, ",")
	switch strings.TrimSpace(faults) {
	case "":
	case "none":
		cfg.Faults = []chaos.FaultKind{}
	default:
		kinds, err := chaos.ParseFaults(faults)
		if err != nil {
			return fmt.Errorf("chaos: --faults: %w", err)
		}
		cfg.Faults = kinds
	}
	if cfg.HeraldBin == "" {
		bin, err := os.Executable()
		if err != nil {
			return fmt.Errorf("chaos: --herald-bin: %w", err)
		}
		cfg.HeraldBin = bin
	}
	cfg.Log = stderr
	report, err := chaos.Run(ctx, cfg)
	if report != nil {
		if jsonOut {
			if werr := report.WriteJSON(stdout); werr != nil && err == nil {
				err = werr
			}
		} else {
			report.WriteText(stdout)
		}
	}
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	if report.Failed() {
		return errors.New("chaos: the drill failed: messages were lost, stranded or corrupted, or a scenario did not complete (see the report)")
	}
	return nil
}

func joinFaultKinds() string {
	kinds := chaos.FaultKinds()
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
