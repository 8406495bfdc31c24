package sqs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// BenchmarkServiceCycle runs herald bench's mix through the Service on the
// in-memory engine: a send of a 1 KiB body, a receive of it and its
// delete, the calls made as the JSON edge makes them. It measures the
// Service's own work per cycle (queue lookup, checks, handles, digests),
// not an engine's.
func BenchmarkServiceCycle(b *testing.B) {
	ctx := context.Background()
	svc := sqs.NewService(sqsmem.NewStore(), sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(), sqs.Config{})
	defer svc.Close()
	url, err := svc.CreateQueue(ctx, caller, sqs.CreateQueueInput{QueueName: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("0123456789abcdef", 64)
	one, wait := 1, 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.SendMessage(ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: body}); err != nil {
			b.Fatal(err)
		}
		out, err := svc.ReceiveMessage(ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: &one, WaitTimeSeconds: &wait})
		if err != nil || len(out.Messages) != 1 {
			b.Fatalf("received %d messages: %v", len(out.Messages), err)
		}
		if err := svc.DeleteMessage(ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: out.Messages[0].ReceiptHandle}); err != nil {
			b.Fatal(err)
		}
	}
}
