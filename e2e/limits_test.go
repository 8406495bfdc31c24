package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/coder/websocket"
	"github.com/google/uuid"
)

// limitedArgs: the shared service with account A limited to 4 requests a
// second (burst 4) on SQS and SNS, and account B exempt from the limits
// every other account has.
func limitedArgs() []string {
	return append(sharedArgs(),
		"--limit", "sqs=4/s:4", "--limit", "sns=4/s:4",
		"--limit", acctB+"/sqs=off", "--limit", acctB+"/sns=off")
}

// throttledStatus returns the HTTP status and the x-amzn-query-error header
// of an SDK error, and whether it was code.
func throttledAnswer(err error, code string) (status int, queryError string, ok bool) {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != code {
		return 0, "", false
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode(), re.Response.Header.Get("x-amzn-query-error"), true
	}
	return 0, "", true
}

// TestRateLimitsThrottleOneAccountAndTheSDKRetries: over its SQS or SNS
// rate an account gets AWS's throttling answer (SQS RequestThrottled, 403,
// with x-amzn-query-error, over JSON and Query; SNS Throttled, 429) while
// another account on the same node is not slowed; aws-sdk-go-v2's own
// retryer then gets every request through, and nothing sent is lost.
func TestRateLimitsThrottleOneAccountAndTheSDKRetries(t *testing.T) {
	s := startServer(t, "", limitedArgs()...)
	ctx := ctxFor(t, 2*time.Minute)
	name := "limited-" + uuid.NewString()[:8]

	a, b := sqsAs(s, keyA), sqsAs(s, keyB)
	qa, err := a.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	qb, err := b.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("SQS JSON", func(t *testing.T) {
		// At once, from goroutines: however slow each call is on a loaded
		// machine, twenty arrive together and a burst of 4 is exceeded.
		errs := make([]error, 20)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = a.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: qa.QueueUrl, MessageBody: aws.String(fmt.Sprint("a", i))})
			})
		}
		wg.Wait()
		throttled := 0
		for i, err := range errs {
			if err == nil {
				continue
			}
			status, qe, ok := throttledAnswer(err, "RequestThrottled")
			if !ok || status != http.StatusForbidden || qe != "RequestThrottled;Sender" {
				t.Fatalf("send %d: %v (HTTP %d, x-amzn-query-error %q), want RequestThrottled, 403, RequestThrottled;Sender", i, err, status, qe)
			}
			throttled++
		}
		if throttled == 0 {
			t.Fatal("20 sends at once at 4/s: none throttled")
		}
		for i := range 20 {
			if _, err := b.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: qb.QueueUrl, MessageBody: aws.String("b")}); err != nil {
				t.Fatalf("account B, exempt, send %d: %v", i, err)
			}
		}
		t.Logf("account A: %d of 20 sends throttled; account B: 0 of 20", throttled)
	})

	t.Run("SQS Query", func(t *testing.T) {
		form := url.Values{"Action": {"SendMessage"}, "QueueUrl": {*qa.QueueUrl}, "MessageBody": {"q"}}
		statuses, bodies := make([]int, 20), make([]string, 20)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() { statuses[i], bodies[i] = queryAs(t, s, keyA, "sqs", form) })
		}
		wg.Wait()
		status, body := http.StatusOK, ""
		for i := range statuses {
			if statuses[i] != http.StatusOK {
				status, body = statuses[i], bodies[i]
				break
			}
		}
		if status != http.StatusForbidden || !strings.Contains(body, "<Code>RequestThrottled</Code>") || !strings.Contains(body, "<Type>Sender</Type>") {
			t.Fatalf("Query sends over the rate: HTTP %d %s, want 403 with RequestThrottled", status, body)
		}
	})

	t.Run("SNS", func(t *testing.T) {
		sa := snsAs(s, keyA)
		topic, err := retrySDK(ctx, func() (*sns.CreateTopicOutput, error) {
			return sa.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)})
		})
		if err != nil {
			t.Fatal(err)
		}
		errs := make([]error, 20)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = sa.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("m")})
			})
		}
		wg.Wait()
		var last error
		for _, err := range errs {
			if err != nil {
				last = err
				break
			}
		}
		if status, _, ok := throttledAnswer(last, "Throttled"); !ok || status != http.StatusTooManyRequests {
			t.Fatalf("publishes over the rate: %v (HTTP %d), want Throttled, 429", last, status)
		}
		sb := snsAs(s, keyB)
		tb, err := sb.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			if _, err := sb.Publish(ctx, &sns.PublishInput{TopicArn: tb.TopicArn, Message: aws.String("m")}); err != nil {
				t.Fatalf("account B, exempt, publish %d: %v", i, err)
			}
		}
	})

	t.Run("the SDK's retryer gets through", func(t *testing.T) {
		retrying := sqs.New(sqs.Options{BaseEndpoint: aws.String(s.URL), Region: "us-east-1", RetryMaxAttempts: 20,
			Credentials: a.Options().Credentials})
		q2, err := retrying.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-r")})
		if err != nil {
			t.Fatal(err)
		}
		const n = 16 // four seconds' worth at 4/s, sent at once
		before := throttledCount(t, s, "sqs")
		ids, errs := make([]string, n), make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				out, err := retrying.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q2.QueueUrl, MessageBody: aws.String(fmt.Sprint(i))})
				if errs[i] = err; err == nil {
					ids[i] = *out.MessageId
				}
			})
		}
		wg.Wait()
		sent := map[string]bool{}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("send %d through the SDK's retryer: %v", i, err)
			}
			sent[ids[i]] = true
		}
		got := map[string]bool{}
		for len(got) < n {
			out, err := retrying.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q2.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
			if err != nil {
				t.Fatalf("receive through the SDK's retryer: %v", err)
			}
			for _, m := range out.Messages {
				if !sent[*m.MessageId] {
					t.Fatalf("received %s, never sent", *m.MessageId)
				}
				got[*m.MessageId] = true
			}
		}
		if throttledCount(t, s, "sqs") == before {
			t.Error("no call was throttled meanwhile: the retryer was never put to the test")
		}
	})
}

// retrySDK retries f while it is throttled (the test's own setup calls).
func retrySDK[T any](ctx context.Context, f func() (T, error)) (T, error) {
	for {
		out, err := f()
		if _, _, throttled := throttledAnswer(err, "Throttled"); !throttled {
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// TestRateLimitsOnCacheAndWebSocketAndAdmin: the cache's HTTP API answers
// a request over its door's rate with 429, Retry-After and code
// "throttled"; a WebSocket publish over the ws door's rate gets an error
// frame "throttled" with retry_after_ms, and the connection stays; the
// admin API shows the rules and replaces them at run time, which lifts the
// limit at once.
func TestRateLimitsOnCacheAndWebSocketAndAdmin(t *testing.T) {
	s := startServer(t, "", "--limit", "cache=2/s:2", "--limit", "ws=2/s:2")
	word := "l" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	put := func() *http.Response {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json",
			strings.NewReader(fmt.Sprintf(`{"metadata":{"paths":[%q]},"body":"aGk="}`, word+".a")))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	var resp *http.Response
	for range 10 {
		if resp = put(); resp.StatusCode != http.StatusCreated {
			break
		}
	}
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("puts over 2/s: HTTP %d, want 429", resp.StatusCode)
	}
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 2 {
		t.Errorf("Retry-After %q, want 1 (whole seconds, rounded up)", resp.Header.Get("Retry-After"))
	}

	c := dialWS(t, s)
	var errFrame map[string]any
	for range 10 {
		id := c.request(map[string]any{"type": "publish", "message": map[string]any{"metadata": map[string]any{"paths": []string{word + ".w"}}, "body": "aGk="}})
		f := c.next(10*time.Second, func(f map[string]any) bool { return f["id"] == id })
		if f["type"] == "error" {
			errFrame = f
			break
		}
	}
	if errFrame == nil || errFrame["code"] != "throttled" || errFrame["retry_after_ms"] == nil {
		t.Fatalf("WebSocket publishes over 2/s: last answer %v, want an error frame throttled with retry_after_ms", errFrame)
	}
	id := c.request(map[string]any{"type": "ping"})
	c.next(10*time.Second, func(f map[string]any) bool { return f["id"] == id })

	admin := func(method string, body any) (int, map[string][]string) {
		status, rules, _ := adminLimits(t, s, method, body)
		return status, map[string][]string{"rules": rules}
	}
	if status, out := admin(http.MethodGet, nil); status != http.StatusOK || strings.Join(out["rules"], " ") != "cache=2/s:2 ws=2/s:2" {
		t.Fatalf("GET /v1/admin/limits: %d %v", status, out)
	}
	if status, _ := admin(http.MethodPut, map[string]any{"rules": []string{"cache=fast"}}); status != http.StatusBadRequest {
		t.Errorf("PUT of a malformed rule: HTTP %d, want 400", status)
	}
	if status, out := admin(http.MethodPut, map[string]any{"rules": []string{"cache=off"}}); status != http.StatusOK || strings.Join(out["rules"], " ") != "cache=off" {
		t.Fatalf("PUT /v1/admin/limits: %d %v", status, out)
	}
	for i := range 20 {
		if resp := put(); resp.StatusCode != http.StatusCreated {
			t.Fatalf("put %d after the limit was lifted: HTTP %d", i, resp.StatusCode)
		}
	}
}

// TestLimitsAdminIsTheOperatorsOnly: on the shared service, another
// account's key may neither see nor change the limits.
func TestLimitsAdminIsTheOperatorsOnly(t *testing.T) {
	s := startServer(t, "", limitedArgs()...)
	for _, tc := range []struct {
		key  string
		want int
	}{{keyB, http.StatusForbidden}, {keyD, http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/admin/limits", nil)
		resp, err := http.DefaultClient.Do(signedRequest(t, req, nil, tc.key, "herald"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET /v1/admin/limits as %s: HTTP %d, want %d", tc.key, resp.StatusCode, tc.want)
		}
	}
}

// TestBoto3RetriesThrottling runs e2e/python_limits (pytest, boto3)
// against Herald with account A limited: RequestThrottled (403) without
// retries, then boto3's three retry modes (legacy, its default; standard;
// adaptive) getting every SQS call through, and every SNS call (429).
func TestBoto3RetriesThrottling(t *testing.T) {
	python := pythonForTests(t)
	s := startServer(t, "", limitedArgs()...)
	dir, _ := filepath.Abs("python_limits")
	cmd := exec.Command(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", dir)
	cmd.Env = append(os.Environ(), "HERALD_URL="+s.URL, "HERALD_SECRET="+secret, "HERALD_KEY_ALICE="+keyA)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pytest with boto3 failed: %v\n%s", err, out)
	}
	if n := throttledCount(t, s, "sqs"); n == 0 {
		t.Error("the server throttled no SQS request: the retries were never put to the test")
	}
	t.Logf("boto3: %s", lastLine(string(out)))
}

// throttledCount is the server's herald_throttled_total for door.
func throttledCount(t *testing.T, s *server, door string) float64 {
	t.Helper()
	f := scrape(t, s)["herald_throttled_total"]
	if f == nil {
		t.Fatal("/metrics has no herald_throttled_total")
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "door" && l.GetValue() == door {
				return value(m)
			}
		}
	}
	return 0
}

// TestQuotasAtCreation: an account at its quota of queues gets OverLimit
// (403) for a new queue and its URL for one it holds; at its quota of
// topics, TopicLimitExceeded; at its quota of WebSockets on the node, a
// new connection is closed with 4010 and the next one, after one closed,
// is served. Another account's quotas are its own.
func TestQuotasAtCreation(t *testing.T) {
	s := startServer(t, "", append(sharedArgs(), "--limit", "queues=2", "--limit", "topics=1", "--limit", "subscriptions=2")...)
	ctx := ctxFor(t, time.Minute)
	a, b := sqsAs(s, keyA), sqsAs(s, keyB)
	for _, name := range []string{"q1", "q2"} {
		if _, err := a.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := a.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q3")})
	if status, _, ok := throttledAnswer(err, "OverLimit"); !ok || status != http.StatusForbidden {
		t.Fatalf("a third queue over a quota of 2: %v (HTTP %d), want OverLimit 403", err, status)
	}
	if _, err := a.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q2")}); err != nil {
		t.Errorf("creating a queue held already, at the quota: %v", err)
	}
	if _, err := b.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q3")}); err != nil {
		t.Errorf("another account's queue: %v", err)
	}

	sa := snsAs(s, keyA)
	if _, err := sa.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t1")}); err != nil {
		t.Fatal(err)
	}
	_, err = sa.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t2")})
	if status, _, ok := throttledAnswer(err, "TopicLimitExceeded"); !ok || status != http.StatusForbidden {
		t.Fatalf("a second topic over a quota of 1: %v (HTTP %d), want TopicLimitExceeded 403", err, status)
	}
	if _, err := sa.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t1")}); err != nil {
		t.Errorf("creating a topic held already, at the quota: %v", err)
	}
	// Subscriptions: two per topic.
	topicARN := "arn:aws:sns:us-east-1:" + acctA + ":t1"
	subscribe := func(queue string) error {
		_, err := sa.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topicARN), Protocol: aws.String("sqs"),
			Endpoint: aws.String("arn:aws:sqs:us-east-1:" + acctA + ":" + queue)})
		return err
	}
	for _, q := range []string{"q1", "q2"} {
		if err := subscribe(q); err != nil {
			t.Fatal(err)
		}
	}
	err = subscribe("q4")
	if status, _, ok := throttledAnswer(err, "SubscriptionLimitExceeded"); !ok || status != http.StatusForbidden {
		t.Fatalf("a third subscription over a quota of 2: %v (HTTP %d), want SubscriptionLimitExceeded 403", err, status)
	}
	if err := subscribe("q2"); err != nil {
		t.Errorf("subscribing a queue subscribed already, at the quota: %v", err)
	}

	// WebSockets, anonymous (a server without credentials): the default
	// account's.
	s = startServer(t, "", "--limit", "websockets=1", "--limit", "rollups=1")
	def := map[string]any{"event": map[string]any{"id": "id", "time": "time"}, "scopes": [][]string{{"channel"}},
		"metrics": []string{"plays"}, "periods": []map[string]any{{"unit": "day"}}}
	if st := call(t, s, http.MethodPut, "/v1/rollups/first", def, nil); st != http.StatusCreated {
		t.Fatalf("the first rollup: HTTP %d, want 201", st)
	}
	var refused struct{ Error struct{ Code string } }
	if st := call(t, s, http.MethodPut, "/v1/rollups/second", def, &refused); st != http.StatusForbidden || refused.Error.Code != "over_quota" {
		t.Fatalf("a second rollup over a quota of 1: HTTP %d %+v, want 403 over_quota", st, refused)
	}
	if st := call(t, s, http.MethodPut, "/v1/rollups/first", def, nil); st != http.StatusOK {
		t.Errorf("defining the rollup held again, at the quota: HTTP %d, want 200", st)
	}
	first := dialWS(t, s)
	id := first.request(map[string]any{"type": "ping"})
	first.next(10*time.Second, func(f map[string]any) bool { return f["id"] == id })
	second := dialWS(t, s)
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, _, err = second.conn.Read(rctx)
	cancel()
	if code := websocket.CloseStatus(err); code != 4010 {
		t.Fatalf("a second WebSocket over a quota of 1: %v, want close 4010", err)
	}
	first.conn.Close(websocket.StatusNormalClosure, "")
	for deadline := time.Now().Add(10 * time.Second); ; {
		third := dialWS(t, s)
		id := third.request(map[string]any{"type": "ping"})
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, b, err := third.conn.Read(rctx)
		cancel()
		if err == nil && strings.Contains(string(b), id) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the first WebSocket closed, a new one is still refused: %v", err)
		}
		third.conn.CloseNow()
		time.Sleep(50 * time.Millisecond) // the server frees the place when it sees the close
	}
}

// TestRateLimitsHoldAcrossNodes: two Herald nodes on one Cassandra and
// Redis, each with the rule sqs=20/s:20, flooded together for three
// seconds: they admit about 20 a second between them, not each (their
// buckets are kept in Redis), and both refuse with SQS's throttling.
func TestRateLimitsHoldAcrossNodes(t *testing.T) {
	requireCassandra(t)
	requireRedis(t)
	const rate, burst = 20, 20
	rule := fmt.Sprintf("sqs=%d/s:%d", rate, burst)
	a := cassandra.start(t, "", "--limit", rule)
	b := cassandra.start(t, "", "--limit", rule)
	ctx := ctxFor(t, time.Minute)
	clients := []*sqs.Client{sqsClient(a), sqsClient(b)}
	q, err := retrySDK(ctx, func() (*sqs.CreateQueueOutput, error) {
		return clients[0].CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("shared-limit-" + uuid.NewString()[:8])})
	})
	if err != nil {
		t.Fatal(err)
	}
	// The buckets hold at most the burst when the flood starts, whatever
	// the creation took from them: the bound below holds either way.
	var admitted, throttled [2]int
	var mu sync.Mutex
	var other error
	start := time.Now()
	var wg sync.WaitGroup
	for g := range 8 {
		node := g % 2
		wg.Go(func() {
			for time.Since(start) < 3*time.Second {
				_, err := clients[node].SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m")})
				mu.Lock()
				switch _, _, isThrottled := throttledAnswer(err, "RequestThrottled"); {
				case err == nil:
					admitted[node]++
				case isThrottled:
					throttled[node]++
				default:
					other = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if other != nil {
		t.Fatalf("a send failed with other than a throttling: %v", other)
	}
	total := admitted[0] + admitted[1]
	allowed := burst + rate*elapsed.Seconds()
	t.Logf("in %v: node A admitted %d and throttled %d, node B admitted %d and throttled %d; the cluster's rule allows %.0f",
		elapsed.Round(time.Millisecond), admitted[0], throttled[0], admitted[1], throttled[1], allowed)
	if float64(total) > allowed*1.1+2 {
		t.Errorf("the two nodes admitted %d, over the %.0f the rule allows the cluster (each node alone would allow %.0f)", total, allowed, allowed)
	}
	if float64(total) < rate*elapsed.Seconds()*0.6 {
		t.Errorf("the two nodes admitted %d, far under the rule's %.0f", total, allowed)
	}
	for i, n := range []*server{a, b} {
		if admitted[i] == 0 || throttled[i] == 0 {
			t.Errorf("node %d admitted %d and throttled %d: each should do both", i, admitted[i], throttled[i])
		}
		if errs := metricValue(t, n, "herald_limits_shared_errors_total"); errs != 0 {
			t.Errorf("node %d decided %v requests alone (Redis did not answer)", i, errs)
		}
	}
}

// adminLimits calls /v1/admin/limits of s (no credentials: a server that
// checks none) and returns the status, the rules and their source.
func adminLimits(t *testing.T, s *server, method string, body any) (status int, rules []string, source string) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, s.URL+"/v1/admin/limits", rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Rules  []string `json:"rules"`
		Source string   `json:"source"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil && resp.StatusCode == http.StatusOK {
		t.Fatalf("%s /v1/admin/limits: %v", method, err)
	}
	return resp.StatusCode, out.Rules, out.Source
}

// TestLimitsSetAtRunTimeReachEveryNode: rules PUT through one node of a
// Cassandra cluster are in force on the other within its sync interval,
// and DELETE takes both back to their configuration's; on the embedded
// engine, rules set at run time outlive a restart.
func TestLimitsSetAtRunTimeReachEveryNode(t *testing.T) {
	t.Run("embedded restart", func(t *testing.T) {
		dir := t.TempDir()
		s := startServer(t, dir, "--limit", "sqs=100/s")
		if status, rules, source := adminLimits(t, s, http.MethodPut, map[string]any{"rules": []string{"sqs=7/s"}}); status != http.StatusOK || strings.Join(rules, " ") != "sqs=7/s" || source != "admin" {
			t.Fatalf("PUT: HTTP %d %v from %q", status, rules, source)
		}
		s.stop(t)
		s = startServer(t, dir, "--limit", "sqs=100/s")
		if _, rules, source := adminLimits(t, s, http.MethodGet, nil); strings.Join(rules, " ") != "sqs=7/s" || source != "admin" {
			t.Errorf("after a restart: %v from %q, want the rules set at run time", rules, source)
		}
	})
	t.Run("two cassandra nodes", func(t *testing.T) {
		requireCassandra(t)
		requireRedis(t)
		a := cassandra.start(t, "", "--limit", "sqs=100/s")
		b := cassandra.start(t, "", "--limit", "sqs=100/s")
		inForce := func(s *server, want, wantSource string) {
			t.Helper()
			var rules []string
			var source string
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				if _, rules, source = adminLimits(t, s, http.MethodGet, nil); strings.Join(rules, " ") == want && source == wantSource {
					return
				}
			}
			t.Fatalf("node's rules: %v from %q, want %s from %s", rules, source, want, wantSource)
		}
		// The keyspace is the run's: whatever happens, forget the rules
		// set here before the next test's nodes read them.
		t.Cleanup(func() { adminLimits(t, a, http.MethodDelete, nil) })
		if status, _, _ := adminLimits(t, a, http.MethodPut, map[string]any{"rules": []string{"sqs=7/s", "sqs:orders=70/s"}}); status != http.StatusOK {
			t.Fatalf("PUT: HTTP %d", status)
		}
		inForce(b, "sqs=7/s sqs:orders=70/s", "admin")
		if status, _, _ := adminLimits(t, b, http.MethodDelete, nil); status != http.StatusOK {
			t.Fatalf("DELETE: HTTP %d", status)
		}
		inForce(a, "sqs=100/s", "configuration")
	})
}
