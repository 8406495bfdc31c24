package sqsload

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/heraldmq/herald/awsauth"
)

// fakeSQS emulates the few SQS actions the load uses, in memory, and keeps
// every request it got so tests can check their shape. Its /metrics grows
// by residentPerQueue and heapPerQueue bytes per existing queue.
type fakeSQS struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	queues   map[string]*fakeQueue // by URL
	requests []fakeRequest
	nextID   int
	// failDeletes makes every DeleteMessageBatch report its last entry failed.
	failDeletes bool
	// noMetrics makes /metrics answer 404, as a server without it would.
	noMetrics bool
	// verifier, when set, checks every request's SigV4 signature.
	verifier *awsauth.Verifier
}

const (
	residentBase, residentPerQueue = 50 << 20, 1000
	heapBase, heapPerQueue         = 20 << 20, 600
)

type fakeRequest struct {
	Target, ContentType, Authorization string
	Host                               string // the address the request was sent to
	Body                               map[string]any
}

type fakeQueue struct {
	messages []*fakeMessage
}

type fakeMessage struct {
	id, handle, body string
	inFlight         bool
}

func newFakeSQS(t *testing.T) *fakeSQS {
	t.Helper()
	f := &fakeSQS{t: t, queues: map[string]*fakeQueue{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// secondDoor serves f's queues from another address too, as a second node
// of one cluster would, and returns its URL.
func (f *fakeSQS) secondDoor(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (f *fakeSQS) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/metrics" {
		if f.noMetrics {
			http.NotFound(w, r)
			return
		}
		f.mu.Lock()
		n := len(f.queues)
		f.mu.Unlock()
		fmt.Fprintf(w, "# HELP go_memstats_heap_inuse_bytes x\n# TYPE go_memstats_heap_inuse_bytes gauge\ngo_memstats_heap_inuse_bytes %g\n", float64(heapBase+heapPerQueue*n))
		fmt.Fprintf(w, "go_memstats_heap_inuse_bytes_total_lookalike 7\nprocess_resident_memory_bytes %e\n", float64(residentBase+residentPerQueue*n))
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.fail(w, 400, "SerializationException", "bad JSON: "+err.Error())
		return
	}
	if f.verifier != nil {
		if _, err := f.verifier.Verify(r, raw); err != nil {
			f.fail(w, 403, "SignatureDoesNotMatch", err.Error())
			return
		}
	}
	target := r.Header.Get("X-Amz-Target")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, fakeRequest{Target: target, Host: r.Host, ContentType: r.Header.Get("Content-Type"),
		Authorization: r.Header.Get("Authorization"), Body: body})
	action, ok := strings.CutPrefix(target, "AmazonSQS.")
	if !ok || r.URL.Path != "/" {
		f.fail(w, 400, "InvalidAction", "bad target or path")
		return
	}
	if action == "CreateQueue" {
		url := f.srv.URL + "/000000000000/" + body["QueueName"].(string)
		if f.queues[url] == nil {
			f.queues[url] = &fakeQueue{}
		}
		f.answer(w, map[string]any{"QueueUrl": url})
		return
	}
	q := f.queues[str(body["QueueUrl"])]
	if q == nil {
		f.fail(w, 400, "QueueDoesNotExist", "The specified queue does not exist.")
		return
	}
	switch action {
	case "DeleteQueue":
		delete(f.queues, str(body["QueueUrl"]))
		f.answer(w, map[string]any{})
	case "SendMessage":
		f.answer(w, map[string]any{"MessageId": q.add(f, str(body["MessageBody"])).id, "MD5OfMessageBody": "x"})
	case "SendMessageBatch":
		var ok []map[string]any
		for _, e := range body["Entries"].([]any) {
			e := e.(map[string]any)
			ok = append(ok, map[string]any{"Id": e["Id"], "MessageId": q.add(f, str(e["MessageBody"])).id, "MD5OfMessageBody": "x"})
		}
		f.answer(w, map[string]any{"Successful": ok, "Failed": []any{}})
	case "ReceiveMessage":
		limit := int(body["MaxNumberOfMessages"].(float64))
		visibility, hasVisibility := body["VisibilityTimeout"].(float64)
		var out []map[string]any
		for _, m := range q.messages {
			if len(out) == limit {
				break
			}
			if !m.inFlight {
				m.inFlight = !hasVisibility || visibility > 0
				out = append(out, map[string]any{"MessageId": m.id, "ReceiptHandle": m.handle, "Body": m.body, "MD5OfBody": "x"})
			}
		}
		f.answer(w, map[string]any{"Messages": out})
	case "DeleteMessage":
		q.remove(str(body["ReceiptHandle"]))
		f.answer(w, map[string]any{})
	case "DeleteMessageBatch":
		entries := body["Entries"].([]any)
		var ok, failed []map[string]any
		for i, e := range entries {
			e := e.(map[string]any)
			if f.failDeletes && i == len(entries)-1 {
				failed = append(failed, map[string]any{"Id": e["Id"], "Code": "ReceiptHandleIsInvalid", "Message": "no", "SenderFault": true})
				continue
			}
			q.remove(str(e["ReceiptHandle"]))
			ok = append(ok, map[string]any{"Id": e["Id"]})
		}
		f.answer(w, map[string]any{"Successful": ok, "Failed": failed})
	default:
		f.fail(w, 400, "InvalidAction", action)
	}
}

func (q *fakeQueue) add(f *fakeSQS, body string) *fakeMessage {
	f.nextID++
	m := &fakeMessage{id: fmt.Sprintf("m%d", f.nextID), handle: fmt.Sprintf("h\"%d\\/", f.nextID), body: body}
	q.messages = append(q.messages, m)
	return m
}

func (q *fakeQueue) remove(handle string) {
	q.messages = slices.DeleteFunc(q.messages, func(m *fakeMessage) bool { return m.handle == handle })
}

func str(v any) string { s, _ := v.(string); return s }

func (f *fakeSQS) answer(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", ContentType)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeSQS) fail(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.sqs#" + code, "message": message})
}

// requestsOf returns the requests of one action, in arrival order.
func (f *fakeSQS) requestsOf(action string) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeRequest
	for _, r := range f.requests {
		if r.Target == "AmazonSQS."+action {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeSQS) queueCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queues)
}

func (f *fakeSQS) messageCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, q := range f.queues {
		n += len(q.messages)
	}
	return n
}
