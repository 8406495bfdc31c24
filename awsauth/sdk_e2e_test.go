package awsauth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
)

// sqsStub answers ListQueues in the AWS JSON 1.0 protocol after checking
// the request signature, the way Herald's SQS endpoint is expected to.
type sqsStub struct {
	verifier *Verifier
	mu       sync.Mutex
	seen     []Identity
}

func (s *sqsStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	id, err := s.verifier.Verify(r, body)
	if err != nil {
		var ae *Error
		if !errors.As(err, &ae) {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("X-Amzn-Query-Error", ae.Code+";Sender")
		w.WriteHeader(ae.Status)
		_ = json.NewEncoder(w).Encode(map[string]string{
			"__type":  "com.amazonaws.sqs#" + ae.Code,
			"message": ae.Message,
		})
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, id)
	s.mu.Unlock()
	_, _ = io.WriteString(w, `{"QueueUrls":[]}`)
}

func TestSDKClientEndToEnd(t *testing.T) {
	stub := &sqsStub{verifier: NewVerifier(Credentials{testKeyID: testSecret})}
	srv := httptest.NewServer(stub)
	defer srv.Close()

	client := func(keyID, secret string) *sqs.Client {
		return sqs.New(sqs.Options{
			Region:           testRegion,
			BaseEndpoint:     aws.String(srv.URL),
			RetryMaxAttempts: 1,
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret, Source: "test"}, nil
			}),
		})
	}

	cases := []struct {
		name   string
		keyID  string
		secret string
		code   string
	}{
		{name: "correct keys", keyID: testKeyID, secret: testSecret},
		{name: "wrong secret", keyID: testKeyID, secret: "wrong", code: CodeSignatureDoesNotMatch},
		{name: "unknown key", keyID: "AKIAUNKNOWN", secret: testSecret, code: CodeInvalidClientTokenID},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := client(tc.keyID, tc.secret).ListQueues(context.Background(), &sqs.ListQueuesInput{
				QueueNamePrefix: aws.String("orders"),
			})
			if tc.code == "" {
				if err != nil {
					t.Fatalf("ListQueues: %v", err)
				}
				if len(out.QueueUrls) != 0 {
					t.Fatalf("QueueUrls = %v", out.QueueUrls)
				}
				return
			}
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("ListQueues error = %v, want API error %s", err, tc.code)
			}
			if apiErr.ErrorCode() != tc.code {
				t.Fatalf("error code = %s, want %s (%v)", apiErr.ErrorCode(), tc.code, err)
			}
		})
	}

	stub.mu.Lock()
	defer stub.mu.Unlock()
	want := Identity{AccessKey: testKeyID, Region: testRegion, Service: "sqs"}
	if len(stub.seen) != 1 || stub.seen[0] != want {
		t.Fatalf("verified identities = %+v, want [%+v]", stub.seen, want)
	}
}
