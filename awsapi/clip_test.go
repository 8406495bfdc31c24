package awsapi

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// hugeInput is far larger than any error message may be; it stays under
// the body limit once form-encoded.
const hugeInput = 1 << 20

// maxErrorBody bounds the whole body of an error answer, envelope
// included.
const maxErrorBody = 2 << 10

// echoingAPI answers queue actions as the SQS service answers a queue URL
// it cannot parse: with an error message that repeats the whole URL. The
// edge must bound it.
type echoingAPI struct{ *fakeAPI }

func (e echoingAPI) PurgeQueue(_ context.Context, _ sqs.Caller, queueURL string) error {
	return sqs.NewError(sqs.CodeInvalidAddress, "The address %s is not valid for this endpoint.", queueURL)
}

func (e echoingAPI) DeleteMessage(_ context.Context, _ sqs.Caller, in sqs.DeleteMessageInput) error {
	return sqs.ErrReceiptHandleIsInvalid(in.ReceiptHandle)
}

func (e echoingAPI) DeleteMessageBatch(_ context.Context, _ sqs.Caller, in sqs.DeleteMessageBatchInput) (sqs.BatchIDsOutput, error) {
	var out sqs.BatchIDsOutput
	for _, en := range in.Entries {
		out.Failed = append(out.Failed, sqs.BatchResultErrorEntry{ID: en.ID, Code: sqs.CodeReceiptHandleIsInvalid, SenderFault: true,
			Message: sqs.ErrReceiptHandleIsInvalid(en.ReceiptHandle).Message})
	}
	return out, nil
}

func startEchoingEdge(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(Config{SQS: echoingAPI{&fakeAPI{}}}))
	t.Cleanup(srv.Close)
	return srv
}

// checkSmallError checks that resp is a bounded error answer: a small
// body, a small x-amzn-query-error header, and the request id.
func checkSmallError(t *testing.T, resp response, status int) {
	t.Helper()
	equal(t, resp.status, status)
	if len(resp.body) >= maxErrorBody {
		t.Fatalf("error body is %d bytes, want < %d: %.300s...", len(resp.body), maxErrorBody, resp.body)
	}
	if h := resp.header.Get("x-amzn-query-error"); len(h) > 256 {
		t.Fatalf("x-amzn-query-error is %d bytes", len(h))
	}
	if resp.header.Get("x-amzn-RequestId") == "" {
		t.Fatal("no x-amzn-RequestId")
	}
}

// jsonError decodes an AWS JSON 1.0 error body.
func jsonError(t *testing.T, resp response) (typ, message string) {
	t.Helper()
	var body struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(resp.body), &body); err != nil {
		t.Fatalf("error body %.300q: %v", resp.body, err)
	}
	return body.Type, body.Message
}

// queryError checks the SQS or SNS <ErrorResponse> shape and returns its
// code and message.
func queryError(t *testing.T, resp response, namespace string) (code, message string) {
	t.Helper()
	doc := parseXML(t, resp.body)
	equal(t, doc.XMLName, xml.Name{Space: namespace, Local: "ErrorResponse"})
	equal(t, doc.one(t, "Error/Type"), "Sender")
	equal(t, doc.one(t, "RequestId"), resp.header.Get("x-amzn-RequestId"))
	return doc.one(t, "Error/Code"), doc.one(t, "Error/Message")
}

// checkClipped checks that message kept the start of what it echoes and
// says how long the input was.
func checkClipped(t *testing.T, message, prefix string) {
	t.Helper()
	if !strings.HasPrefix(message, prefix) || !strings.Contains(message, " bytes)") {
		t.Fatalf("message %.400q does not start with %q and give the length", message, prefix)
	}
}

func TestHugeQueueURLJSONError(t *testing.T) {
	srv := startEchoingEdge(t)
	huge := "http://example.test/000000000000/" + strings.Repeat("q", hugeInput)
	body, _ := json.Marshal(map[string]string{"QueueUrl": huge})
	resp := postJSON(t, srv.URL+"/", "AmazonSQS.PurgeQueue", string(body))
	checkSmallError(t, resp, http.StatusNotFound)
	typ, msg := jsonError(t, resp)
	equal(t, typ, "com.amazonaws.sqs#InvalidAddress")
	equal(t, resp.header.Get("x-amzn-query-error"), "InvalidAddress;Sender")
	checkClipped(t, msg, "The address http://example.test/000000000000/qqq")
}

func TestHugeQueueURLQueryError(t *testing.T) {
	srv := startEchoingEdge(t)
	huge := "http://example.test/000000000000/" + strings.Repeat("q", hugeInput)
	resp := postForm(t, srv, "/", form("Action", "PurgeQueue", "QueueUrl", huge))
	checkSmallError(t, resp, http.StatusNotFound)
	code, msg := queryError(t, resp, sqsNamespace)
	equal(t, code, sqs.CodeInvalidAddress)
	checkClipped(t, msg, "The address http://example.test/000000000000/qqq")
}

// TestHugeReceiptHandleErrors checks a message the service builds from a
// huge value, as a whole-request error and as a batch entry's.
func TestHugeReceiptHandleErrors(t *testing.T) {
	srv := startEchoingEdge(t)
	huge := strings.Repeat("h", hugeInput)

	resp := postForm(t, srv, "/", form("Action", "DeleteMessage", "QueueUrl", testQueue, "ReceiptHandle", huge))
	checkSmallError(t, resp, http.StatusNotFound)
	code, msg := queryError(t, resp, sqsNamespace)
	equal(t, code, sqs.CodeReceiptHandleIsInvalid)
	checkClipped(t, msg, `The input receipt handle "hhh`)

	body, _ := json.Marshal(map[string]any{"QueueUrl": testQueue, "Entries": []map[string]string{{"Id": "a", "ReceiptHandle": huge}}})
	resp = postJSON(t, srv.URL+"/", "AmazonSQS.DeleteMessageBatch", string(body))
	equal(t, resp.status, http.StatusOK)
	if len(resp.body) >= maxErrorBody {
		t.Fatalf("batch answer is %d bytes", len(resp.body))
	}
	resp = postForm(t, srv, "/", form("Action", "DeleteMessageBatch", "QueueUrl", testQueue,
		"DeleteMessageBatchRequestEntry.1.Id", "a", "DeleteMessageBatchRequestEntry.1.ReceiptHandle", huge))
	equal(t, resp.status, http.StatusOK)
	if len(resp.body) >= maxErrorBody {
		t.Fatalf("batch answer is %d bytes", len(resp.body))
	}
}

// TestHugeNamesInEdgeErrors checks the errors the edge raises itself
// about parameters, members, actions and headers of any size: each
// names what was wrong once, clipped.
func TestHugeNamesInEdgeErrors(t *testing.T) {
	huge := strings.Repeat("N", hugeInput)
	_, srv := startEdge(t, Config{})

	t.Run("query bad parameter name", func(t *testing.T) {
		resp := postForm(t, srv, "/", form("Action", "GetQueueAttributes", "QueueUrl", testQueue, "AttributeName."+huge, "All"))
		checkSmallError(t, resp, http.StatusBadRequest)
		code, msg := queryError(t, resp, sqsNamespace)
		equal(t, code, sqs.CodeInvalidParameterValue)
		checkClipped(t, msg, "The parameter AttributeName.NNN")
		if n := strings.Count(msg, "bytes)"); n != 2 { // the name, then the index
			t.Fatalf("message clips %d values, want 2: %q", n, msg)
		}
	})
	t.Run("query bad integer", func(t *testing.T) {
		resp := postForm(t, srv, "/", form("Action", "ListQueues", "MaxResults", huge))
		checkSmallError(t, resp, http.StatusBadRequest)
		code, msg := queryError(t, resp, sqsNamespace)
		equal(t, code, sqs.CodeInvalidParameterValue)
		checkClipped(t, msg, "Value NNN")
	})
	t.Run("query repeated parameter", func(t *testing.T) {
		req := mustRequest(t, http.MethodPost, srv.URL+"/", "Action=ListQueues&"+huge+"=1&"+huge+"=2")
		req.Header.Set("Content-Type", formContentType)
		resp := do(t, req)
		checkSmallError(t, resp, http.StatusBadRequest)
		code, msg := queryError(t, resp, sqsNamespace)
		equal(t, code, CodeMalformedQueryString)
		checkClipped(t, msg, "The parameter NNN")
	})
	t.Run("query unknown action", func(t *testing.T) {
		resp := postForm(t, srv, "/", form("Action", huge))
		checkSmallError(t, resp, http.StatusBadRequest)
		code, msg := queryError(t, resp, sqsNamespace)
		equal(t, code, sqs.CodeInvalidAction)
		checkClipped(t, msg, "The action or operation requested is invalid: NNN")
	})
	t.Run("json repeated member", func(t *testing.T) {
		resp := postJSON(t, srv.URL+"/", "AmazonSQS.ListQueues", `{"`+huge+`":1,"`+huge+`":2}`)
		checkSmallError(t, resp, http.StatusBadRequest)
		typ, msg := jsonError(t, resp)
		equal(t, typ, "com.amazon.coral.service#"+CodeSerialization)
		checkClipped(t, msg, `malformed request: member "NNN`)
	})
	t.Run("json wrong type in a huge attribute name", func(t *testing.T) {
		resp := postJSON(t, srv.URL+"/", "AmazonSQS.SetQueueAttributes", `{"QueueUrl":"q","Attributes":{"`+huge+`":7}}`)
		checkSmallError(t, resp, http.StatusBadRequest)
		_, msg := jsonError(t, resp)
		checkClipped(t, msg, "malformed member Attributes.NNN")
		if !strings.HasSuffix(msg, "expected a string, found number") {
			t.Fatalf("message %q lost what was wrong", msg)
		}
	})
	t.Run("json unknown target", func(t *testing.T) {
		// Header size is limited by the server; 64 KiB is far over the clip.
		resp := postJSON(t, srv.URL+"/", "AmazonSQS."+huge[:64<<10], `{}`)
		checkSmallError(t, resp, http.StatusBadRequest)
		typ, msg := jsonError(t, resp)
		equal(t, typ, "com.amazon.coral.service#"+sqs.CodeUnknownOperation)
		checkClipped(t, msg, "The action or operation requested is invalid: NNN")
	})
	t.Run("unsupported content type", func(t *testing.T) {
		req := mustRequest(t, http.MethodPost, srv.URL+"/?Action=ListQueues", "x=1")
		req.Header.Set("Content-Type", "text/"+huge[:64<<10])
		resp := do(t, req)
		checkSmallError(t, resp, http.StatusUnsupportedMediaType)
	})
}

// TestHugeSNSErrors checks SNS's error writer: edge errors about huge
// parameter names and a service message echoing a huge value.
func TestHugeSNSErrors(t *testing.T) {
	huge := strings.Repeat("N", hugeInput)
	fake, srv := startSNSEdge(t, Config{})

	resp := postSNS(t, srv.URL, form("Action", "Publish", "TopicArn", "arn", "Message", "m",
		"MessageAttributes.entry."+huge, "x").Encode())
	checkSmallError(t, resp, http.StatusBadRequest)
	code, msg := queryError(t, resp, snsNamespace)
	equal(t, code, sns.CodeInvalidParameter)
	checkClipped(t, msg, "Invalid parameter: MessageAttributes.entry.NNN")

	fake.err = sns.ErrInvalidParameter("TopicArn %s", huge)
	resp = postSNS(t, srv.URL, form("Action", "GetTopicAttributes", "TopicArn", huge).Encode())
	checkSmallError(t, resp, http.StatusBadRequest)
	_, msg = queryError(t, resp, snsNamespace)
	checkClipped(t, msg, "Invalid parameter: TopicArn NNN")
}
