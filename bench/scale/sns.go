package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/snsload"
	"github.com/heraldmq/herald/load/sqsload"
)

// snsSubscribers is how many queues the sns-fanout topic delivers to.
const snsSubscribers = 4

// snsFanout: a topic with snsSubscribers queues subscribed (raw
// delivery). Each cycle publishes one 256-byte message through the
// worker's node, then receives up to 10 messages from one of the queues
// and deletes them, so that the queues stay drained. A call is a publish:
// its CPU per call covers the publish, its four deliveries and their
// receipt and deletion. Latencies are the publishes'.
func snsFanout(ctx context.Context, l load) (outcome, error) {
	per := l.perServer()
	sns := make([]*snsload.Client, len(l.servers))
	sqs := make([]*sqsload.Client, len(l.servers))
	for i, s := range l.servers {
		sns[i] = snsload.NewClient(s, per, 30*time.Second, "", "", "")
		sqs[i] = sqsload.NewClient(s, sqsload.Options{Connections: per})
		defer sns[i].Close()
		defer sqs[i].Close()
	}
	topic, queues, err := snsSetup(ctx, sns[0], sqs[0], l.prefix)
	if err != nil {
		return outcome{}, err
	}
	receives := make([]sqsload.Request, len(queues))
	for i, q := range queues {
		receives[i] = sqs[0].ReceiveRequest(q, 10, 0, -1)
	}
	body := strings.Repeat("m", 256)
	lat := newLatencies(l.concurrency)
	got := make([][]sqsload.Message, l.concurrency)
	handles := make([][]string, l.concurrency)
	r := loadgen.Run(ctx, "sns", loadgen.Config{Concurrency: l.concurrency, Duration: l.duration, Rate: l.rate},
		func(ctx context.Context, worker, seq int) (int, error) {
			node := worker % len(l.servers)
			t0 := loadgen.Scheduled(ctx)
			if t0.IsZero() {
				t0 = time.Now()
			}
			if _, err := sns[node].Publish(ctx, topic, body); err != nil {
				return 0, err
			}
			lat.add(worker, time.Since(t0))
			q := (worker + seq) % len(queues)
			msgs, err := sqs[node].Receive(ctx, receives[q], got[worker][:0])
			got[worker] = msgs[:0]
			if err != nil || len(msgs) == 0 {
				return 1, err
			}
			hs := handles[worker][:0]
			for _, m := range msgs {
				hs = append(hs, m.ReceiptHandle)
			}
			handles[worker] = hs
			_, _, err = sqs[node].Delete(ctx, queues[q], hs, true)
			return 1, err
		})
	o := lat.summary()
	o.Errors, o.FirstError, o.Elapsed = r.Errors, r.FirstError, r.Elapsed
	return o, nil
}

var snsSetups sync.Map // prefix → *snsTopic: a measurement's runs share one topic

type snsTopic struct {
	arn    string
	queues []string
}

// snsSetup creates (once per prefix) the topic and its subscribed queues.
func snsSetup(ctx context.Context, sns *snsload.Client, sqs *sqsload.Client, prefix string) (string, []string, error) {
	if t, ok := snsSetups.Load(prefix); ok {
		return t.(*snsTopic).arn, t.(*snsTopic).queues, nil
	}
	arn, err := sns.CreateTopic(ctx, prefix+"-topic")
	if err != nil {
		return "", nil, fmt.Errorf("CreateTopic: %w", err)
	}
	t := &snsTopic{arn: arn}
	for i := range snsSubscribers {
		u, err := sqs.CreateQueue(ctx, fmt.Sprintf("%s-sub-%d", prefix, i), nil)
		if err != nil {
			return "", nil, fmt.Errorf("CreateQueue: %w", err)
		}
		qarn, err := sns.QueueARN(ctx, u)
		if err != nil {
			return "", nil, err
		}
		if _, err := sns.Subscribe(ctx, arn, "sqs", qarn, true); err != nil {
			return "", nil, fmt.Errorf("Subscribe: %w", err)
		}
		t.queues = append(t.queues, u)
	}
	snsSetups.Store(prefix, t)
	return t.arn, t.queues, nil
}
