package awsapi

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sqs"
)

// The fixtures under testdata/botocore_query come from botocore's own
// Query serializer and the last Query-protocol SQS model (see gen.py
// there): request bodies exactly as boto3 and other model-driven Query
// clients send them, and the element paths botocore's Query parser reads
// in each result. An element outside those paths would be silently dropped
// by such a client, so it is as wrong as a missing one.

const botocoreQueue = "http://localhost:9324/000000000000/orders"

// botocoreInputs is what the API must receive for each request fixture.
func botocoreInputs() map[string]any {
	q := botocoreQueue
	dlq := "arn:aws:sqs:us-east-1:000000000000:dlq"
	return map[string]any{
		"CreateQueue": sqs.CreateQueueInput{QueueName: "orders",
			Attributes: map[string]string{"VisibilityTimeout": "60", "Policy": `{"a": "b&c=d"}`},
			Tags:       map[string]string{"team": "core", "env": "prod + dev"}},
		"GetQueueUrl":        sqs.GetQueueURLInput{QueueName: "orders", QueueOwnerAWSAccountID: "111122223333"},
		"ListQueues":         sqs.ListQueuesInput{QueueNamePrefix: "or", MaxResults: ptr(5), NextToken: "tok/1+="},
		"DeleteQueue":        q,
		"GetQueueAttributes": sqs.GetQueueAttributesInput{QueueURL: q, AttributeNames: []string{"All", "DelaySeconds"}},
		"SetQueueAttributes": sqs.SetQueueAttributesInput{QueueURL: q,
			Attributes: map[string]string{"DelaySeconds": "5", "RedrivePolicy": `{"maxReceiveCount":"3"}`}},
		"PurgeQueue": q,
		"SendMessage": sqs.SendMessageInput{QueueURL: q, MessageBody: "a+b & c=d \u00e9\u6f22\n", DelaySeconds: ptr(3),
			MessageAttributes: map[string]sqs.MessageAttributeValue{
				"color": {DataType: "String", StringValue: "blue"},
				"blob":  {DataType: "Binary.gif", BinaryValue: []byte{0, 1, 0xff}},
			},
			MessageSystemAttributes: map[string]sqs.MessageAttributeValue{"AWSTraceHeader": {DataType: "String", StringValue: "Root=1-abc"}},
			MessageDeduplicationID:  ptr("dedup"), MessageGroupID: ptr("group")},
		"SendMessageBatch": sqs.SendMessageBatchInput{QueueURL: q, Entries: []sqs.SendMessageBatchEntry{
			{ID: "a", MessageBody: "one", MessageAttributes: map[string]sqs.MessageAttributeValue{"n": {DataType: "Number", StringValue: "7"}}},
			{ID: "b", MessageBody: "two", DelaySeconds: ptr(9), MessageGroupID: ptr("g"), MessageDeduplicationID: ptr("d"),
				MessageSystemAttributes: map[string]sqs.MessageAttributeValue{"AWSTraceHeader": {DataType: "String", StringValue: "Root=2"}}},
		}},
		"ReceiveMessage": sqs.ReceiveMessageInput{QueueURL: q, AttributeNames: []string{"All", "SentTimestamp"},
			MessageAttributeNames: []string{"color", "size.*"}, MaxNumberOfMessages: ptr(10), VisibilityTimeout: ptr(45),
			WaitTimeSeconds: ptr(20), ReceiveRequestAttemptID: "attempt"},
		"DeleteMessage": sqs.DeleteMessageInput{QueueURL: q, ReceiptHandle: "rh+/=1"},
		"DeleteMessageBatch": sqs.DeleteMessageBatchInput{QueueURL: q, Entries: []sqs.BatchHandleEntry{
			{ID: "a", ReceiptHandle: "rh-1"}, {ID: "b", ReceiptHandle: "rh-2"}}},
		"ChangeMessageVisibility": sqs.ChangeMessageVisibilityInput{QueueURL: q, ReceiptHandle: "rh-1", VisibilityTimeout: ptr(120)},
		"ChangeMessageVisibilityBatch": sqs.ChangeMessageVisibilityBatchInput{QueueURL: q, Entries: []sqs.BatchHandleEntry{
			{ID: "a", ReceiptHandle: "rh-1", VisibilityTimeout: ptr(0)}, {ID: "b", ReceiptHandle: "rh-2"}}},
		"TagQueue":                   sqs.TagQueueInput{QueueURL: q, Tags: map[string]string{"team": "core", "env": ""}},
		"UntagQueue":                 sqs.UntagQueueInput{QueueURL: q, TagKeys: []string{"team", "env"}},
		"ListQueueTags":              q,
		"ListDeadLetterSourceQueues": sqs.ListDeadLetterSourceQueuesInput{QueueURL: q, MaxResults: ptr(2), NextToken: "n"},
		"StartMessageMoveTask": sqs.StartMessageMoveTaskInput{SourceARN: dlq,
			DestinationARN: "arn:aws:sqs:us-east-1:000000000000:src", MaxNumberOfMessagesPerSecond: ptr(10)},
		"ListMessageMoveTasks":  sqs.ListMessageMoveTasksInput{SourceARN: dlq, MaxResults: ptr(3)},
		"CancelMessageMoveTask": "task-1",
		"AddPermission": sqs.AddPermissionInput{QueueURL: q, Label: "l1", AWSAccountIDs: []string{"111122223333", "444455556666"},
			Actions: []string{"SendMessage", "ReceiveMessage"}},
		"RemovePermission": sqs.RemovePermissionInput{QueueURL: q, Label: "l1"},
	}
}

// readBotocoreFixture returns testdata/botocore_query/name.
func readBotocoreFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "botocore_query", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBotocoreQueryRequests replays the bodies botocore's Query serializer
// produced and checks the API receives what the caller meant, and that the
// answer uses only elements botocore's parser reads, each action's result
// element included whenever the model gives it one.
func TestBotocoreQueryRequests(t *testing.T) {
	var resultPaths map[string][]string
	if err := json.Unmarshal(readBotocoreFixture(t, "result_paths.json"), &resultPaths); err != nil {
		t.Fatal(err)
	}
	fake, srv := startEdge(t, Config{})
	inputs := botocoreInputs()
	for action := range sqsQueryActions {
		t.Run(action, func(t *testing.T) {
			body := readBotocoreFixture(t, filepath.Join("requests", action+".form"))
			req := mustRequest(t, http.MethodPost, srv.URL+"/", string(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
			resp := do(t, req)
			if resp.status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.status, resp.body)
			}
			got, _ := fake.last()
			equal(t, got.Action, action)
			equal(t, got.Input, inputs[action])

			doc := parseXML(t, resp.body)
			allowed := map[string]bool{"ResponseMetadata": true, "ResponseMetadata/RequestId": true}
			for _, p := range resultPaths[action] {
				allowed[p] = true
				allowed[strings.Split(p, "/")[0]] = true
			}
			var paths []string
			doc.walk("", func(path string) { paths = append(paths, path) })
			for _, p := range paths {
				if !allowed[p] {
					t.Errorf("element %s is not in the model; botocore would drop it\n%s", p, resp.body)
				}
			}
			if _, hasResult := resultPaths[action]; hasResult && !slices.Contains(paths, action+"Result") {
				t.Errorf("no %sResult element\n%s", action, resp.body)
			}
		})
	}
}

// walk calls fn with the path of every element below n.
func (n xmlNode) walk(prefix string, fn func(path string)) {
	for _, c := range n.Nodes {
		path := c.XMLName.Local
		if prefix != "" {
			path = prefix + "/" + path
		}
		fn(path)
		c.walk(path, fn)
	}
}
