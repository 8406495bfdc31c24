package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
)

// The first hour of a new user (issue 16, item 5): small surprises, each
// checked against a real herald serve.

// TestBatchPutLastEntryIsLatest puts three versions of one path in one
// batch, several times, and reads the path's latest: always the last entry.
func TestBatchPutLastEntryIsLatest(t *testing.T) {
	eachEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c, ctx := s.client(), testContext(t)
		word := uniqueWord(t)
		for round := range 10 {
			path := fmt.Sprintf("%s.r%d", word, round)
			res, err := c.PutBatch(ctx, []api.PutRequest{
				{Metadata: meta(path), Body: []byte("first")},
				{Metadata: meta(path), Body: []byte("second")},
				{Metadata: meta(path), Body: []byte("third")},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 3 || res.Results[2].Status != 201 {
				t.Fatalf("round %d: batch answered %+v", round, res)
			}
			got, err := c.Latest(ctx, path, client.PageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Items) != 1 || got.Items[0].Message.MessageUUID != res.Results[2].MessageUUID || string(got.Items[0].Message.Body) != "third" {
				t.Fatalf("round %d: latest of %s = %+v, want the third entry %s", round, path, got.Items, res.Results[2].MessageUUID)
			}
		}
	})
}

// TestWebSocketQueueFramesNameTheQueueByItsURL subscribes to a queue by
// name and checks that its queue_message frames carry the URL CreateQueue
// gave (this server's address, not a fixed host), and that subscribing to
// a queue that does not exist gets not_found naming that queue.
func TestWebSocketQueueFramesNameTheQueueByItsURL(t *testing.T) {
	s := startServer(t, "")
	q := sqsClient(s)
	name := "device-" + uuid.NewString()[:8]
	url := newQueueNamed(t, q, name)
	if !strings.HasPrefix(url, s.URL+"/") {
		t.Fatalf("CreateQueue gave %s, want a URL under %s", url, s.URL)
	}
	if _, err := q.SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("hello")}); err != nil {
		t.Fatal(err)
	}
	c := dialWS(t, s)
	c.request(map[string]any{"type": "subscribe_queue", "queue": name})
	c.next(10*time.Second, ofType("subscribed"))
	if f := c.next(15*time.Second, ofType("queue_message")); f["queue"] != url {
		t.Errorf("queue_message names the queue %v, want its URL %s", f["queue"], url)
	}

	missing := "nosuch-" + uuid.NewString()[:8]
	id := c.request(map[string]any{"type": "subscribe_queue", "queue": missing})
	f := c.next(10*time.Second, func(f map[string]any) bool { return f["id"] == id })
	if msg, _ := f["message"].(string); f["type"] != "error" || f["code"] != "not_found" || !strings.Contains(msg, missing) {
		t.Errorf("subscribe_queue of a missing queue answered %v, want not_found naming %s", f, missing)
	}
}

// TestCurlMistakesGetHints makes two mistakes of a first curl session and
// checks what the answers say: a body that is not base64, and a pattern
// with a bare # (curl does not send a URL's fragment).
func TestCurlMistakesGetHints(t *testing.T) {
	requireTool(t, "curl")
	s := startServer(t, "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"body not base64", []string{"-X", "POST", s.URL + "/v1/messages", "-H", "Content-Type: application/json",
			"-d", `{"metadata": {"paths": ["feeds.a"]}, "body": "hello world"}`}, `field \"body\" is not base64`},
		{"a bare # in a pattern", []string{s.URL + "/v1/latest?pattern=feeds.#"}, "write # as %23"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command("curl", append([]string{"-sS", "--fail-with-body"}, tc.args...)...).CombinedOutput()
			if err == nil {
				t.Fatalf("curl succeeded: %s", out)
			}
			if !strings.Contains(string(out), tc.want) || strings.Contains(string(out), "malformed JSON") {
				t.Errorf("answer %s, want it to say %s", out, tc.want)
			}
		})
	}
}

// TestStartupFailsFastWithOneLine starts a second herald serve on a port
// a first one holds, then on the first one's data directory: each exits 1
// at once with one line that says what is wrong. The first one's start
// log has the banner's URLs and none of Pebble's recovery lines.
func TestStartupFailsFastWithOneLine(t *testing.T) {
	first := startServer(t, "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"port taken", []string{"--listen", strings.TrimPrefix(first.URL, "http://"), "--data-dir", t.TempDir()}, "the port is in use"},
		{"data directory locked", []string{"--listen", "127.0.0.1:0", "--data-dir", first.DataDir}, "is locked by another Herald process"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			began := time.Now()
			out, err := exec.CommandContext(ctx, heraldBin, append([]string{"serve"}, tc.args...)...).CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("herald serve: %v, want exit status 1\n%s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "herald: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("herald serve printed %q, want one line saying %q", out, tc.want)
			}
			if d := time.Since(began); d > 10*time.Second {
				t.Errorf("herald serve took %s to fail", d)
			}
		})
	}
	logs := first.logs()
	for _, want := range []string{"console=" + first.URL + "/", "sqs_sns_endpoint=" + first.URL, "metrics=" + first.URL + "/metrics"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the start log lacks %s:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "component=pebble") {
		t.Errorf("the start log has Pebble's lines at the info level:\n%s", logs)
	}
}

// TestREADMETourWorksAsWritten runs the README's 60-second tour with the
// built herald binary against a real server (its address swapped in).
func TestREADMETourWorksAsWritten(t *testing.T) {
	s := startServer(t, "")
	script := strings.ReplaceAll(readmeBlock(t, "## A 60-second tour", "sh"), "http://127.0.0.1:4566", s.URL)
	var lines []string
	for _, line := range strings.Split(script, "\n") {
		if rest, ok := strings.CutPrefix(line, "herald "); ok {
			line = heraldBin + " " + rest
		}
		lines = append(lines, line)
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", strings.Join(lines, "\n"))
	cmd.Env = append(os.Environ(), "HERALD_SERVER="+s.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tour failed: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "path:         tour.hello") + strings.Count(string(out), `"path":"tour.hello"`); n != 2 {
		t.Errorf("the tour showed tour.hello's latest %d times, want 2 (CLI as text and curl):\n%s", n, out)
	}
	// What the console then shows: the queue with its message, the topic
	// with its subscription.
	var qs struct {
		Queues []struct {
			Name    string `json:"name"`
			Visible int64  `json:"visible"`
		} `json:"queues"`
	}
	call(t, s, "GET", "/v1/admin/queues", nil, &qs)
	if len(qs.Queues) != 1 || qs.Queues[0].Name != "tour" || qs.Queues[0].Visible != 1 {
		t.Errorf("after the tour the console's queues are %+v, want tour with 1 message", qs.Queues)
	}
	var ts struct {
		Topics []struct {
			Name          string            `json:"name"`
			Subscriptions []json.RawMessage `json:"subscriptions"`
		} `json:"topics"`
	}
	call(t, s, "GET", "/v1/admin/topics", nil, &ts)
	if len(ts.Topics) != 1 || ts.Topics[0].Name != "tour" || len(ts.Topics[0].Subscriptions) != 1 {
		t.Errorf("after the tour the console's topics are %+v, want tour with its subscription", ts.Topics)
	}
	if !strings.Contains(string(out), "tour") {
		t.Errorf("herald queues printed nothing of the queue:\n%s", out)
	}
}
