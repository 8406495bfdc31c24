package e2e

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
)

// TestSQSShardsTag: on both engines, with a deployment default of 8
// shards (--sqs-shards), the Go SDK creates a queue of 16 shards with the
// tag herald:shards, unchanged; its messages go round, the tag is listed,
// TagQueue refuses another count and CreateQueue refuses a count out of
// range, creating nothing. A queue without the tag (the default) serves
// alongside.
func TestSQSShardsTag(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "", "--sqs-shards", "8")
		c := sqsClient(s)
		ctx := ctxFor(t, 2*time.Minute)
		name := "e2e-" + uuid.NewString()[:12]
		tags := map[string]string{"herald:shards": "16", "team": "e2e"}
		out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Tags: tags})
		if err != nil {
			t.Fatalf("CreateQueue with herald:shards 16: %v", err)
		}
		wide := aws.ToString(out.QueueUrl)
		plain := newQueue(t, c, "", nil)
		for _, url := range []string{wide, plain} {
			const n = 40
			var sent []string
			for batch := range n / 10 {
				var entries []types.SendMessageBatchRequestEntry
				for i := range 10 {
					body := fmt.Sprint("m", batch*10+i)
					sent = append(sent, body)
					entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), MessageBody: aws.String(body)})
				}
				res, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
				if err != nil || len(res.Failed) != 0 {
					t.Fatalf("SendMessageBatch to %s: %v %+v", url, err, res)
				}
			}
			got := receiveN(t, c, url, n, 30*time.Second, 60)
			deleteAll(t, c, url, got)
			var bodies []string
			for _, m := range got {
				bodies = append(bodies, aws.ToString(m.Body))
			}
			slices.Sort(bodies)
			slices.Sort(sent)
			if !slices.Equal(bodies, sent) {
				t.Fatalf("%s: received %d messages %v, want the %d sent", url, len(bodies), bodies, n)
			}
			if more := receiveN(t, c, url, 1, 2*time.Second, 0); len(more) != 0 {
				t.Fatalf("%s: after deleting every message a receive got %d", url, len(more))
			}
		}

		listed, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(wide)})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(listed.Tags, tags) {
			t.Errorf("ListQueueTags = %v, want %v", listed.Tags, tags)
		}
		_, err = c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(wide), Tags: map[string]string{"herald:shards": "8"}})
		wantAPIError(t, "TagQueue herald:shards 8 on a queue of 16", err, "InvalidParameterValue")
		_, err = c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(wide), Tags: map[string]string{"herald:shards": "16"}})
		if err != nil {
			t.Errorf("TagQueue herald:shards 16 on a queue of 16: %v", err)
		}

		refused := "e2e-" + uuid.NewString()[:12]
		_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(refused), Tags: map[string]string{"herald:shards": "257"}})
		wantAPIError(t, "CreateQueue with herald:shards 257", err, "InvalidParameterValue")
		_, err = c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(refused)})
		wantAPIError(t, "GetQueueUrl of the refused queue", err, "AWS.SimpleQueueService.NonExistentQueue")
	})
}
