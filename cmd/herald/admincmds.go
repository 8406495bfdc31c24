package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/heraldmq/herald/client"
	"github.com/heraldmq/herald/sqs"
)

// 'herald queues', 'herald topics' and 'herald peek' read the admin API
// (docs/http-api.md, "Admin API and the console") with the credentials of
// every client command: what the console shows, in a terminal.

func runQueues(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("queues", "queues [flags]   the account's SQS queues: visible, in-flight and delayed messages, dead-letter queue", stderr, false)
	cf.registerOutput(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "takes no arguments, got %q", fs.Arg(0))
	}
	resp, err := cf.client().Queues(ctx)
	if err != nil {
		return err
	}
	return cf.show(stdout, resp, queuesText(resp))
}

func runTopics(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("topics", "topics [flags]   the account's SNS topics with their subscriptions", stderr, false)
	cf.registerOutput(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "takes no arguments, got %q", fs.Arg(0))
	}
	resp, err := cf.client().Topics(ctx)
	if err != nil {
		return err
	}
	return cf.show(stdout, resp, topicsText(resp))
}

func runPeek(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("peek", "peek QUEUE [--limit N] [flags]   a queue's oldest messages, WITHOUT receiving them (receive counts and visibility unchanged)", stderr, false)
	cf.registerOutput(fs)
	fs.IntVar(&cf.limit, "limit", 10, "messages to show, 1 to 100")
	queue, err := oneArg(fs, args, "queue name")
	if err != nil {
		return err
	}
	if cf.limit < 1 || cf.limit > 100 {
		return usageErrorf(fs, "--limit %d: want 1 to 100", cf.limit)
	}
	resp, err := cf.client().Peek(ctx, queue, cf.limit)
	if err != nil {
		return err
	}
	return cf.show(stdout, resp, peekText(queue, resp))
}

// runSQSReindex is 'herald sqs-reindex': it bumps the index epoch of the
// server's data center (POST /v1/admin/sqs/reindex), so that every node
// of it rebuilds each queue's Redis state from Cassandra on next use.
func runSQSReindex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("sqs-reindex", "sqs-reindex --server URL [flags]   make every node of the server's data center rebuild each queue's Redis state from Cassandra on next use (after a fail-over and switch-back)", stderr, false)
	cf.registerOutput(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "takes no arguments, got %q", fs.Arg(0))
	}
	resp, err := cf.client().Reindex(ctx)
	if err != nil {
		return err
	}
	return cf.show(stdout, resp, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "index epoch of %s's data center is now %d: its nodes rebuild each queue's Redis state from the store on next use (within %s)\n", cf.server, resp.Epoch, sqs.DefaultIndexEpochRefresh)
		return err
	})
}

// runDC is 'herald dc status|fence DC|unfence DC' (GET /v1/admin/dc, POST
// /v1/admin/dc/fence and /unfence): the operator's take-over of a lost
// data center's queues and their return (docs/operations.md).
func runDC(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("dc", "dc status|fence DC|unfence DC --server URL [flags]   show the data centers; fence a lost one (the server's data center serves its queues), unfence it once it is back and repaired", stderr, false)
	cf.registerOutput(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var (
		resp client.DataCenters
		err  error
	)
	switch verb := fs.Arg(0); {
	case verb == "status" && fs.NArg() == 1:
		resp, err = cf.client().DataCenters(ctx)
	case verb == "fence" && fs.NArg() == 2:
		resp, err = cf.client().FenceDC(ctx, fs.Arg(1))
	case verb == "unfence" && fs.NArg() == 2:
		resp, err = cf.client().UnfenceDC(ctx, fs.Arg(1))
	default:
		return usageErrorf(fs, "want status, fence DC or unfence DC, got %q", strings.Join(fs.Args(), " "))
	}
	if err != nil {
		return err
	}
	return cf.show(stdout, resp, func(w io.Writer) error {
		fmt.Fprintf(w, "this data center: %s (queues without a home: %s)\n", resp.Local, resp.LegacyHome)
		if len(resp.Fenced) == 0 {
			_, err := fmt.Fprintln(w, "no data center is fenced")
			return err
		}
		for _, dc := range slices.Sorted(maps.Keys(resp.Fenced)) {
			fmt.Fprintf(w, "%s is fenced: its queues are served by %s\n", dc, resp.Fenced[dc])
		}
		return nil
	})
}
