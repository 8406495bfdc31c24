package awsapi

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/httpapi"
)

// The lead wires New(...) into httpapi.Server.SetAWSHandler.
var _ httpapi.AWSHandler = (*Handler)(nil)

func TestAccepts(t *testing.T) {
	h := New(Config{SQS: &fakeAPI{}})
	cases := []struct {
		name   string
		method string
		target string
		header map[string]string
		want   bool
	}{
		{"json target", "POST", "/", map[string]string{"X-Amz-Target": "AmazonSQS.ListQueues"}, true},
		{"json content type", "POST", "/", map[string]string{"Content-Type": "application/x-amz-json-1.0"}, true},
		{"query form", "POST", "/000000000000/q", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, true},
		{"query GET", "GET", "/?Action=ListQueues", nil, true},
		{"signed", "POST", "/", map[string]string{"Authorization": "AWS4-HMAC-SHA256 Credential=A/20240101/us-east-1/sqs/aws4_request"}, true},
		{"presigned", "GET", "/?X-Amz-Credential=A%2F20240101%2Fus-east-1%2Fsqs%2Faws4_request", nil, true},
		{"plain GET", "GET", "/anything", nil, false},
		{"plain JSON POST", "POST", "/", map[string]string{"Content-Type": "application/json"}, false},
		{"form GET without action", "GET", "/?QueueName=x", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.target, nil)
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			equal(t, h.Accepts(r), tc.want)
		})
	}
}

// snsStub stands for the SNS Query service to come.
type snsStub struct {
	mu     sync.Mutex
	served []*Call
	errs   []error
}

func (s *snsStub) SigningName() string { return "sns" }

func (s *snsStub) HasAction(action string) bool {
	return action == "Publish" || action == "CreateTopic"
}

func (s *snsStub) ServeQuery(w http.ResponseWriter, c *Call) {
	s.mu.Lock()
	s.served = append(s.served, c)
	s.mu.Unlock()
	w.Write([]byte("sns:" + c.Action))
}

func (s *snsStub) WriteQueryError(w http.ResponseWriter, c *Call, err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
	w.WriteHeader(http.StatusTeapot)
}

// sign signs req for service with the SDK's signer.
func sign(t *testing.T, req *http.Request, body, keyID, secret, service string) {
	t.Helper()
	sum := sha256.Sum256([]byte(body))
	err := v4.NewSigner().SignHTTP(t.Context(), aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret},
		req, hex.EncodeToString(sum[:]), service, testRegion, time.Now())
	if err != nil {
		t.Fatalf("signing: %v", err)
	}
}

// TestQueryServiceDispatch checks that Query requests reach the service
// their credential scope names, or the one knowing their action when
// unsigned, and that SQS JSON refuses credentials scoped to another
// service.
func TestQueryServiceDispatch(t *testing.T) {
	const fakeScope = "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=00"
	t.Run("auth off", func(t *testing.T) {
		sns := &snsStub{}
		fake, srv := startEdge(t, Config{SNS: sns})
		cases := []struct {
			name, body, authz, want string
		}{
			{"unsigned SNS action", "Action=Publish&Message=hi", "", "sns:Publish"},
			{"unsigned SQS action", "Action=ListQueues", "", "sqs"},
			{"unsigned unknown action", "Action=Nope", "", "sqs"},
			{"scope decides over action name", "Action=ListQueues", fakeScope, "sns:ListQueues"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				req := mustRequest(t, http.MethodPost, srv.URL+"/", tc.body)
				req.Header.Set("Content-Type", formContentType)
				if tc.authz != "" {
					req.Header.Set("Authorization", tc.authz)
					req.Header.Set("X-Amz-Date", "20240101T000000Z")
				}
				resp := do(t, req)
				if tc.want == "sqs" {
					if !strings.Contains(resp.body, sqsNamespace) {
						t.Fatalf("answer is not from SQS: %d %s", resp.status, resp.body)
					}
					return
				}
				equal(t, resp.body, tc.want)
			})
		}
		if len(fake.calls) != 1 {
			t.Fatalf("SQS saw %d calls, want 1 (ListQueues)", len(fake.calls))
		}
	})

	t.Run("auth on", func(t *testing.T) {
		sns := &snsStub{}
		_, srv := startEdge(t, Config{
			SNS:         sns,
			Verifier:    awsauth.NewVerifier(awsauth.Credentials{testKeyID: testSecret}),
			KeyAccounts: map[string]string{testKeyID: "123456789012"},
		})

		body := "Action=CreateTopic&Name=t"
		req := mustRequest(t, http.MethodPost, srv.URL+"/", body)
		req.Header.Set("Content-Type", formContentType)
		sign(t, req, body, testKeyID, testSecret, "sns")
		equal(t, do(t, req).body, "sns:CreateTopic")
		c := sns.served[len(sns.served)-1]
		equal(t, c.Account, "123456789012")
		equal(t, c.SenderID, testKeyID)
		equal(t, c.Identity, awsauth.Identity{AccessKey: testKeyID, Region: testRegion, Service: "sns"})

		// Auth errors of SNS requests are rendered by SNS.
		req = mustRequest(t, http.MethodPost, srv.URL+"/", "Action=Publish")
		req.Header.Set("Content-Type", formContentType)
		equal(t, do(t, req).status, http.StatusTeapot)
		var authErr *awsauth.Error
		if len(sns.errs) != 1 || !errors.As(sns.errs[0], &authErr) || authErr.Code != awsauth.CodeMissingAuthenticationToken {
			t.Fatalf("SNS errors = %v", sns.errs)
		}

		// An SQS JSON request signed for sns is refused.
		jsonBody := `{}`
		req = mustRequest(t, http.MethodPost, srv.URL+"/", jsonBody)
		req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
		req.Header.Set("Content-Type", jsonContentType)
		sign(t, req, jsonBody, testKeyID, testSecret, "sns")
		resp := do(t, req)
		equal(t, resp.status, http.StatusForbidden)
		equal(t, resp.header.Get("x-amzn-query-error"), "SignatureDoesNotMatch;Sender")
	})
}
