package e2e

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/google/uuid"
)

// TestSQSFifoQueueAttributeAsAWS: as on AWS, CreateQueue of a standard
// queue refuses FifoQueue, even "false" (InvalidAttributeName), and
// SetQueueAttributes FifoQueue=true on a FIFO queue changes nothing and
// FifoQueue=false is InvalidAttributeValue "Modifying queue type is not
// supported."; over JSON (the Go SDK) and the Query protocol.
func TestSQSFifoQueueAttributeAsAWS(t *testing.T) {
	s := startServer(t, "")
	c := sqsClient(s)
	ctx := ctxFor(t, time.Minute)
	_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("std-" + uuid.NewString()[:8]), Attributes: map[string]string{"FifoQueue": "false"}})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidAttributeName" {
		t.Fatalf("CreateQueue of a standard queue with FifoQueue=false: %v; want InvalidAttributeName", err)
	}
	status, xml := queryCall(t, s.URL+"/", url.Values{"Action": {"CreateQueue"}, "QueueName": {"std-" + uuid.NewString()[:8]},
		"Attribute.1.Name": {"FifoQueue"}, "Attribute.1.Value": {"false"}})
	if status != 400 || !strings.Contains(xml, "<Code>InvalidAttributeName</Code>") {
		t.Fatalf("Query: CreateQueue of a standard queue with FifoQueue=false: %d %s", status, xml)
	}

	q := newQueue(t, c, ".fifo", map[string]string{"FifoQueue": "true"})
	if _, err := c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q), Attributes: map[string]string{"FifoQueue": "true"}}); err != nil {
		t.Fatalf("SetQueueAttributes FifoQueue=true on a FIFO queue: %v", err)
	}
	status, xml = queryCall(t, s.URL+"/", url.Values{"Action": {"SetQueueAttributes"}, "QueueUrl": {q},
		"Attribute.1.Name": {"FifoQueue"}, "Attribute.1.Value": {"true"}})
	if status != 200 {
		t.Fatalf("Query: SetQueueAttributes FifoQueue=true on a FIFO queue: %d %s", status, xml)
	}
	attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameFifoQueue}})
	if err != nil || attrs.Attributes["FifoQueue"] != "true" {
		t.Fatalf("FifoQueue after: %v, %v", attrs, err)
	}
	_, err = c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q), Attributes: map[string]string{"FifoQueue": "false"}})
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidAttributeValue" ||
		apiErr.ErrorMessage() != "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported." {
		t.Fatalf("SetQueueAttributes FifoQueue=false on a FIFO queue: %v; want InvalidAttributeValue, Modifying queue type is not supported.", err)
	}
}
