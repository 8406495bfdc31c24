package awsapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sqs"
)

// postJSON sends an AWS JSON 1.0 request with target X-Amz-Target.
func postJSON(t *testing.T, url, target, body string) response {
	t.Helper()
	req := mustRequest(t, http.MethodPost, url, body)
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	req.Header.Set("Content-Type", jsonContentType)
	return do(t, req)
}

// TestJSONErrors checks status, __type, message and x-amzn-query-error of
// JSON 1.0 errors: client mistakes are 400s, never 500s.
func TestJSONErrors(t *testing.T) {
	const coral = "com.amazon.coral.service#SerializationException"
	const unknownOp = "com.amazon.coral.service#UnknownOperationException"
	cases := []struct {
		name        string
		target      string
		body        string
		apiErr      error
		status      int
		jsonType    string
		queryHeader string
		message     string // substring; "" skips
	}{
		{name: "api error", target: "AmazonSQS.PurgeQueue", body: `{"QueueUrl":"q"}`, apiErr: sqs.ErrQueueDoesNotExist(),
			status: 400, jsonType: "com.amazonaws.sqs#QueueDoesNotExist", queryHeader: "AWS.SimpleQueueService.NonExistentQueue;Sender",
			message: "The specified queue does not exist."},
		{name: "unknown action", target: "AmazonSQS.Teleport", body: `{}`, status: 400,
			jsonType: unknownOp, queryHeader: "InvalidAction;Sender", message: "Teleport"},
		{name: "other service's target", target: "DynamoDB_20120810.GetItem", body: `{}`, status: 400,
			jsonType: unknownOp, queryHeader: "InvalidAction;Sender"},
		{name: "json content type without target", body: `{}`, status: 400,
			jsonType: unknownOp, queryHeader: "InvalidAction;Sender"},
		{name: "not json", target: "AmazonSQS.ListQueues", body: `{"QueueNamePrefix":`, status: 400, jsonType: coral},
		{name: "not an object", target: "AmazonSQS.ListQueues", body: `["x"]`, status: 400, jsonType: coral},
		{name: "trailing data", target: "AmazonSQS.ListQueues", body: `{}{}`, status: 400, jsonType: coral},
		{name: "wrong member type", target: "AmazonSQS.SendMessage", body: `{"QueueUrl":"q","MessageBody":"x","DelaySeconds":"5"}`,
			status: 400, jsonType: coral, message: "DelaySeconds: expected an integer, found string"},
		{name: "fractional integer", target: "AmazonSQS.ListQueues", body: `{"MaxResults":1.5}`, status: 400, jsonType: coral},
		{name: "integer overflow", target: "AmazonSQS.ListQueues", body: `{"MaxResults":99999999999999999999}`, status: 400, jsonType: coral},
		{name: "nested wrong type", target: "AmazonSQS.SendMessageBatch",
			body:   `{"QueueUrl":"q","Entries":[{"Id":"a","MessageBody":"x","MessageAttributes":{"c":{"DataType":7}}}]}`,
			status: 400, jsonType: coral, message: "Entries.MessageAttributes.c.DataType: expected a string, found number"},
		{name: "bad base64", target: "AmazonSQS.SendMessage",
			body:   `{"MessageBody":"x","MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"!!"}}}`,
			status: 400, jsonType: coral},
		{name: "duplicate member", target: "AmazonSQS.PurgeQueue", body: `{"QueueUrl":"a","QueueUrl":"b"}`, status: 400, jsonType: coral,
			message: "more than once"},
		{name: "duplicate attribute", target: "AmazonSQS.SetQueueAttributes", body: `{"Attributes":{"a":"1","a":"2"}}`, status: 400, jsonType: coral},
		{name: "invalid utf-8", target: "AmazonSQS.SendMessage", body: "{\"MessageBody\":\"\xff\"}", status: 400, jsonType: coral},
		{name: "null entry", target: "AmazonSQS.DeleteMessageBatch", body: `{"Entries":[null]}`, status: 400, jsonType: coral},
		{name: "server fault", target: "AmazonSQS.PurgeQueue", body: `{}`, apiErr: sqs.ErrServiceUnavailable(nil), status: 503,
			jsonType: "com.amazon.coral.service#ServiceUnavailableException", queryHeader: "ServiceUnavailable;Receiver"},
		{name: "invalid parameter value", target: "AmazonSQS.PurgeQueue", body: `{}`, apiErr: sqs.ErrInvalidParameterValue("bad"), status: 400,
			jsonType: "com.amazonaws.sqs#InvalidParameterValueException", queryHeader: "InvalidParameterValue;Sender", message: "bad"},
		{name: "missing parameter", target: "AmazonSQS.PurgeQueue", body: `{}`, apiErr: sqs.ErrMissingParameter("QueueUrl"), status: 400,
			jsonType: "com.amazonaws.sqs#MissingRequiredParameterException", queryHeader: "MissingParameter;Sender", message: "QueueUrl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := startEdge(t, Config{})
			fake.err = tc.apiErr
			resp := postJSON(t, srv.URL+"/", tc.target, tc.body)
			equal(t, resp.status, tc.status)
			equal(t, resp.header.Get("Content-Type"), jsonContentType)
			var body map[string]string
			if err := json.Unmarshal([]byte(resp.body), &body); err != nil {
				t.Fatalf("error body %q: %v", resp.body, err)
			}
			equal(t, body["__type"], tc.jsonType)
			if !strings.Contains(body["message"], tc.message) {
				t.Fatalf("message %q does not contain %q", body["message"], tc.message)
			}
			if tc.queryHeader != "" {
				equal(t, resp.header.Get("x-amzn-query-error"), tc.queryHeader)
			}
			if resp.header.Get("x-amzn-RequestId") == "" {
				t.Fatal("no x-amzn-RequestId")
			}
		})
	}
}

// TestJSONLenientWhereAWSIs checks what the decoder accepts: unknown
// members (newer SDKs), null for absent, and an empty body for {}; while
// member names match exactly, so a misspelt case is simply unknown.
func TestJSONLenientWhereAWSIs(t *testing.T) {
	cases := []struct {
		name, target, body string
		input              any
	}{
		{"unknown member", "AmazonSQS.ListQueues", `{"QueueNamePrefix":"a","FutureMember":{"x":[1]}}`, sqs.ListQueuesInput{QueueNamePrefix: "a"}},
		{"null member", "AmazonSQS.ListQueues", `{"MaxResults":null,"NextToken":null}`, sqs.ListQueuesInput{}},
		{"empty body", "AmazonSQS.ListQueues", ``, sqs.ListQueuesInput{}},
		{"names are exact", "AmazonSQS.ListQueues", `{"queuenameprefix":"a"}`, sqs.ListQueuesInput{}},
		{"empty entries", "AmazonSQS.DeleteMessageBatch", `{"QueueUrl":"q","Entries":[]}`,
			sqs.DeleteMessageBatchInput{QueueURL: "q", Entries: []sqs.BatchHandleEntry{}}},
		// An empty ID is given, not absent: the service refuses it as AWS does.
		{"empty FIFO ids are present", "AmazonSQS.SendMessage", `{"QueueUrl":"q","MessageBody":"m","MessageGroupId":"","MessageDeduplicationId":""}`,
			sqs.SendMessageInput{QueueURL: "q", MessageBody: "m", MessageGroupID: ptr(""), MessageDeduplicationID: ptr("")}},
		{"absent FIFO ids are nil", "AmazonSQS.SendMessage", `{"QueueUrl":"q","MessageBody":"m"}`,
			sqs.SendMessageInput{QueueURL: "q", MessageBody: "m"}},
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

// TestPanicIsInternalFailure checks that a panic below the edge is an
// AWS-shaped 500 in the request's protocol.
func TestPanicIsInternalFailure(t *testing.T) {
	fake, srv := startEdge(t, Config{})
	fake.panics = true

	resp := postJSON(t, srv.URL+"/", "AmazonSQS.PurgeQueue", `{}`)
	equal(t, resp.status, http.StatusInternalServerError)
	if !strings.Contains(resp.body, `"com.amazon.coral.service#InternalFailure"`) {
		t.Fatalf("JSON body = %s", resp.body)
	}

	resp = postForm(t, srv, "/", form("Action", "PurgeQueue"))
	equal(t, resp.status, http.StatusInternalServerError)
	equal(t, parseXML(t, resp.body).one(t, "Error/Code"), "InternalFailure")
}
