package e2e

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/google/uuid"
)

// queryCall posts an SQS Query-protocol request (a form) to target and
// returns the status and XML body.
func queryCall(t *testing.T, target string, form url.Values) (int, string) {
	t.Helper()
	form.Set("Version", "2012-11-05")
	resp, err := http.Post(target, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestSQSQueryProtocol speaks the legacy Query/XML protocol over raw HTTP,
// as older tools do: forms in, XML in SQS's namespace out, also posted to a
// queue URL.
func TestSQSQueryProtocol(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		name := "query-" + uuid.NewString()[:8]
		status, body := queryCall(t, s.URL+"/", url.Values{"Action": {"CreateQueue"}, "QueueName": {name},
			"Attribute.1.Name": {"VisibilityTimeout"}, "Attribute.1.Value": {"40"}})
		var created struct {
			XMLName  xml.Name `xml:"http://queue.amazonaws.com/doc/2012-11-05/ CreateQueueResponse"`
			QueueURL string   `xml:"CreateQueueResult>QueueUrl"`
			Request  string   `xml:"ResponseMetadata>RequestId"`
		}
		if status != 200 || xml.Unmarshal([]byte(body), &created) != nil || created.QueueURL == "" || created.Request == "" {
			t.Fatalf("CreateQueue: %d %s", status, body)
		}
		if want := s.URL + "/000000000000/" + name; created.QueueURL != want {
			t.Errorf("QueueUrl = %s, want %s", created.QueueURL, want)
		}

		// Send to the queue URL itself, with a message attribute.
		status, body = queryCall(t, created.QueueURL, url.Values{"Action": {"SendMessage"}, "MessageBody": {"<xml & friends>"},
			"MessageAttribute.1.Name": {"n"}, "MessageAttribute.1.Value.DataType": {"Number"}, "MessageAttribute.1.Value.StringValue": {"7"}})
		var sent struct {
			MessageID string `xml:"SendMessageResult>MessageId"`
			MD5       string `xml:"SendMessageResult>MD5OfMessageBody"`
		}
		if status != 200 || xml.Unmarshal([]byte(body), &sent) != nil || sent.MessageID == "" {
			t.Fatalf("SendMessage: %d %s", status, body)
		}
		if sum := md5Hex("<xml & friends>"); sent.MD5 != sum {
			t.Errorf("MD5OfMessageBody = %s, want %s", sent.MD5, sum)
		}

		status, body = queryCall(t, s.URL+"/", url.Values{"Action": {"ReceiveMessage"}, "QueueUrl": {created.QueueURL},
			"WaitTimeSeconds": {"5"}, "AttributeName.1": {"All"}, "MessageAttributeName.1": {"All"}})
		var got struct {
			Messages []struct {
				MessageID string `xml:"MessageId"`
				Body      string `xml:"Body"`
				Handle    string `xml:"ReceiptHandle"`
				Attrs     []struct {
					Name  string `xml:"Name"`
					Value string `xml:"Value"`
				} `xml:"Attribute"`
				MsgAttrs []struct {
					Name  string `xml:"Name"`
					Value string `xml:"Value>StringValue"`
				} `xml:"MessageAttribute"`
			} `xml:"ReceiveMessageResult>Message"`
		}
		if status != 200 || xml.Unmarshal([]byte(body), &got) != nil || len(got.Messages) != 1 {
			t.Fatalf("ReceiveMessage: %d %s", status, body)
		}
		m := got.Messages[0]
		if m.MessageID != sent.MessageID || m.Body != "<xml & friends>" || len(m.MsgAttrs) != 1 || m.MsgAttrs[0].Value != "7" {
			t.Errorf("received %+v", m)
		}
		status, body = queryCall(t, created.QueueURL, url.Values{"Action": {"DeleteMessage"}, "ReceiptHandle": {m.Handle}})
		if status != 200 || !strings.Contains(body, "DeleteMessageResponse") {
			t.Errorf("DeleteMessage: %d %s", status, body)
		}

		// Errors: AWS's legacy codes in an <ErrorResponse>.
		for _, tc := range []struct {
			form   url.Values
			status int
			code   string
		}{
			{url.Values{"Action": {"GetQueueUrl"}, "QueueName": {"missing-" + name}}, 400, "AWS.SimpleQueueService.NonExistentQueue"},
			{url.Values{"Action": {"FlyToTheMoon"}}, 400, "InvalidAction"},
			{url.Values{"Action": {"SendMessage"}, "QueueUrl": {created.QueueURL}}, 400, "MissingParameter"},
		} {
			status, body := queryCall(t, s.URL+"/", tc.form)
			var er struct {
				XMLName xml.Name `xml:"ErrorResponse"`
				Type    string   `xml:"Error>Type"`
				Code    string   `xml:"Error>Code"`
				Message string   `xml:"Error>Message"`
				Request string   `xml:"RequestId"`
			}
			if err := xml.Unmarshal([]byte(body), &er); err != nil || status != tc.status || er.Code != tc.code || er.Type != "Sender" || er.Request == "" {
				t.Errorf("%s: %d %s, want %d with code %s", tc.form.Get("Action"), status, body, tc.status, tc.code)
			}
		}
	})
}

// md5Hex is the MD5 of a body as SQS reports it: of its UTF-8 bytes.
func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestSQSSignaturesAreChecked starts Herald with an access key: the SDK
// signing with it works; a wrong secret, an unknown key and a signature
// older than 15 minutes get AWS's errors.
func TestSQSSignaturesAreChecked(t *testing.T) {
	s := startServer(t, "", "--aws-access-keys", testAccessKey+":"+testSecretKey)
	good := sqsClient(s)
	if _, err := good.CreateQueue(ctxFor(t, 30*time.Second), &sqs.CreateQueueInput{QueueName: aws.String("signed-" + uuid.NewString()[:8])}); err != nil {
		t.Fatalf("a correctly signed request failed: %v", err)
	}
	for _, tc := range []struct {
		name, key, secret, code string
	}{
		{"wrong secret", testAccessKey, "not-the-secret", "SignatureDoesNotMatch"},
		{"unknown key", "AKIDUNKNOWN", testSecretKey, "InvalidClientTokenId"},
	} {
		c := sqs.New(sqs.Options{BaseEndpoint: aws.String(s.URL), Region: "us-east-1", RetryMaxAttempts: 1,
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: tc.key, SecretAccessKey: tc.secret}, nil
			})})
		_, err := c.ListQueues(ctxFor(t, 30*time.Second), &sqs.ListQueuesInput{})
		var apiErr smithy.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode() != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}

	// A request signed 20 minutes ago, with the SDK's own signer.
	body := `{}`
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	sum := sha256.Sum256([]byte(body))
	err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey},
		req, hex.EncodeToString(sum[:]), "sqs", "us-east-1", time.Now().Add(-20*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	// AWS's JSON services call an expired signature an
	// InvalidSignatureException; the legacy code says RequestExpired.
	if resp.StatusCode != 400 || resp.Header.Get("x-amzn-query-error") != "RequestExpired;Sender" ||
		!strings.Contains(string(out), `"com.amazon.coral.service#InvalidSignatureException"`) {
		t.Errorf("a stale signature: %d %q %s, want 400 RequestExpired", resp.StatusCode, resp.Header.Get("x-amzn-query-error"), out)
	}
}

// TestBoto3 runs e2e/python/test_sqs.py (pytest, boto3 in the virtualenv
// scripts/test creates) against Herald on each storage setup.
func TestBoto3(t *testing.T) {
	python := pythonForTests(t)
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		dir, _ := filepath.Abs("python")
		cmd := exec.Command(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", dir)
		cmd.Env = append(os.Environ(), "HERALD_URL="+s.URL)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pytest with boto3 failed: %v\n%s", err, out)
		}
		t.Logf("boto3: %s", lastLine(string(out)))
	})
}

// pythonForTests is the interpreter of the virtualenv with boto3 and
// pytest that scripts/test creates (HERALD_TEST_PYTHON); without it the
// test is skipped locally and fails in CI.
func pythonForTests(t *testing.T) string {
	t.Helper()
	python := os.Getenv("HERALD_TEST_PYTHON")
	if python == "" {
		msg := "HERALD_TEST_PYTHON is not set; scripts/test creates the virtualenv with boto3 and sets it"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return python
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestSQSLimitsAreConfiguration raises one limit with --sqs-limit: a
// receive of 15 messages, which AWS's limit of 10 refuses, then works.
func TestSQSLimitsAreConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		wantOK bool
	}{
		{"AWS's default of 10", nil, false},
		{"raised to 20", []string{"--sqs-limit", "MaxReceiveMessages=20"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, "", tc.args...)
			c := sqsClient(s)
			ctx := ctxFor(t, time.Minute)
			url := newQueue(t, c, "", nil)
			for i := range 15 {
				if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(fmt.Sprint(i))}); err != nil {
					t.Fatal(err)
				}
			}
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 15})
			if !tc.wantOK {
				var apiErr smithy.APIError
				if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidParameterValue" {
					t.Fatalf("MaxNumberOfMessages 15 under the default limit: %v, want InvalidParameterValue", err)
				}
				return
			}
			if err != nil || len(out.Messages) != 15 {
				t.Fatalf("MaxNumberOfMessages 15 under a limit of 20: %v, %d messages", err, len(out.Messages))
			}
		})
	}
}
