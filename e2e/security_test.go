package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/golang-jwt/jwt/v5"
)

// The shared-service setup: three keys in two accounts plus the default
// account, and a token secret.
const (
	acctA, acctB, acctDefault = "111111111111", "222222222222", "000000000000"
	keyA, keyA2, keyB, keyD   = "AKIDALICE", "AKIDALICE2", "AKIDBOB", "AKIDDEFAULT"
	secret                    = "s3cret"
	tokenSecret               = "token-secret-for-tests"
)

// sharedArgs starts Herald as a shared service.
func sharedArgs() []string {
	return []string{
		"--aws-access-keys", keyA + ":" + secret + ":" + acctA + "," + keyA2 + ":" + secret + ":" + acctA + "," +
			keyB + ":" + secret + ":" + acctB + "," + keyD + ":" + secret,
		"--ws-jwt-secret", tokenSecret,
	}
}

func sqsAs(s *server, key string) *sqs.Client {
	return sqs.New(sqs.Options{BaseEndpoint: aws.String(s.URL), Region: "us-east-1", RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, nil
		})})
}

func snsAs(s *server, key string) *sns.Client {
	return sns.New(sns.Options{BaseEndpoint: aws.String(s.URL), Region: "us-east-1", RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, nil
		})})
}

// wantAPIError checks that err is an AWS error of code.
func wantAPIError(t *testing.T, what string, err error, code string) {
	t.Helper()
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// signedRequest signs req with key for service (SigV4 in the header).
func signedRequest(t *testing.T, req *http.Request, body []byte, key, service string) *http.Request {
	t.Helper()
	sum := sha256.Sum256(body)
	err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret},
		req, hex.EncodeToString(sum[:]), service, "us-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// queryAs posts a signed Query request and returns the status and body.
func queryAs(t *testing.T, s *server, key, service string, form url.Values) (int, string) {
	t.Helper()
	body := []byte(form.Encode())
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(signedRequest(t, req, body, key, service))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAccountsAreIsolated: another account's key reaches none of an
// account's queues by any action, over JSON (the Go SDK) and Query (raw
// signed requests), batch entries included; a queue policy opens exactly
// what it names; Herald's internal queues are out of every key's reach.
func TestAccountsAreIsolated(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "", sharedArgs()...)
		ctx := ctxFor(t, 2*time.Minute)
		alice, alice2, bob, def := sqsAs(s, keyA), sqsAs(s, keyA2), sqsAs(s, keyB), sqsAs(s, keyD)

		qurl := newQueue(t, alice, "", nil)
		if !strings.Contains(qurl, "/"+acctA+"/") {
			t.Fatalf("alice's queue URL %s does not name her account", qurl)
		}
		name := qurl[strings.LastIndexByte(qurl, '/')+1:]
		if _, err := alice2.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &qurl, MessageBody: aws.String("same account, other key")}); err != nil {
			t.Fatalf("a second key of the same account: %v", err)
		}
		for _, c := range []struct {
			who    string
			client *sqs.Client
		}{{"bob", bob}, {"default account", def}} {
			deny := func(action string, err error) { t.Helper(); wantAPIError(t, c.who+" "+action, err, "AccessDenied") }
			_, err := c.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &qurl, MessageBody: aws.String("x")})
			deny("SendMessage", err)
			_, err = c.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &qurl, Entries: []sqstypes.SendMessageBatchRequestEntry{{Id: aws.String("a"), MessageBody: aws.String("x")}}})
			deny("SendMessageBatch", err)
			_, err = c.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &qurl})
			deny("ReceiveMessage", err)
			_, err = c.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &qurl, Entries: []sqstypes.DeleteMessageBatchRequestEntry{{Id: aws.String("a"), ReceiptHandle: aws.String("AQ")}}})
			deny("DeleteMessageBatch", err)
			_, err = c.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &qurl})
			deny("GetQueueAttributes", err)
			_, err = c.client.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: &qurl, Attributes: map[string]string{"DelaySeconds": "1"}})
			deny("SetQueueAttributes", err)
			_, err = c.client.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: &qurl, Tags: map[string]string{"k": "v"}})
			deny("TagQueue", err)
			_, err = c.client.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: &qurl})
			deny("PurgeQueue", err)
			_, err = c.client.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: &qurl})
			deny("DeleteQueue", err)
			_, err = c.client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: &name, QueueOwnerAWSAccountId: aws.String(acctA)})
			deny("GetQueueUrl with the owner's id", err)
			_, err = c.client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("absent"), QueueOwnerAWSAccountId: aws.String(acctA)})
			deny("GetQueueUrl of a missing queue", err)
		}
		// Bob's own namespace does not see Alice's queue.
		_, err := bob.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: &name})
		wantAPIError(t, "bob GetQueueUrl in his account", err, "AWS.SimpleQueueService.NonExistentQueue")
		lq, err := bob.ListQueues(ctx, &sqs.ListQueuesInput{})
		if err != nil || len(lq.QueueUrls) != 0 {
			t.Fatalf("bob lists %v (%v)", lq.QueueUrls, err)
		}

		// Over the Query protocol too.
		for _, action := range []string{"SendMessage", "ReceiveMessage", "GetQueueAttributes", "PurgeQueue", "DeleteQueue"} {
			status, body := queryAs(t, s, keyB, "sqs", url.Values{"Action": {action}, "QueueUrl": {qurl}, "MessageBody": {"x"}})
			if status != http.StatusForbidden || !strings.Contains(body, "<Code>AccessDenied</Code>") {
				t.Errorf("Query %s by bob: %d %s", action, status, body)
			}
		}

		// A policy opens what it names, to whom it names.
		policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::%s:root"},"Action":"sqs:SendMessage","Resource":"*"}]}`, acctB)
		if _, err := alice.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: &qurl, Attributes: map[string]string{"Policy": policy}}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &qurl, MessageBody: aws.String("allowed")}); err != nil {
			t.Fatalf("bob's send allowed by the policy: %v", err)
		}
		_, err = bob.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &qurl})
		wantAPIError(t, "bob's receive, not in the policy", err, "AccessDenied")
		_, err = def.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &qurl, MessageBody: aws.String("x")})
		wantAPIError(t, "the default account's send, not in the policy", err, "AccessDenied")
		// AddPermission writes a policy that is enforced as well.
		if _, err := alice.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: &qurl, Label: aws.String("recv"), AWSAccountIds: []string{acctB}, Actions: []string{"ReceiveMessage"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &qurl}); err != nil {
			t.Fatalf("bob's receive after AddPermission: %v", err)
		}

		// The internal queues: no key, no protocol, no trick.
		for _, internal := range []string{"/herald-sns/sns-publish", s.URL + "/herald-sns/sns-delivery", s.URL + "/herald-sns/sns-publish-fifo.fifo"} {
			for _, c := range []*sqs.Client{alice, bob, def} {
				_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(internal), MessageBody: aws.String(`{"forged":true}`)})
				wantAPIError(t, "send to "+internal, err, "AccessDenied")
				_, err = c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(internal)})
				wantAPIError(t, "receive from "+internal, err, "AccessDenied")
				_, err = c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(internal)})
				wantAPIError(t, "purge "+internal, err, "AccessDenied")
			}
		}
		_, err = alice.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("sns-publish"), QueueOwnerAWSAccountId: aws.String("herald-sns")})
		if err == nil {
			t.Fatal("GetQueueUrl handed out an internal queue's URL")
		}
		status, body := queryCall(t, s.URL+"/herald-sns/sns-publish", url.Values{"Action": {"ReceiveMessage"}})
		if status != http.StatusForbidden || !strings.Contains(body, "MissingAuthenticationToken") {
			t.Fatalf("an unsigned receive from an internal queue: %d %s", status, body)
		}
	})
}

// TestTopicsAreIsolated: SNS actions on another account's topic are
// refused unless the topic's policy allows them, and a cross-account
// subscription of a queue works only when the queue's policy admits the
// topic.
func TestTopicsAreIsolated(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "", sharedArgs()...)
		ctx := ctxFor(t, 2*time.Minute)
		alice, bob := snsAs(s, keyA), snsAs(s, keyB)
		topic := newTopic(t, alice, nil)
		_, err := bob.Publish(ctx, &sns.PublishInput{TopicArn: &topic, Message: aws.String("x")})
		wantAPIError(t, "bob publishes to alice's topic", err, "AuthorizationError")
		_, err = bob.Subscribe(ctx, &sns.SubscribeInput{TopicArn: &topic, Protocol: aws.String("https"), Endpoint: aws.String("https://example.com/x")})
		wantAPIError(t, "bob subscribes to alice's topic", err, "AuthorizationError")
		_, err = bob.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: &topic})
		wantAPIError(t, "bob reads alice's topic", err, "AuthorizationError")
		_, err = bob.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: &topic})
		wantAPIError(t, "bob deletes alice's topic", err, "AuthorizationError")
		if _, err := alice.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: &topic, Label: aws.String("bobpub"), AWSAccountId: []string{acctB}, ActionName: []string{"Publish"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.Publish(ctx, &sns.PublishInput{TopicArn: &topic, Message: aws.String("allowed")}); err != nil {
			t.Fatalf("bob's publish after AddPermission: %v", err)
		}

		// Alice subscribes Bob's queues: the confirmation (and later every
		// notification) reaches only the one whose policy admits her topic.
		bq := sqsAs(s, keyB)
		policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`
		open := newQueue(t, bq, "", map[string]string{"Policy": policy})
		closed := newQueue(t, bq, "", nil)
		for _, q := range []string{open, closed} {
			arn := queueArn(t, bq, q)
			out, err := alice.Subscribe(ctx, &sns.SubscribeInput{TopicArn: &topic, Protocol: aws.String("sqs"), Endpoint: &arn})
			if err != nil || aws.ToString(out.SubscriptionArn) != "pending confirmation" {
				t.Fatalf("alice subscribes bob's queue: %v %v", out, err)
			}
		}
		deadline := time.Now().Add(30 * time.Second)
		var got *sqstypes.Message
		for got == nil && time.Now().Before(deadline) {
			r, err := bq.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &open, WaitTimeSeconds: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Messages) > 0 {
				got = &r.Messages[0]
			}
		}
		if got == nil || !strings.Contains(aws.ToString(got.Body), "SubscriptionConfirmation") {
			t.Fatalf("no confirmation in the queue whose policy admits the topic: %v", got)
		}
		// Two confirmation attempts (20 s apart) could be made; the closed
		// queue gets none of them.
		r, err := bq.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &closed, WaitTimeSeconds: 2})
		if err != nil || len(r.Messages) != 0 {
			t.Fatalf("the queue whose policy does not admit the topic got %d messages (%v)", len(r.Messages), err)
		}
	})
}

// TestCacheRequiresCredentials: with access keys configured, the cache
// API and /v1/events refuse requests without a valid credential, and a
// credential bounds the paths it reaches.
func TestCacheRequiresCredentials(t *testing.T) {
	s := startServer(t, "", sharedArgs()...)
	do := func(method, path string, body []byte, sign func(*http.Request)) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sign != nil {
			sign(req)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return resp.StatusCode, string(b)
	}
	put := func(path string) []byte {
		return []byte(`{"metadata":{"paths":["` + path + `"]},"ttl":60}`)
	}
	sigv4 := func(key string, body []byte) func(*http.Request) {
		return func(r *http.Request) { signedRequest(t, r, body, key, "herald") }
	}
	bearer := func(tok string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
	}
	token := func(secretKey string, grants map[string]any) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"sub": "device-1", "exp": time.Now().Add(time.Hour).Unix(), "herald": grants,
		}).SignedString([]byte(secretKey))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	good := token(tokenSecret, map[string]any{"subscribe": []string{"devices.1.#"}, "publish": []string{"devices.1.#"}})
	forged := token("not-the-secret", map[string]any{"subscribe": []string{"#"}, "publish": []string{"#"}})

	mine := acctA + ".feeds.a"
	tests := []struct {
		name   string
		method string
		path   string
		body   []byte
		sign   func(*http.Request)
		want   int
	}{
		{"put without a credential", "POST", "/v1/messages", put(mine), nil, 401},
		{"put with a forged token", "POST", "/v1/messages", put("devices.1.t"), bearer(forged), 401},
		{"put with a wrong secret", "POST", "/v1/messages", put(mine), func(r *http.Request) {
			sum := sha256.Sum256(put(mine))
			_ = v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: keyA, SecretAccessKey: "wrong"}, r, hex.EncodeToString(sum[:]), "herald", "us-east-1", time.Now())
		}, 401},
		{"put signed, own prefix", "POST", "/v1/messages", put(mine), sigv4(keyA, put(mine)), 201},
		{"put signed, another prefix", "POST", "/v1/messages", put(acctB + ".x"), sigv4(keyA, put(acctB+".x")), 403},
		{"put with a token, granted", "POST", "/v1/messages", put("devices.1.temp"), bearer(good), 201},
		{"put with a token, not granted", "POST", "/v1/messages", put("devices.2.temp"), bearer(good), 403},
		{"latest without a credential", "GET", "/v1/latest?pattern=%23", nil, nil, 401},
		{"latest signed, own prefix", "GET", "/v1/latest?pattern=" + acctA + ".%23", nil, sigv4(keyA, nil), 200},
		{"latest signed, everything", "GET", "/v1/latest?pattern=%23", nil, sigv4(keyA, nil), 403},
		{"journal with a token", "GET", "/v1/journal?from=2020-01-01T00:00:00Z&to=2030-01-01T00:00:00Z", nil, bearer(good), 403},
		{"events without a credential", "GET", "/v1/events?pattern=%23", nil, nil, 401},
		{"events with a forged token", "GET", "/v1/events?pattern=devices.1.%23", nil, bearer(forged), 401},
		{"events beyond the grant", "GET", "/v1/events?pattern=devices.%23", nil, bearer(good), 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := do(tt.method, tt.path, tt.body, tt.sign)
			if status != tt.want {
				t.Fatalf("%s %s: %d %s, want %d", tt.method, tt.path, status, body, tt.want)
			}
		})
	}

	// The command-line client takes the token too.
	cli := func(args ...string) (string, error) {
		out, err := exec.Command(heraldBin, append([]string{"put", "--server", s.URL, "--path", "devices.1.cli", "--body", "hi"}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := cli(); err == nil || !strings.Contains(out, "unauthenticated") {
		t.Fatalf("herald put without a token: %v %s", err, out)
	}
	if out, err := cli("--token", good); err != nil {
		t.Fatalf("herald put --token: %v %s", err, out)
	}

	// A granted event stream opens (200, text/event-stream).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/v1/events?pattern=devices.1.%23", nil)
	req.Header.Set("Authorization", "Bearer "+good)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("granted event stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestErrorsDoNotEchoLargeInput: a huge queue URL or parameter name comes
// back in an error of bounded size.
func TestErrorsDoNotEchoLargeInput(t *testing.T) {
	s := startServer(t, "")
	huge := "http://x/" + strings.Repeat("q", 1<<20)
	_, err := sqsClient(s).SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(huge), MessageBody: aws.String("x")})
	if err == nil || len(err.Error()) > 4096 {
		t.Fatalf("error of %d bytes for a 1 MiB QueueUrl", len(err.Error()))
	}
	status, body := queryCall(t, s.URL, url.Values{"Action": {"SendMessage"}, "QueueUrl": {huge}, "MessageBody": {"x"}})
	if status < 400 || len(body) > 4096 {
		t.Fatalf("Query: %d, %d bytes", status, len(body))
	}
	status, body = queryCall(t, s.URL, url.Values{"Action": {"CreateQueue"}, "QueueName": {"q"}, "Attribute." + strings.Repeat("9", 1<<20) + ".Name": {"x"}})
	if status < 400 || len(body) > 4096 {
		t.Fatalf("bad parameter name: %d, %d bytes", status, len(body))
	}
}
