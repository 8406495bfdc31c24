package main

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// subscribe_queue goes through the SQS service's authorization in the
// device's account (docs/websocket.md, "Configuration"): a queue of that
// account by name or URL is pushed; another account's queue named by URL
// is refused as the SQS API refuses it, though the token lists its name,
// unless that queue's policy lets the device's account receive.
func TestQueuePushStaysInTheDeviceAccount(t *testing.T) {
	const alice, bob = "111111111111", "222222222222"
	svc := sqs.NewService(sqsmem.NewStore(), sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(), sqs.Config{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	urls := map[string]string{}
	for _, acct := range []string{alice, bob} {
		out, err := svc.CreateQueue(ctx, sqs.Caller{Account: acct, Scheme: "http", Host: "localhost"}, sqs.CreateQueueInput{QueueName: "box"})
		if err != nil {
			t.Fatalf("CreateQueue in %s: %v", acct, err)
		}
		urls[acct] = out
	}
	// alice's second queue lets bob receive (and only receive) from it.
	shared, err := svc.CreateQueue(ctx, sqs.Caller{Account: alice, Scheme: "http", Host: "localhost"}, sqs.CreateQueueInput{QueueName: "shared",
		Attributes: map[string]string{"Policy": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + bob +
			`"},"Action":"sqs:ReceiveMessage","Resource":"*"}]}`}})
	if err != nil {
		t.Fatal(err)
	}
	push := queuePush(svc, "000000000000")
	device := access.Identity{Subject: "device-7", Account: bob, Grants: access.Grants{Queues: []string{"box", "nothing", "shared"}}}
	send := func(any) error { return nil }
	tests := []struct {
		name, queue string
		code        string // "" for pushed
	}{
		{"own queue by name", "box", ""},
		{"own queue by URL", urls[bob], ""},
		{"another account's queue by URL", urls[alice], herald.EForbidden},
		{"another account's URL for a name it lacks", strings.Replace(urls[alice], "/box", "/nothing", 1), herald.EForbidden},
		{"another account's queue whose policy lets it receive", shared, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qp, err := push(ctx, device, tc.queue, 30, 1, send)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("push %s: %v", tc.queue, err)
				}
				qp.Close()
				return
			}
			if err == nil {
				qp.Close()
				t.Fatalf("push %s allowed, want %s", tc.queue, tc.code)
			}
			if got := herald.ErrorCode(err); got != tc.code {
				t.Fatalf("push %s: %v (%s), want %s", tc.queue, err, got, tc.code)
			}
		})
	}
}
