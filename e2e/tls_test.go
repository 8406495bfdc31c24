package e2e

import (
	"bytes"
	"crypto/tls"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/heraldmq/herald/internal/testcert"
)

// TestTLSListener runs `herald serve --tls-cert --tls-key` with a
// self-signed certificate: its listening line gives an https:// address,
// an unchanged aws-sdk-go-v2 SQS client trusting the certificate gets
// https queue URLs and round-trips a message, and the herald CLI reaches it
// when SSL_CERT_FILE names the certificate (docs/operations.md, "TLS").
func TestTLSListener(t *testing.T) {
	pair := testcert.New(t, 1)
	certFile, keyFile := pair.Write(t, t.TempDir(), time.Now())
	dataDir := t.TempDir()
	s := startProcessNoWait(t, dataDir, []string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--tls-cert", certFile, "--tls-key", keyFile})
	if !strings.HasPrefix(s.URL, "https://") {
		t.Fatalf("listening on %s, want https://", s.URL)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: testcert.Pool(pair)}}}
	waitHealthy(t, client, s.URL)

	ctx := ctxFor(t, time.Minute)
	api := sqs.New(sqs.Options{BaseEndpoint: aws.String(s.URL), Region: "us-east-1", Credentials: testCredentials, RetryMaxAttempts: 1, HTTPClient: client})
	q, err := api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("tls-orders")})
	if err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	if want := s.URL + "/000000000000/tls-orders"; aws.ToString(q.QueueUrl) != want {
		t.Errorf("queue URL %s, want %s", aws.ToString(q.QueueUrl), want)
	}
	if _, err := api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("over tls")}); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	got, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 5})
	if err != nil || len(got.Messages) != 1 || aws.ToString(got.Messages[0].Body) != "over tls" {
		t.Fatalf("ReceiveMessage: %v, %+v", err, got)
	}

	for _, tc := range []struct {
		name, env string
		code      int
		want      string
	}{
		{"SSL_CERT_FILE names the certificate", "SSL_CERT_FILE=" + certFile, 0, "tls-orders"},
		{"without it", "", 1, "certificate"},
	} {
		t.Run("herald queues, "+tc.name, func(t *testing.T) {
			cmd := exec.Command(heraldBin, "queues", "--server", s.URL)
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "SSL_CERT_") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.code || !strings.Contains(out.String(), tc.want) {
				t.Errorf("exit %d, printed %q; want exit %d and %q", code, out.String(), tc.code, tc.want)
			}
		})
	}
}
