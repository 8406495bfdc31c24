package client

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// adminServer answers the admin API's paths and records each request's
// path, query and Authorization header.
func adminServer(t *testing.T) (*httptest.Server, *[]string) {
	t.Helper()
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/v1/admin/queues":
			w.Write([]byte(`{"queues": [{"name": "jobs", "fifo": false, "visible": 3, "in_flight": 2, "delayed": 1, "dead_letter_target": "arn:dlq", "attributes": {"VisibilityTimeout": "30"}}], "truncated": true}`))
		case "/v1/admin/topics":
			w.Write([]byte(`{"topics": [{"arn": "arn:t", "name": "t", "attributes": {}, "subscriptions": [{"SubscriptionARN": "PendingConfirmation", "Protocol": "http", "Endpoint": "http://e"}]}], "truncated": false}`))
		case "/v1/admin/sqs/reindex":
			w.Write([]byte(`{"epoch": 1800000000000}`))
		case "/v1/admin/dc", "/v1/admin/dc/fence", "/v1/admin/dc/unfence":
			body, _ := io.ReadAll(r.Body)
			seen = append(seen, "body "+string(body))
			w.Write([]byte(`{"local": "dc2", "legacy_home": "dc1", "fenced": {"dc1": "dc2"}}`))
		case "/v1/admin/queues/a b/peek":
			w.Write([]byte(`{"messages": [{"message_id": "m", "body": "/wA=", "body_encoding": "base64", "sent": "2026-01-02T03:04:05Z", "receive_count": 4, "visible_at": "2026-01-02T03:04:05Z", "group": "g"}]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error": {"code": "not_found", "message": "QueueDoesNotExist: no queue"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestAdminCalls(t *testing.T) {
	srv, seen := adminServer(t)
	c := New(srv.URL, &http.Client{Transport: BearerTransport{Token: "tok"}})
	ctx := t.Context()

	qs, err := c.Queues(ctx)
	if err != nil || !qs.Truncated || len(qs.Queues) != 1 {
		t.Fatalf("Queues = %+v, %v", qs, err)
	}
	if q := qs.Queues[0]; q.Name != "jobs" || q.Visible != 3 || q.InFlight != 2 || q.Delayed != 1 || q.DeadLetterTarget != "arn:dlq" || q.Attributes["VisibilityTimeout"] != "30" {
		t.Errorf("queue %+v", q)
	}
	ts, err := c.Topics(ctx)
	if err != nil || len(ts.Topics) != 1 || len(ts.Topics[0].Subscriptions) != 1 || !ts.Topics[0].Subscriptions[0].Pending() {
		t.Fatalf("Topics = %+v, %v", ts, err)
	}
	if r, err := c.Reindex(ctx); err != nil || r.Epoch != 1800000000000 {
		t.Fatalf("Reindex = %+v, %v", r, err)
	}
	for _, call := range []func() (DataCenters, error){
		func() (DataCenters, error) { return c.DataCenters(ctx) },
		func() (DataCenters, error) { return c.FenceDC(ctx, "dc1") },
		func() (DataCenters, error) { return c.UnfenceDC(ctx, "dc1") },
	} {
		if d, err := call(); err != nil || d.Local != "dc2" || d.LegacyHome != "dc1" || d.Fenced["dc1"] != "dc2" {
			t.Fatalf("data centers = %+v, %v", d, err)
		}
	}
	p, err := c.Peek(ctx, "a b", 5)
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("Peek = %+v, %v", p, err)
	}
	if m := p.Messages[0]; m.MessageID != "m" || m.BodyEncoding != "base64" || m.ReceiveCount != 4 || m.GroupID != "g" || m.SentAt.Year() != 2026 {
		t.Errorf("peeked %+v", m)
	}
	if _, err := c.Peek(ctx, "a b", 0); err != nil {
		t.Fatal(err)
	}
	_, err = c.Peek(ctx, "missing", 0)
	var e *Error
	if !errors.As(err, &e) || e.Status != 404 || e.Code != "not_found" {
		t.Errorf("Peek of a missing queue: %v", err)
	}

	want := []string{
		"GET /v1/admin/queues Bearer tok",
		"GET /v1/admin/topics Bearer tok",
		"POST /v1/admin/sqs/reindex Bearer tok",
		"GET /v1/admin/dc Bearer tok", "body ",
		"POST /v1/admin/dc/fence Bearer tok", `body {"dc":"dc1"}`,
		"POST /v1/admin/dc/unfence Bearer tok", `body {"dc":"dc1"}`,
		"GET /v1/admin/queues/a%20b/peek?limit=5 Bearer tok",
		"GET /v1/admin/queues/a%20b/peek Bearer tok",
		"GET /v1/admin/queues/missing/peek Bearer tok",
	}
	got, _ := json.Marshal(*seen)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("requests %s\nwant %s", got, wantJSON)
	}
}
