package e2e

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// jsonCall posts an SQS JSON 1.0 request for action to target and returns
// the status, the x-amzn-query-error header and the decoded body.
func jsonCall(t *testing.T, target, action, body string) (int, string, map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", action)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]string
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: error body %q is not an AWS JSON error: %v", action, raw, err)
		}
	}
	return resp.StatusCode, resp.Header.Get("x-amzn-query-error"), out
}

// TestSQSErrorShapesAsAWS: over the JSON protocol an error's "__type" is
// AWS's shape name (InvalidParameterValueException,
// MissingRequiredParameterException, the coral names of the request layer)
// while x-amzn-query-error keeps the legacy code that SDKs show; over the
// Query protocol a missing queue reads "... for this wsdl version." as on
// AWS. The Go SDK still maps each error to its code and typed error.
func TestSQSErrorShapesAsAWS(t *testing.T) {
	s := startServer(t, "")
	c := sqsClient(s)
	ctx := ctxFor(t, time.Minute)
	q := newQueue(t, c, "", nil)
	missing := `{"QueueName":"no-such-queue-` + uniqueWord(t) + `"}`

	cases := []struct {
		name, action, body     string
		status                 int
		jsonType, header, text string
	}{
		{"missing queue", "AmazonSQS.GetQueueUrl", missing, 400,
			"com.amazonaws.sqs#QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue;Sender", "The specified queue does not exist."},
		{"invalid parameter value", "AmazonSQS.SendMessage", `{"QueueUrl":"` + q + `","MessageBody":"x","DelaySeconds":901}`, 400,
			"com.amazonaws.sqs#InvalidParameterValueException", "InvalidParameterValue;Sender", ""},
		{"missing parameter", "AmazonSQS.SendMessage", `{"QueueUrl":"` + q + `"}`, 400,
			"com.amazonaws.sqs#MissingRequiredParameterException", "MissingParameter;Sender", ""},
		{"modeled error", "AmazonSQS.SendMessage", `{"QueueUrl":"` + q + `","MessageBody":"bad \u0001"}`, 400,
			"com.amazonaws.sqs#InvalidMessageContents", "InvalidMessageContents;Sender", ""},
		{"unknown operation", "AmazonSQS.Teleport", `{}`, 400,
			"com.amazon.coral.service#UnknownOperationException", "InvalidAction;Sender", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := jsonCall(t, s.URL+"/", tc.action, tc.body)
			if status != tc.status || body["__type"] != tc.jsonType || header != tc.header {
				t.Fatalf("%s: %d %q %v, want %d %q __type %q", tc.action, status, header, body, tc.status, tc.header, tc.jsonType)
			}
			if tc.text != "" && body["message"] != tc.text {
				t.Fatalf("message %q, want %q", body["message"], tc.text)
			}
		})
	}

	t.Run("query wording of a missing queue", func(t *testing.T) {
		status, xml := queryCall(t, s.URL+"/", url.Values{"Action": {"GetQueueUrl"}, "QueueName": {"no-such-queue-" + uniqueWord(t)}})
		if status != 400 || !strings.Contains(xml, "<Code>AWS.SimpleQueueService.NonExistentQueue</Code>") ||
			!strings.Contains(xml, "<Message>The specified queue does not exist for this wsdl version.</Message>") {
			t.Fatalf("Query GetQueueUrl of a missing queue: %d %s", status, xml)
		}
	})

	t.Run("query without an action", func(t *testing.T) {
		status, xml := queryCall(t, q, url.Values{"MessageBody": {"m"}})
		if status != 404 || !strings.Contains(xml, "<Code>UnknownOperationException</Code>") {
			t.Fatalf("Query request to a queue URL without Action: %d %s, want 404 UnknownOperationException", status, xml)
		}
	})

	t.Run("the Go SDK maps codes and typed errors", func(t *testing.T) {
		_, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("no-such-queue-" + uniqueWord(t))})
		var missing *types.QueueDoesNotExist
		if !errors.As(err, &missing) {
			t.Fatalf("GetQueueUrl of a missing queue: %v, want *types.QueueDoesNotExist", err)
		}
		_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String("x"), DelaySeconds: 901})
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != "InvalidParameterValue" {
			t.Fatalf("SendMessage DelaySeconds 901: %v, want code InvalidParameterValue", err)
		}
	})
}
