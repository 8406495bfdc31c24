package snsload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/awsauth"
)

// fakeServer emulates the SNS Query actions and the SQS JSON actions the
// load uses, and fans publishes out itself: to its HTTP subscribers by POST
// (after they confirmed), to its queue subscribers by appending to the
// queue. It keeps every API request so tests can check their shape.
type fakeServer struct {
	t   *testing.T
	srv *httptest.Server
	out *http.Client // delivers to subscribers

	mu       sync.Mutex
	requests []fakeRequest
	topics   map[string]bool       // ARN → exists
	subs     []*fakeSub            // in subscription order
	queues   map[string]*fakeQueue // by name
	deleted  map[string]int        // action → count of successful deletes
	wg       sync.WaitGroup        // deliveries in flight

	// Behaviours a test can switch on before the run.
	verifier     *awsauth.Verifier
	envelope     bool          // deliver in the JSON envelope even when raw was asked for
	tokenOnly    bool          // send confirmations without a SubscribeURL
	neverConfirm bool          // send no confirmations at all
	drop         map[int]bool  // subscriber index (subscription order) → its deliveries are dropped
	duplicate    map[int]bool  // subscriber index → each delivery is sent twice
	queueDelay   time.Duration // how long after a publish the queues get the message
}

type fakeRequest struct {
	Action  string // the SNS Action, or the SQS X-Amz-Target's action
	Form    url.Values
	JSON    map[string]any
	Service string // signed for, when the verifier is on
}

type fakeSub struct {
	protocol, endpoint, token string
	raw, confirmed            bool
}

type fakeQueue struct {
	messages []string
}

const fakeAccount = "000000000000"

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, topics: map[string]bool{}, queues: map[string]*fakeQueue{}, deleted: map[string]int{},
		drop: map[int]bool{}, duplicate: map[int]bool{}, out: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.wg.Wait()
		f.srv.Close()
	})
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		f.confirmByURL(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	req := fakeRequest{}
	if f.verifier != nil {
		id, err := f.verifier.Verify(r, raw)
		if err != nil {
			f.snsError(w, 403, "SignatureDoesNotMatch", err.Error())
			return
		}
		req.Service = id.Service
	}
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		req.Action = strings.TrimPrefix(target, "AmazonSQS.")
		if err := json.Unmarshal(raw, &req.JSON); err != nil {
			http.Error(w, `{"__type":"SerializationException"}`, 400)
			return
		}
		f.record(req)
		f.serveSQS(w, req)
		return
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil || form.Get("Version") != APIVersion {
		f.snsError(w, 400, "InvalidParameter", "bad form or version")
		return
	}
	req.Action, req.Form = form.Get("Action"), form
	f.record(req)
	f.serveSNS(w, req)
}

func (f *fakeServer) record(r fakeRequest) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.mu.Unlock()
}

func (f *fakeServer) snsError(w http.ResponseWriter, status int, code, message string) {
	w.WriteHeader(status)
	fmt.Fprintf(w, `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>r</RequestId></ErrorResponse>`, code, message)
}

func (f *fakeServer) topicARN(name string) string {
	return "arn:aws:sns:us-east-1:" + fakeAccount + ":" + name
}

func (f *fakeServer) serveSNS(w http.ResponseWriter, r fakeRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	topic := r.Form.Get("TopicArn")
	if r.Action != ActionCreateTopic && !f.topics[topic] {
		f.snsError(w, 404, "NotFound", "Topic does not exist")
		return
	}
	switch r.Action {
	case ActionCreateTopic:
		arn := f.topicARN(r.Form.Get("Name"))
		f.topics[arn] = true
		fmt.Fprintf(w, `<CreateTopicResponse><CreateTopicResult><TopicArn>%s</TopicArn></CreateTopicResult></CreateTopicResponse>`, arn)
	case ActionSubscribe:
		s := &fakeSub{protocol: r.Form.Get("Protocol"), endpoint: r.Form.Get("Endpoint"), token: fmt.Sprintf("tok%d", len(f.subs)),
			raw: r.Form.Get("Attributes.entry.1.key") == "RawMessageDelivery" && r.Form.Get("Attributes.entry.1.value") == "true"}
		s.confirmed = s.protocol == "sqs"
		f.subs = append(f.subs, s)
		if s.protocol == "http" && !f.neverConfirm {
			doc := map[string]string{"Type": "SubscriptionConfirmation", "Token": s.token, "TopicArn": topic}
			if !f.tokenOnly {
				doc["SubscribeURL"] = f.srv.URL + "/?" + url.Values{"Action": {ActionConfirmSubscription}, "TopicArn": {topic}, "Token": {s.token}}.Encode()
			}
			body, _ := json.Marshal(doc)
			f.deliver(s.endpoint, "SubscriptionConfirmation", body)
		}
		fmt.Fprintf(w, `<SubscribeResponse><SubscribeResult><SubscriptionArn>%s:%d</SubscriptionArn></SubscribeResult></SubscribeResponse>`, topic, len(f.subs))
	case ActionConfirmSubscription:
		if !f.confirm(r.Form.Get("Token")) {
			f.snsError(w, 400, "InvalidParameter", "bad token")
			return
		}
		fmt.Fprint(w, `<ConfirmSubscriptionResponse><ConfirmSubscriptionResult><SubscriptionArn>x</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>`)
	case ActionPublish:
		f.publish(topic, r.Form.Get("Message"))
		fmt.Fprint(w, `<PublishResponse><PublishResult><MessageId>m</MessageId></PublishResult></PublishResponse>`)
	case ActionDeleteTopic:
		delete(f.topics, topic)
		f.deleted[ActionDeleteTopic]++
		fmt.Fprint(w, `<DeleteTopicResponse/>`)
	default:
		f.snsError(w, 400, "InvalidAction", r.Action)
	}
}

// confirmByURL serves a SubscribeURL.
func (f *fakeServer) confirmByURL(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	ok := q.Get("Action") == ActionConfirmSubscription && f.topics[q.Get("TopicArn")] && f.confirm(q.Get("Token"))
	f.mu.Unlock()
	if !ok {
		f.snsError(w, 400, "InvalidParameter", "bad confirmation")
		return
	}
	fmt.Fprint(w, `<ConfirmSubscriptionResponse/>`)
}

// confirm marks the subscription of token confirmed; f.mu is held.
func (f *fakeServer) confirm(token string) bool {
	for _, s := range f.subs {
		if s.token == token {
			s.confirmed = true
			return true
		}
	}
	return false
}

// publish fans message out; f.mu is held.
func (f *fakeServer) publish(topic, message string) {
	envelope, _ := json.Marshal(map[string]string{"Type": "Notification", "TopicArn": topic, "Message": message})
	for i, s := range f.subs {
		if !s.confirmed || f.drop[i] {
			continue
		}
		if s.protocol == "sqs" {
			q := f.queues[s.endpoint[strings.LastIndexByte(s.endpoint, ':')+1:]]
			if q == nil {
				continue
			}
			f.wg.Add(1)
			time.AfterFunc(f.queueDelay, func() {
				defer f.wg.Done()
				f.mu.Lock()
				q.messages = append(q.messages, message)
				f.mu.Unlock()
			})
			continue
		}
		body := []byte(message)
		if f.envelope || !s.raw {
			body = envelope
		}
		f.deliver(s.endpoint, "Notification", body)
		if f.duplicate[i] {
			f.deliver(s.endpoint, "Notification", body)
		}
	}
}

// deliver POSTs body to an HTTP endpoint in the background.
func (f *fakeServer) deliver(endpoint, kind string, body []byte) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		req, _ := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
		req.Header.Set("x-amz-sns-message-type", kind)
		req.Header.Set("Content-Type", "text/plain; charset=UTF-8")
		resp, err := f.out.Do(req)
		if err != nil {
			return // the endpoints may be gone at the end of a run
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
}

func (f *fakeServer) serveSQS(w http.ResponseWriter, r fakeRequest) {
	queueURL, _ := r.JSON["QueueUrl"].(string)
	name := queueURL[strings.LastIndexByte(queueURL, '/')+1:]
	f.mu.Lock()
	q := f.queues[name]
	if r.Action == "ReceiveMessage" && q != nil && len(q.messages) == 0 {
		// A short long poll: enough for the tests' delayed fan-out.
		f.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		f.mu.Lock()
	}
	defer f.mu.Unlock()
	if r.Action != "CreateQueue" && q == nil {
		http.Error(w, `{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"no queue"}`, 400)
		return
	}
	switch r.Action {
	case "CreateQueue":
		name := r.JSON["QueueName"].(string)
		if f.queues[name] == nil {
			f.queues[name] = &fakeQueue{}
		}
		json.NewEncoder(w).Encode(map[string]string{"QueueUrl": f.srv.URL + "/" + fakeAccount + "/" + name})
	case "GetQueueAttributes":
		json.NewEncoder(w).Encode(map[string]any{"Attributes": map[string]string{"QueueArn": "arn:aws:sqs:us-east-1:" + fakeAccount + ":" + name}})
	case "ReceiveMessage":
		var msgs []map[string]string
		if len(q.messages) > 0 {
			msgs = append(msgs, map[string]string{"MessageId": "m", "ReceiptHandle": "h", "Body": q.messages[0]})
			q.messages = q.messages[1:]
		}
		json.NewEncoder(w).Encode(map[string]any{"Messages": msgs})
	case "DeleteQueue":
		delete(f.queues, name)
		f.deleted["DeleteQueue"]++
		io.WriteString(w, "{}")
	default:
		http.Error(w, `{"__type":"InvalidAction"}`, 400)
	}
}

// actions lists the recorded requests' actions with their counts.
func (f *fakeServer) count(action string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r.Action == action {
			n++
		}
	}
	return n
}

// requestsOf returns the recorded requests of action.
func (f *fakeServer) requestsOf(action string) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeRequest
	for _, r := range f.requests {
		if r.Action == action {
			out = append(out, r)
		}
	}
	return out
}

// testConfig is a small, fast configuration against f.
func testConfig(f *fakeServer, subscribers int) Config {
	return Config{Server: f.srv.URL, Subscribers: subscribers, Listeners: 3, Concurrency: 4, Duration: 200 * time.Millisecond,
		Rate: 100, MessageSize: 64, Drain: 3 * time.Second, Timeout: 5 * time.Second, Wait: 1}
}
