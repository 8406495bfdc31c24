package e2e

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// TestSQSSendMessageBatchOmitsAnEmptyFailed: as AWS answers it, a JSON
// SendMessageBatch whose entries all succeeded has no Failed member (the
// Go SDK then leaves the slice nil; an empty member would make it empty
// and non-nil), and one with a failed entry lists it.
func TestSQSSendMessageBatchOmitsAnEmptyFailed(t *testing.T) {
	s := startServer(t, "")
	c := sqsClient(s)
	ctx := ctxFor(t, time.Minute)
	q := newQueue(t, c, "", nil)
	out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q), Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("1")}, {Id: aws.String("b"), MessageBody: aws.String("2")}}})
	if err != nil || len(out.Successful) != 2 || out.Failed != nil {
		t.Fatalf("all sent: %v, %d successful, Failed %#v (want nil: no member)", err, len(out.Successful), out.Failed)
	}
	out, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q), Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("1")}, {Id: aws.String("bad"), MessageBody: aws.String("\x01")}}})
	if err != nil || len(out.Successful) != 1 || len(out.Failed) != 1 || aws.ToString(out.Failed[0].Id) != "bad" {
		t.Fatalf("one bad entry: %v, %+v", err, out)
	}
}
