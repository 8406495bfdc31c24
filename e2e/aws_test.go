package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// redisAddr is the Redis the Cassandra setup uses: HERALD_TEST_REDIS, as
// `scripts/services env` prints it, or the services script's default.
func redisAddr() string {
	if addr := os.Getenv("HERALD_TEST_REDIS"); addr != "" {
		return addr
	}
	return "127.0.0.1:6379"
}

// requireRedis makes sure a real Redis answers, skipping the test locally
// and failing it in CI when none does.
func requireRedis(t *testing.T) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", redisAddr(), 3*time.Second)
	if err == nil {
		conn.Close()
		return
	}
	msg := fmt.Sprintf("Redis at %s does not answer (%v); start it with `scripts/services start redis`", redisAddr(), err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// eachQueueEngine runs fn per storage setup of the queue service: the
// embedded engine, and Cassandra with Redis.
func eachQueueEngine(t *testing.T, fn func(t *testing.T, e engine)) {
	t.Helper()
	eachEngine(t, func(t *testing.T, e engine) {
		if e.name == cassandra.name {
			requireRedis(t)
		}
		fn(t, e)
	})
}

// testKeys are the access key the signed tests configure Herald with.
const (
	testAccessKey = "AKIDHERALDTEST"
	testSecretKey = "herald-test-secret"
)

// testCredentials sign with the test key.
var testCredentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, Source: "e2e"}, nil
})

// sqsClient returns an unchanged aws-sdk-go-v2 SQS client pointed at s,
// signing with the test key (Herald ignores signatures unless it was
// started with --aws-access-keys) for us-east-1.
func sqsClient(s *server) *sqs.Client { return sqsClientIn(s, "us-east-1") }

// sqsClientIn is sqsClient signing for region.
func sqsClientIn(s *server, region string) *sqs.Client {
	return sqs.New(sqs.Options{BaseEndpoint: aws.String(s.URL), Region: region, Credentials: testCredentials, RetryMaxAttempts: 1})
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
