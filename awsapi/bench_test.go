package awsapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sqs"
)

// benchAPI answers the hot actions with canned outputs, so that a
// benchmark measures the edge (decoding, encoding, HTTP plumbing) and not
// the fake.
type benchAPI struct {
	fakeAPI
	send    sqs.SendMessageOutput
	batch   sqs.SendMessageBatchOutput
	receive sqs.ReceiveMessageOutput
}

func (b *benchAPI) SendMessage(context.Context, sqs.Caller, sqs.SendMessageInput) (sqs.SendMessageOutput, error) {
	return b.send, nil
}

func (b *benchAPI) SendMessageBatch(context.Context, sqs.Caller, sqs.SendMessageBatchInput) (sqs.SendMessageBatchOutput, error) {
	return b.batch, nil
}

func (b *benchAPI) ReceiveMessage(context.Context, sqs.Caller, sqs.ReceiveMessageInput) (sqs.ReceiveMessageOutput, error) {
	return b.receive, nil
}

func (b *benchAPI) DeleteMessage(context.Context, sqs.Caller, sqs.DeleteMessageInput) error {
	return nil
}

// benchBody is a 1 KiB message body with a little of everything a body
// holds: JSON punctuation that needs escapes, non-ASCII text.
func benchBody() string {
	var b strings.Builder
	for b.Len() < 1024-40 {
		b.WriteString(`{"order":42,"item":"café","note":"a<b"} `)
	}
	return b.String()[:1024-40] + strings.Repeat("x", 40)
}

func newBenchAPI() *benchAPI {
	body := benchBody()
	out := sqs.SendMessageOutput{
		MessageID:        "5fea7756-0ea4-451a-a703-a558b933e274",
		MD5OfMessageBody: sqs.MD5OfBody(body),
	}
	api := &benchAPI{fakeAPI: fakeAPI{noRecord: true}, send: out}
	for i := range 10 {
		api.batch.Successful = append(api.batch.Successful, sqs.SendMessageBatchResultEntry{ID: fmt.Sprint("e", i), SendMessageOutput: out})
		api.receive.Messages = append(api.receive.Messages, sqs.ReceivedMessage{
			MessageID:     out.MessageID,
			ReceiptHandle: strings.Repeat("AQEB", 40),
			Body:          body,
			MD5OfBody:     out.MD5OfMessageBody,
			Attributes:    map[string]string{"SentTimestamp": "1700000000000", "ApproximateReceiveCount": "1"},
		})
	}
	return api
}

// discardWriter is the cheapest http.ResponseWriter: it keeps the status
// and counts the bytes.
type discardWriter struct {
	header http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// benchJSON serves the JSON request target/body b.N times.
func benchJSON(b *testing.B, target string, body []byte) {
	b.Helper()
	h := New(Config{SQS: newBenchAPI()})
	req := &http.Request{
		Method: http.MethodPost,
		URL:    &url.URL{Path: "/"},
		Header: http.Header{"Content-Type": {jsonContentType}, "X-Amz-Target": {target}},
		Host:   "localhost:4566",
	}
	rd := bytes.NewReader(body)
	req.Body = io.NopCloser(rd)
	req.ContentLength = int64(len(body))
	w := &discardWriter{header: http.Header{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		clear(w.header)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

func mustJSON(b *testing.B, v any) []byte {
	b.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

const benchQueueURL = "http://localhost:4566/000000000000/bench"

func BenchmarkJSONSendMessage(b *testing.B) {
	benchJSON(b, "AmazonSQS.SendMessage", mustJSON(b, map[string]any{
		"QueueUrl": benchQueueURL, "MessageBody": benchBody(),
		"MessageAttributes": map[string]any{"trace": map[string]string{"DataType": "String", "StringValue": "abc-123"}},
	}))
}

func BenchmarkJSONSendMessageBatch(b *testing.B) {
	var entries []map[string]any
	for i := range 10 {
		entries = append(entries, map[string]any{"Id": fmt.Sprint("e", i), "MessageBody": benchBody()})
	}
	benchJSON(b, "AmazonSQS.SendMessageBatch", mustJSON(b, map[string]any{"QueueUrl": benchQueueURL, "Entries": entries}))
}

func BenchmarkJSONReceiveMessage(b *testing.B) {
	benchJSON(b, "AmazonSQS.ReceiveMessage", mustJSON(b, map[string]any{
		"QueueUrl": benchQueueURL, "MaxNumberOfMessages": 10, "WaitTimeSeconds": 0,
		"MessageSystemAttributeNames": []string{"All"}, "MessageAttributeNames": []string{"All"},
	}))
}

func BenchmarkJSONDeleteMessage(b *testing.B) {
	benchJSON(b, "AmazonSQS.DeleteMessage", mustJSON(b, map[string]any{
		"QueueUrl": benchQueueURL, "ReceiptHandle": strings.Repeat("AQEB", 40),
	}))
}
