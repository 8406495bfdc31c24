package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/heraldmq/herald/api"
)

// writeConfig writes a configuration file into a fresh directory.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "herald.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const declaringConfig = `
log-level: info
queues:
  - name: orders
    attributes: {VisibilityTimeout: 45}
    dead_letter_queue: {name: orders-dlq, max_receive_count: 3}
    tags: {team: billing}
  - name: orders-dlq
topics:
  - name: order-events
    attributes: {DisplayName: Orders}
    subscriptions:
      - queue: orders
        attributes: {RawMessageDelivery: true}
`

// A configuration file's queues and topics are there, through the AWS SDK,
// as soon as the server answers; a restart with the same file changes
// nothing; a file that disagrees with an existing queue stops the start
// with one line naming it.
func TestConfigFileDeclaresQueuesAndTopics(t *testing.T) {
	path := writeConfig(t, declaringConfig)
	dataDir := t.TempDir()
	s := startServer(t, dataDir, "--config", path)
	checkDeclared(t, s)
	s.stop(t)

	s = startServer(t, dataDir, "--config", path)
	checkDeclared(t, s)
	s.stop(t)

	changed := writeConfig(t, strings.Replace(declaringConfig, "VisibilityTimeout: 45", "VisibilityTimeout: 60", 1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, heraldBin, "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--config", changed).CombinedOutput()
	if err == nil {
		t.Fatalf("herald started with a file that disagrees with an existing queue:\n%s", out)
	}
	for _, want := range []string{"queue orders", "already exists", `VisibilityTimeout is "45" there, "60" in the file`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the start-up error does not say %q:\n%s", want, out)
		}
	}
}

// checkDeclared checks declaringConfig's resources through the AWS SDK,
// and that the subscription delivers.
func checkDeclared(t *testing.T, s *server) {
	t.Helper()
	ctx := ctxFor(t, time.Minute)
	q, tp := sqsClient(s), snsClient(s)
	url, err := q.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("orders")})
	if err != nil {
		t.Fatalf("GetQueueUrl orders: %v", err)
	}
	attrs, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
	if err != nil {
		t.Fatal(err)
	}
	if attrs.Attributes["VisibilityTimeout"] != "45" || !strings.Contains(attrs.Attributes["RedrivePolicy"], ":orders-dlq") {
		t.Errorf("orders: VisibilityTimeout %q, RedrivePolicy %q", attrs.Attributes["VisibilityTimeout"], attrs.Attributes["RedrivePolicy"])
	}
	tags, err := q.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: url.QueueUrl})
	if err != nil || tags.Tags["team"] != "billing" {
		t.Errorf("orders tags %v, %v", tags, err)
	}
	topics, err := tp.ListTopics(ctx, &sns.ListTopicsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var topicARN string
	for _, tt := range topics.Topics {
		if strings.HasSuffix(aws.ToString(tt.TopicArn), ":order-events") {
			topicARN = aws.ToString(tt.TopicArn)
		}
	}
	if topicARN == "" {
		t.Fatalf("no topic order-events among %d topics", len(topics.Topics))
	}
	subs, err := tp.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: aws.String(topicARN)})
	if err != nil || len(subs.Subscriptions) != 1 || aws.ToString(subs.Subscriptions[0].Protocol) != "sqs" ||
		!strings.HasSuffix(aws.ToString(subs.Subscriptions[0].Endpoint), ":orders") {
		t.Fatalf("subscriptions of order-events: %+v, %v", subs, err)
	}
	body := "order " + time.Now().Format(time.RFC3339Nano)
	if _, err := tp.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topicARN), Message: aws.String(body)}); err != nil {
		t.Fatal(err)
	}
	msgs := receiveN(t, q, aws.ToString(url.QueueUrl), 1, 20*time.Second, 0)
	if len(msgs) != 1 || aws.ToString(msgs[0].Body) != body {
		t.Fatalf("published %q, orders received %+v", body, msgs)
	}
	deleteAll(t, q, aws.ToString(url.QueueUrl), msgs)
}

// herald backup copies the embedded store while the server runs (the
// server writes the checkpoint) and while it is stopped (the command opens
// the store); a server started on either copy serves what was written.
func TestBackupAndRestore(t *testing.T) {
	dataDir := t.TempDir()
	s := startServer(t, dataDir)
	ctx := ctxFor(t, 2*time.Minute)
	c := s.client()
	path := uniqueWord(t) + ".backup.one"
	id := uuidAt(t, time.Now()).String()
	if _, _, err := c.Put(ctx, api.PutRequest{MessageUUID: id, Metadata: meta(path), Body: []byte("kept"), TTL: ttl(3600)}); err != nil {
		t.Fatal(err)
	}
	q := sqsClient(s)
	url := newQueue(t, q, "", nil)
	for _, b := range []string{"m1", "m2"} {
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	topicARN := newTopic(t, snsClient(s), nil)

	backups := t.TempDir()
	online := filepath.Join(backups, "online")
	out, err := exec.CommandContext(ctx, heraldBin, "backup", "--data-dir", dataDir, "--to", online, "--server", s.URL).CombinedOutput()
	if err != nil {
		t.Fatalf("herald backup while the server runs: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "asking it") {
		t.Errorf("the command does not say it asked the running server:\n%s", out)
	}
	out, err = exec.CommandContext(ctx, heraldBin, "backup", "--to", online, "--server", s.URL).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "already exists") {
		t.Errorf("a second backup into the same directory: %v\n%s", err, out)
	}
	s.stop(t)
	offline := filepath.Join(backups, "offline")
	if out, err := exec.CommandContext(ctx, heraldBin, "backup", "--data-dir", dataDir, "--to", offline).CombinedOutput(); err != nil {
		t.Fatalf("herald backup of a stopped server's data: %v\n%s", err, out)
	}

	for _, dir := range []string{online, offline} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r := startServer(t, dir)
			ctx := ctxFor(t, time.Minute)
			got, err := r.client().Get(ctx, id)
			if err != nil || string(got.Body) != "kept" {
				t.Errorf("message %s from the backup: %+v, %v", id, got, err)
			}
			q := sqsClient(r)
			msgs := receiveN(t, q, strings.Replace(url, s.URL, r.URL, 1), 2, 10*time.Second, 30)
			if len(msgs) != 2 {
				t.Errorf("queue from the backup: %d messages, want 2", len(msgs))
			}
			if _, err := snsClient(r).GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topicARN)}); err != nil {
				t.Errorf("topic from the backup: %v", err)
			}
			r.stop(t)
		})
	}
}
