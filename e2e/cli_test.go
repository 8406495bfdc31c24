package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/heraldmq/herald/client"
)

// The herald CLI in the first hour (issue 16, item 5): the built binary
// against a real herald serve.

// heraldCLI runs the herald binary with args and --server s.URL and returns
// its stdout, stderr and exit code.
func heraldCLI(t *testing.T, s *server, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if s != nil {
		args = append(args, "--server", s.URL)
	}
	cmd := exec.Command(heraldBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("herald %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// heraldOK is heraldCLI for a command that must succeed.
func heraldOK(t *testing.T, s *server, args ...string) string {
	t.Helper()
	out, errOut, code := heraldCLI(t, s, args...)
	if code != 0 {
		t.Fatalf("herald %v: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

// TestCLIQueuesTopicsAndPeek lists a queue and a topic with its
// subscription, in text and JSON, and peeks at the queue's messages twice:
// they are then received once each with ApproximateReceiveCount 1 (the
// peeks received nothing) and at once (the peeks hid nothing).
func TestCLIQueuesTopicsAndPeek(t *testing.T) {
	s := startServer(t, "")
	ctx := ctxFor(t, time.Minute)
	q := sqsClient(s)
	url := newQueue(t, q, "", nil)
	queue := url[strings.LastIndex(url, "/")+1:]
	for _, body := range []string{"first job", "second: héllo"} {
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	topics := snsClient(s)
	topic := newTopic(t, topics, nil)
	topicName := topic[strings.LastIndex(topic, ":")+1:]
	qARN := queueArn(t, q, url)
	if _, err := topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(qARN)}); err != nil {
		t.Fatal(err)
	}

	// queues, text: a row with the counts.
	row := lineStarting(heraldOK(t, s, "queues"), queue+" ")
	if f := strings.Fields(row); len(f) != 6 || f[1] != "standard" || f[2] != "2" || f[3] != "0" || f[4] != "0" || f[5] != "-" {
		t.Errorf("herald queues row %q, want %s standard 2 0 0 -", row, queue)
	}
	// topics, text and JSON.
	text := heraldOK(t, s, "topics")
	if !strings.Contains(text, topicName+"  ("+topic+")") || !strings.Contains(lineStarting(text, "  sqs"), "confirmed  "+qARN) {
		t.Errorf("herald topics printed\n%s\nwant %s with a confirmed sqs subscription to %s", text, topicName, qARN)
	}
	var ts client.TopicsResponse
	decodeJSON(t, heraldOK(t, s, "topics", "--output", "json"), &ts)
	found := false
	for _, tp := range ts.Topics {
		if tp.ARN == topic && len(tp.Subscriptions) == 1 && tp.Subscriptions[0].Endpoint == qARN && !tp.Subscriptions[0].Pending() {
			found = true
		}
	}
	if !found {
		t.Errorf("herald topics --output json lacks %s with its subscription: %+v", topic, ts)
	}

	// peek, text then JSON: oldest first, nothing received.
	text = heraldOK(t, s, "peek", queue)
	if strings.Count(text, "receives:     0") != 2 || !strings.Contains(text, "body:         first job") || !strings.Contains(text, "body:         second: héllo") ||
		strings.Index(text, "first job") > strings.Index(text, "second") {
		t.Errorf("herald peek printed\n%s", text)
	}
	var peeked client.PeekResponse
	decodeJSON(t, heraldOK(t, s, "peek", queue, "--limit", "1", "--output", "json"), &peeked)
	if len(peeked.Messages) != 1 || peeked.Messages[0].Body != "first job" || peeked.Messages[0].BodyEncoding != "text" || peeked.Messages[0].ReceiveCount != 0 {
		t.Errorf("herald peek --limit 1 --output json: %+v", peeked)
	}
	got := receiveN(t, q, url, 2, 5*time.Second, 30)
	if len(got) != 2 {
		t.Fatalf("received %d of the 2 messages at once after the peeks", len(got))
	}
	for _, m := range got {
		if n := m.Attributes["ApproximateReceiveCount"]; n != "1" {
			t.Errorf("message %q has ApproximateReceiveCount %s after two peeks and one receive, want 1", aws.ToString(m.Body), n)
		}
	}

	// queues, JSON: now both in flight.
	var qs client.QueuesResponse
	decodeJSON(t, heraldOK(t, s, "queues", "--output", "json"), &qs)
	var mine *client.Queue
	for i := range qs.Queues {
		if qs.Queues[i].Name == queue {
			mine = &qs.Queues[i]
		}
	}
	if mine == nil || mine.URL != url || mine.Visible != 0 || mine.InFlight != 2 || mine.Delayed != 0 {
		t.Errorf("herald queues --output json: %+v, want %s with 0 visible and 2 in flight", mine, queue)
	}

	_, errOut, code := heraldCLI(t, s, "peek", "nosuch-queue")
	if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "herald: 404 not_found") {
		t.Errorf("herald peek nosuch-queue: exit %d, %q", code, errOut)
	}
}

func lineStarting(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func decodeJSON(t *testing.T, text string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("%v in\n%s", err, text)
	}
}

// TestCLIHelpAndMistakes: --help exits 0 for every command; a mistake is
// one line on stderr with a hint, and sends nothing.
func TestCLIHelpAndMistakes(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"serve", "--help"}, {"put", "--help"}, {"get", "--help"}, {"latest", "--help"}, {"all", "--help"},
		{"journal", "--help"}, {"paths", "--help"}, {"queues", "--help"}, {"topics", "--help"}, {"peek", "--help"},
		{"rollup", "--help"}, {"rollup", "top", "--help"}, {"bench", "--help"}, {"bench", "cache", "--help"},
		{"chaos", "--help"}, {"version", "--help"},
	} {
		if out, errOut, code := heraldCLI(t, nil, args...); code != 0 || !strings.Contains(out+errOut, "sage") {
			t.Errorf("herald %v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	s := startServer(t, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"put", "--pth", "a.b", "--body", "x"}, "herald put: unknown flag --pth; did you mean --path? (herald put --help)\n"},
		{[]string{"queues", "--outptu", "json"}, "herald queues: unknown flag --outptu; did you mean --output? (herald queues --help)\n"},
		{[]string{"put", "--body", "x"}, "herald put: a message needs a path: --path PATH (or \"paths\" in --metadata) (herald put --help)\n"},
	}
	for _, tc := range cases {
		out, errOut, code := heraldCLI(t, s, tc.args...)
		if code != 1 || out != "" || errOut != tc.want {
			t.Errorf("herald %v: exit %d, stdout %q, stderr %q; want exit 1 and only %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if paths := heraldOK(t, s, "paths"); strings.TrimSpace(paths) != "(no paths)" {
		t.Errorf("the mistakes stored something: herald paths printed %q", paths)
	}
}

// TestCLIDurationTTLsAndRelativeTimes: --ttl takes 1h as well as seconds;
// journal takes -5m and now as well as RFC 3339.
func TestCLIDurationTTLsAndRelativeTimes(t *testing.T) {
	s := startServer(t, "")
	root := uniqueWord(t)
	for _, tc := range []struct {
		ttl  string
		want time.Duration
	}{{"1h", time.Hour}, {"90m", 90 * time.Minute}, {"120", 2 * time.Minute}} {
		var put struct {
			MessageUUID string `json:"message_uuid"`
		}
		decodeJSON(t, heraldOK(t, s, "put", "--path", root+".ttl", "--body", "b", "--ttl", tc.ttl, "--output", "json"), &put)
		var m struct {
			ReceivedAt time.Time `json:"received_at"`
			ExpiresAt  time.Time `json:"expires_at"`
		}
		decodeJSON(t, heraldOK(t, s, "get", put.MessageUUID, "--output", "json"), &m)
		if d := m.ExpiresAt.Sub(m.ReceivedAt); d < tc.want-time.Second || d > tc.want+time.Second {
			t.Errorf("--ttl %s: the message lives %s, want %s", tc.ttl, d, tc.want)
		}
	}
	id := between(heraldOK(t, s, "put", "--path", root+".when", "--body", "now", "--output", "json"), `"message_uuid": "`, `"`)
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--from", "-5m"}, true},
		{[]string{"--from", "-5m", "--to", "now"}, true},
		{[]string{"--from", time.Now().Add(-time.Minute).UTC().Format(time.RFC3339), "--to", "+1m"}, true},
		{[]string{"--from", "-2h", "--to", "-1h"}, false},
		{[]string{"--from", "+1m", "--to", "+2m"}, false},
	} {
		// now: the message was received a moment ago, before the CLI's "now".
		out := heraldOK(t, s, append([]string{"journal", "--output", "json"}, tc.args...)...)
		if strings.Contains(out, id) != tc.want {
			t.Errorf("herald journal %v: holds the message %v, want %v\n%s", tc.args, !tc.want, tc.want, out)
		}
	}
}
