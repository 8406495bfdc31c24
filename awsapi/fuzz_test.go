package awsapi

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fuzzHandler is the edge over a fake that keeps no history.
func fuzzHandler() *Handler {
	return New(Config{SQS: &fakeAPI{noRecord: true}})
}

// FuzzJSON feeds arbitrary targets and bodies to the JSON 1.0 decoder:
// nothing may panic and no client input may get a 500.
func FuzzJSON(f *testing.F) {
	seeds := map[string]string{
		"CreateQueue":                  `{"QueueName":"q","Attributes":{"DelaySeconds":"1"},"tags":{"a":"b"}}`,
		"ListQueues":                   `{"QueueNamePrefix":"a","MaxResults":5,"NextToken":"t"}`,
		"SendMessage":                  `{"QueueUrl":"q","MessageBody":"x","DelaySeconds":1,"MessageAttributes":{"a":{"DataType":"Binary","BinaryValue":"AAE="}},"MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"r"}}}`,
		"SendMessageBatch":             `{"QueueUrl":"q","Entries":[{"Id":"1","MessageBody":"x","MessageAttributes":{"s":{"DataType":"String","StringValue":"v"}}}]}`,
		"ReceiveMessage":               `{"QueueUrl":"q","MaxNumberOfMessages":10,"AttributeNames":["All"],"MessageAttributeNames":["a.*"]}`,
		"DeleteMessageBatch":           `{"QueueUrl":"q","Entries":[{"Id":"1","ReceiptHandle":"r"}]}`,
		"ChangeMessageVisibilityBatch": `{"QueueUrl":"q","Entries":[{"Id":"1","ReceiptHandle":"r","VisibilityTimeout":3}]}`,
		"TagQueue":                     `{"QueueUrl":"q","Tags":{"k":"v"}}`,
		"UntagQueue":                   `{"QueueUrl":"q","TagKeys":["k"]}`,
		"ListMessageMoveTasks":         `{"SourceArn":"arn","MaxResults":1}`,
		"StartMessageMoveTask":         `{"SourceArn":"arn","MaxNumberOfMessagesPerSecond":1}`,
		"AddPermission":                `{"QueueUrl":"q","Label":"l","AWSAccountIds":["1"],"Actions":["*"]}`,
		"GetQueueAttributes":           `{"QueueUrl":"q","AttributeNames":["All"]}`,
		"CancelMessageMoveTask":        `{"TaskHandle":"t"}`,
	}
	for action, body := range seeds {
		f.Add("AmazonSQS."+action, []byte(body))
	}
	f.Add("AmazonSQS.SendMessage", []byte(`{"MessageAttributes":{"a":null,"b":{"DataType":[]}}}`))
	f.Add("AmazonSQS.PurgeQueue", []byte(`{"QueueUrl":"q","QueueUrl":"q"}`))
	f.Add("", []byte(`{}`))
	h := fuzzHandler()
	f.Fuzz(func(t *testing.T, target string, body []byte) {
		req := &http.Request{
			Method: http.MethodPost,
			URL:    &url.URL{Path: "/"},
			Header: http.Header{"Content-Type": {jsonContentType}},
			Body:   io.NopCloser(bytes.NewReader(body)),
			Host:   "localhost",
		}
		if target != "" {
			req.Header.Set("X-Amz-Target", target)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(t.Context()))
		if rec.Code >= 500 {
			t.Fatalf("target %q body %q: status %d: %s", target, body, rec.Code, rec.Body)
		}
	})
}

// FuzzQuery feeds arbitrary query strings, form bodies and paths to the
// Query decoder: nothing may panic and no client input may get a 500.
func FuzzQuery(f *testing.F) {
	for _, tc := range queryCases() {
		v := url.Values{}
		for k, vs := range tc.form {
			v[k] = vs
		}
		v.Set("Action", tc.action)
		f.Add("/", "", v.Encode())
		f.Add("/000000000000/q", v.Encode(), "")
	}
	f.Add("/", "Action=SendMessage&MessageAttribute.1.Name=a&MessageAttribute.01.Name=b", "")
	f.Add("/", "", "Action=SendMessageBatch&SendMessageBatchRequestEntry.1.MessageAttribute.2.Value.BinaryValue=%%")
	f.Add("//", "Action=GetQueueAttributes&AttributeName.1.x=1", "")
	h := fuzzHandler()
	f.Fuzz(func(t *testing.T, path, rawQuery, body string) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		method := http.MethodPost
		if body == "" {
			method = http.MethodGet
		}
		req := &http.Request{
			Method: method,
			URL:    &url.URL{Path: path, RawQuery: rawQuery},
			Header: http.Header{"Content-Type": {formContentType}},
			Body:   io.NopCloser(strings.NewReader(body)),
			Host:   "localhost",
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(t.Context()))
		if rec.Code >= 500 {
			t.Fatalf("path %q query %q body %q: status %d: %s", path, rawQuery, body, rec.Code, rec.Body)
		}
	})
}
