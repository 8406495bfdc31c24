package awsapi

import (
	"fmt"
	"github.com/heraldmq/herald/internal/jsonenc"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sqs"
)

// TestJSONDecodeKeepsEncodingJSONReadings pins the readings the decoder
// keeps from its encoding/json days, where the result is not obvious.
func TestJSONDecodeKeepsEncodingJSONReadings(t *testing.T) {
	cases := []struct {
		name, target, body string
		input              any
	}{
		{"null in a string list is empty", "AmazonSQS.GetQueueAttributes", `{"QueueUrl":"q","AttributeNames":["All",null]}`,
			sqs.GetQueueAttributesInput{QueueURL: "q", AttributeNames: []string{"All", ""}}},
		{"empty list is not absent", "AmazonSQS.GetQueueAttributes", `{"QueueUrl":"q","AttributeNames":[]}`,
			sqs.GetQueueAttributesInput{QueueURL: "q", AttributeNames: []string{}}},
		{"null in a string map is empty", "AmazonSQS.SetQueueAttributes", `{"QueueUrl":"q","Attributes":{"DelaySeconds":null}}`,
			sqs.SetQueueAttributesInput{QueueURL: "q", Attributes: map[string]string{"DelaySeconds": ""}}},
		{"escapes in names and values", "AmazonSQS.SendMessage", `{"Queue\u0055rl":"q","MessageBody":"a\"\u2028\ud800b"}`,
			sqs.SendMessageInput{QueueURL: "q", MessageBody: "a\"\u2028\ufffdb"}},
		{"empty binary is not absent", "AmazonSQS.SendMessage",
			`{"QueueUrl":"q","MessageBody":"x","MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"","StringListValues":[]}}}`,
			sqs.SendMessageInput{QueueURL: "q", MessageBody: "x", MessageAttributes: map[string]sqs.MessageAttributeValue{
				"b": {DataType: "Binary", BinaryValue: []byte{}}}}},
		{"base64 with escapes and line breaks", "AmazonSQS.SendMessage",
			`{"QueueUrl":"q","MessageBody":"x","MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"AA\u0045\r\n="}}}`,
			sqs.SendMessageInput{QueueURL: "q", MessageBody: "x", MessageAttributes: map[string]sqs.MessageAttributeValue{
				"b": {DataType: "Binary", BinaryValue: []byte{0, 1}}}}},
		{"integers", "AmazonSQS.ReceiveMessage", `{"QueueUrl":"q","MaxNumberOfMessages":-0,"WaitTimeSeconds":9223372036854775807,"VisibilityTimeout":-9223372036854775808}`,
			sqs.ReceiveMessageInput{QueueURL: "q", MaxNumberOfMessages: ptr(0), WaitTimeSeconds: ptr(1<<63 - 1), VisibilityTimeout: ptr(-1 << 63)}},
		{"null members of an entry", "AmazonSQS.ChangeMessageVisibilityBatch", `{"QueueUrl":"q","Entries":[{"Id":"1","ReceiptHandle":null,"VisibilityTimeout":null}]}`,
			sqs.ChangeMessageVisibilityBatchInput{QueueURL: "q", Entries: []sqs.BatchHandleEntry{{ID: "1"}}}},
		{"queue url from the path", "AmazonSQS.DeleteMessage", `{"ReceiptHandle":"r"}`,
			sqs.DeleteMessageInput{QueueURL: "", ReceiptHandle: "r"}}, // posted to "/": no path URL
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := startEdge(t, Config{})
			resp := postJSON(t, srv.URL+"/", tc.target, tc.body)
			if resp.status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.status, resp.body)
			}
			got, _ := fake.last()
			equal(t, got.Input, tc.input)
		})
	}
}

// TestJSONDecodeErrors checks the SerializationException messages name the
// member path and say what is wrong.
func TestJSONDecodeErrors(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf(`"M%d":1`, i)
	}
	cases := []struct {
		name, target, body, message string
	}{
		{"fraction", "AmazonSQS.ListQueues", `{"MaxResults":1.5}`, "malformed member MaxResults: expected an integer, found number 1.5"},
		{"exponent", "AmazonSQS.ListQueues", `{"MaxResults":1e2}`, "malformed member MaxResults: expected an integer, found number 1e2"},
		{"overflow", "AmazonSQS.ListQueues", `{"MaxResults":9223372036854775808}`, "found number 9223372036854775808"},
		{"list expected", "AmazonSQS.UntagQueue", `{"TagKeys":"k"}`, "malformed member TagKeys: expected a list, found string"},
		{"list element", "AmazonSQS.UntagQueue", `{"TagKeys":["k",true]}`, "malformed member TagKeys: expected a string, found bool"},
		{"map value", "AmazonSQS.TagQueue", `{"Tags":{"k":{}}}`, "malformed member Tags.k: expected a string, found object"},
		{"map key repeated", "AmazonSQS.TagQueue", `{"Tags":{"k":"1","k":"2"}}`, `malformed member Tags: member "k" appears more than once`},
		{"unknown member repeated", "AmazonSQS.PurgeQueue", `{"X":1,"X":2}`, `malformed request: member "X" appears more than once`},
		{"repeated among many", "AmazonSQS.PurgeQueue", `{` + strings.Join(many, ",") + `,"M3":2}`, `member "M3" appears more than once`},
		{"escaped name repeated", "AmazonSQS.PurgeQueue", `{"QueueUrl":"a","Queue\u0055rl":"b"}`, `member "QueueUrl" appears more than once`},
		{"entry member repeated", "AmazonSQS.DeleteMessageBatch", `{"Entries":[{"Id":"1","Id":"2"}]}`, `malformed member Entries: member "Id" appears more than once`},
		{"null entry", "AmazonSQS.DeleteMessageBatch", `{"Entries":[null]}`, "malformed member Entries: expected an object, found null"},
		{"null attribute", "AmazonSQS.SendMessage", `{"MessageAttributes":{"a":null}}`, "malformed member MessageAttributes.a: expected an object, found null"},
		{"bad base64", "AmazonSQS.SendMessageBatch", `{"Entries":[{"MessageAttributes":{"b":{"BinaryValue":"!!"}}}]}`,
			"malformed member Entries.MessageAttributes.b.BinaryValue: illegal base64 data at input byte 0"},
		{"binary as numbers", "AmazonSQS.SendMessage", `{"MessageAttributes":{"b":{"BinaryValue":[1,2]}}}`,
			"malformed member MessageAttributes.b.BinaryValue: expected a base64 string, found array"},
		{"not an object", "AmazonSQS.ListQueues", `"x"`, "malformed request: expected an object, found string"},
		{"null body", "AmazonSQS.ListQueues", `null`, "malformed request: expected an object, found null"},
		{"syntax inside a member", "AmazonSQS.SendMessage", `{"MessageBody":"x","MessageAttributes":{"a":{"DataType":tru}}}`,
			"malformed member MessageAttributes.a.DataType: invalid JSON"},
		{"trailing data", "AmazonSQS.ListQueues", `{} x`, "malformed request: invalid JSON"},
		{"unknown member still validated", "AmazonSQS.ListQueues", `{"Future":[1,}`, "malformed request: invalid JSON at offset 13"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := startEdge(t, Config{})
			resp := postJSON(t, srv.URL+"/", tc.target, tc.body)
			equal(t, resp.status, http.StatusBadRequest)
			if !strings.Contains(resp.body, "SerializationException") || !strings.Contains(resp.body, jsonQuote(tc.message)) {
				t.Fatalf("body %s does not report %q", resp.body, tc.message)
			}
		})
	}
}

// jsonQuote is s as it appears inside a JSON string.
func jsonQuote(s string) string {
	q := string(jsonenc.AppendString(nil, s))
	return q[1 : len(q)-1]
}
