package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestBrowserConsole loads the operator console at "/" in headless
// Chromium and lets it check what it shows (console.js, ?check=): a queue
// with its 3 visible messages, then, without a reload, the 5 it has after 2
// more are sent (the console updates by itself), then a topic with its
// subscription, then a peek of the queue's 5 messages, then a path's
// latest message in the paths view; after which each queued message is
// still unreceived (the peek received nothing).
func TestBrowserConsole(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := ctxFor(t, 2*time.Minute)
	q := sqsClient(s)
	url := newQueue(t, q, "", nil)
	queue := url[strings.LastIndex(url, "/")+1:]
	send := func(n int) {
		t.Helper()
		for range n {
			if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("m")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	send(3)
	topics := snsClient(s)
	topic := newTopic(t, topics, nil)
	if _, err := topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"),
		Endpoint: aws.String(queueArn(t, q, url))}); err != nil {
		t.Fatal(err)
	}
	topicName := topic[strings.LastIndex(topic, ":")+1:]

	word := uniqueWord(t)
	putHTTP(t, s, word+".a", base64.StdEncoding.EncodeToString([]byte("older")))
	putHTTP(t, s, word+".a", base64.StdEncoding.EncodeToString([]byte("hello")))
	pageURL := s.URL + "/?pattern=" + word + ".%23&check=q:" + queue + ":3,q:" + queue + ":5,t:" + topicName + ":1,p:" + queue + ":5,l:" + word + ".a:hello"
	sent := false
	title := watchPage(t, ctx, chromium, pageURL, func(title string) bool {
		if title == "CONSOLE STEP 1" && !sent {
			send(2)
			sent = true
		}
		return title == "CONSOLE PASS" || strings.HasPrefix(title, "CONSOLE FAIL")
	})
	if title != "CONSOLE PASS" {
		t.Fatalf("console reported %q\nserver log:\n%s", title, s.logs())
	}
	got := receiveN(t, q, url, 5, 15*time.Second, 30)
	if len(got) != 5 {
		t.Fatalf("received %d of the 5 messages after the peek", len(got))
	}
	for _, m := range got {
		if n := m.Attributes["ApproximateReceiveCount"]; n != "1" {
			t.Errorf("message %s has ApproximateReceiveCount %s after a peek and one receive, want 1", aws.ToString(m.MessageId), n)
		}
	}
}

// TestBrowserConsoleScreenshot guards against an empty or broken page: a
// screenshot of the console, taken once its scripts ran, is a real PNG of
// which a good part is not background.
func TestBrowserConsoleScreenshot(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	newQueue(t, sqsClient(s), "", nil)
	shot := filepath.Join(t.TempDir(), "console.png")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--window-size=1280,800", "--virtual-time-budget=5000", "--screenshot="+shot, s.URL+"/")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	inked, total := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			total++
			if r < 0xe000 || g < 0xe000 || bl < 0xe000 {
				inked++
			}
		}
	}
	// Headings, the navigation, the table's header and rows: a page that
	// rendered nothing (or only an error) stays far below this.
	t.Logf("ink: %.2f%%", 100*float64(inked)/float64(total))
	if frac := float64(inked) / float64(total); frac < 0.005 {
		t.Fatalf("the console's screenshot is %.2f%% ink: an empty page", 100*frac)
	}
}

// TestBrowserConsoleActions: the console sends a message to a queue, then
// publishes to a topic that delivers to that queue, then purges it; each
// through its form or button, each followed by the depth it leads to.
func TestBrowserConsoleActions(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := ctxFor(t, 2*time.Minute)
	q := sqsClient(s)
	url := newQueue(t, q, "", nil)
	queue := url[strings.LastIndex(url, "/")+1:]
	topics := snsClient(s)
	topic := newTopic(t, topics, nil)
	if _, err := topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"),
		Endpoint: aws.String(queueArn(t, q, url))}); err != nil {
		t.Fatal(err)
	}
	topicName := topic[strings.LastIndex(topic, ":")+1:]
	pageURL := s.URL + "/?check=q:" + queue + ":0,s:" + queue + ":1,b:" + topicName + ":1,q:" + queue + ":2,x:" + queue + ":0"
	title := watchPage(t, ctx, chromium, pageURL, func(title string) bool {
		return title == "CONSOLE PASS" || strings.HasPrefix(title, "CONSOLE FAIL")
	})
	if title != "CONSOLE PASS" {
		t.Fatalf("console reported %q\nserver log:\n%s", title, s.logs())
	}
	if got := receiveN(t, q, url, 1, 2*time.Second, 30); len(got) != 0 {
		t.Fatalf("the queue holds %d messages after the console's purge", len(got))
	}
}

// TestBrowserConsoleRedrive: the console starts a redrive of a dead-letter
// queue (a message move task), and the message is back in its source queue.
func TestBrowserConsoleRedrive(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := ctxFor(t, 2*time.Minute)
	q := sqsClient(s)
	dlq := newQueue(t, q, "", nil)
	src := newQueue(t, q, "", map[string]string{"VisibilityTimeout": "0",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + queueArn(t, q, dlq) + `","maxReceiveCount":"1"}`})
	if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(src), MessageBody: aws.String("poison")}); err != nil {
		t.Fatal(err)
	}
	if got := receiveN(t, q, src, 1, 10*time.Second, 0); len(got) != 1 {
		t.Fatal("the first receive got nothing")
	}
	receiveN(t, q, src, 1, 3*time.Second, 0) // the second receive moves it to the dead-letter queue
	name := dlq[strings.LastIndex(dlq, "/")+1:]
	title := watchPage(t, ctx, chromium, s.URL+"/?check=q:"+name+":1,r:"+name+":0", func(title string) bool {
		return title == "CONSOLE PASS" || strings.HasPrefix(title, "CONSOLE FAIL")
	})
	if title != "CONSOLE PASS" {
		t.Fatalf("console reported %q\nserver log:\n%s", title, s.logs())
	}
	if got := receiveN(t, q, src, 1, 10*time.Second, 30); len(got) != 1 || aws.ToString(got[0].Body) != "poison" {
		t.Fatalf("the source queue holds %v after the redrive, want the message", got)
	}
}

// TestBrowserConsoleRollups: the console draws a rollup's series with the
// vendored chart library and lists the top values of its first dimension;
// then, without a reload, events cross the threshold of a trigger and the
// console shows its last firing, published to its topic, at the value
// that crossed.
func TestBrowserConsoleRollups(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := ctxFor(t, 2*time.Minute)
	name := "console-" + uniqueWord(t)
	topic := newTopic(t, snsClient(s), nil)
	def := map[string]any{
		"event": map[string]any{"id": "id", "time": "time"}, "scopes": [][]string{{"channel"}},
		"metrics": []string{"plays"}, "dimensions": []string{"city"},
		"periods": []map[string]any{{"unit": "hour"}, {"unit": "all"}},
		"triggers": []map[string]any{{"id": "five", "metric": "plays", "scope": map[string]string{"channel": "*"}, "unit": "all",
			"threshold": 5, "topic_arn": topic}},
	}
	if st := call(t, s, http.MethodPut, "/v1/rollups/"+name, def, nil); st != http.StatusCreated {
		t.Fatalf("PUT rollup: %d", st)
	}
	send := func(first int, cities ...string) {
		t.Helper()
		var events []map[string]any
		for i, city := range cities {
			events = append(events, map[string]any{"id": fmt.Sprint(first + i), "time": time.Now().UTC().Format(time.RFC3339), "channel": "c1", "city": city, "plays": 1})
		}
		if st := call(t, s, http.MethodPost, "/v1/rollups/"+name+"/events", events, nil); st != http.StatusOK {
			t.Fatalf("POST events: %d", st)
		}
	}
	send(0, "Paris", "Paris", "Oslo")
	pageURL := s.URL + "/?rollup=" + name + "&unit=hour&scope.channel=c1&check=k:" + name + ":2,f:" + name + ":6"
	crossed := false
	title := watchPage(t, ctx, chromium, pageURL, func(title string) bool {
		if title == "CONSOLE STEP 1" && !crossed {
			send(3, "Paris", "Paris", "Paris") // 3 plays to 6: the trigger at 5 fires
			crossed = true
		}
		return title == "CONSOLE PASS" || strings.HasPrefix(title, "CONSOLE FAIL")
	})
	if title != "CONSOLE PASS" {
		t.Fatalf("console reported %q\nserver log:\n%s", title, s.logs())
	}
}

// TestBrowserConsoleRollupSortAndDrillDown: in the console, a click on a
// metric's header ranks the top table by it (again: ascending), and a
// click on a value drills down into it, as a user would sort and drill on
// a dashboard.
func TestBrowserConsoleRollupSortAndDrillDown(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := ctxFor(t, 2*time.Minute)
	name := "sort-" + uniqueWord(t)
	def := map[string]any{
		"event": map[string]any{"id": "id", "time": "time"}, "scopes": [][]string{{"channel"}},
		"metrics": []string{"plays", "shares"}, "dimensions": []string{"city", "site"},
		"drilldowns": [][]string{{"city", "site"}}, "periods": []map[string]any{{"unit": "all"}},
	}
	if st := call(t, s, http.MethodPut, "/v1/rollups/"+name, def, nil); st != http.StatusCreated {
		t.Fatalf("PUT rollup: %d", st)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	events := []map[string]any{
		{"id": "1", "time": now, "channel": "c1", "city": "Paris", "site": "s1", "plays": 2},
		{"id": "2", "time": now, "channel": "c1", "city": "Paris", "site": "s2", "plays": 1},
		{"id": "3", "time": now, "channel": "c1", "city": "Oslo", "site": "s3", "plays": 1, "shares": 5},
	}
	if st := call(t, s, http.MethodPost, "/v1/rollups/"+name+"/events", events, nil); st != http.StatusOK {
		t.Fatalf("POST events: %d", st)
	}
	// Paris leads by plays (3 to 1), Oslo by shares (5 to 0), Paris by
	// shares ascending; Paris holds two sites.
	steps := []string{"k:" + name + ":2", "o:" + name + ":shares/Oslo", "o:" + name + ":shares/Paris/asc", "o:" + name + ":plays/Paris", "d:" + name + ":Paris/2"}
	pageURL := s.URL + "/?rollup=" + name + "&unit=all&scope.channel=c1&check=" + strings.Join(steps, ",")
	title := watchPage(t, ctx, chromium, pageURL, func(title string) bool {
		return title == "CONSOLE PASS" || strings.HasPrefix(title, "CONSOLE FAIL")
	})
	if title != "CONSOLE PASS" {
		t.Fatalf("console reported %q\nserver log:\n%s", title, s.logs())
	}
}

// TestBrowserConsoleQueueSearch: among many queues, the console's search
// box lists those whose names start with what was typed, 200 a page, and
// "Next page" shows the rest.
func TestBrowserConsoleQueueSearch(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := ctxFor(t, 2*time.Minute)
	q := sqsClient(s)
	for i := range 260 {
		if _, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(fmt.Sprintf("stb-%03d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"alpha", "zeta"} {
		if _, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
	}
	title := watchPage(t, ctx, chromium, s.URL+"/?check=n:stb-:200,m:stb-:60,n:zet:1", func(title string) bool {
		return title == "CONSOLE PASS" || strings.HasPrefix(title, "CONSOLE FAIL")
	})
	if title != "CONSOLE PASS" {
		t.Fatalf("console reported %q\nserver log:\n%s", title, s.logs())
	}
}
