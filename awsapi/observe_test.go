package awsapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type observation struct {
	service, action string
	status          int
}

// Every answered request is observed once, with its service, its action
// (or "unknown", so that labels stay bounded) and the status sent.
func TestObserveEveryRequest(t *testing.T) {
	var got []observation
	h := New(Config{SQS: &fakeAPI{}, SNS: NewSNSService(&fakeSNS{}, nil),
		Observe: func(service, action string, status int, elapsed time.Duration) {
			if elapsed <= 0 {
				t.Errorf("%s %s took %v", service, action, elapsed)
			}
			got = append(got, observation{service, action, status})
		}})
	cases := []struct {
		name string
		req  func() *http.Request
		want observation
	}{
		{"sqs json", func() *http.Request {
			r := httptest.NewRequest("POST", "/", strings.NewReader(`{}`))
			r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
			r.Header.Set("Content-Type", "application/x-amz-json-1.0")
			return r
		}, observation{"sqs", "ListQueues", 200}},
		{"sqs json, unknown action", func() *http.Request {
			r := httptest.NewRequest("POST", "/", strings.NewReader(`{}`))
			r.Header.Set("X-Amz-Target", "AmazonSQS.Nonsense")
			r.Header.Set("Content-Type", "application/x-amz-json-1.0")
			return r
		}, observation{"sqs", "unknown", 400}},
		{"sqs query", func() *http.Request {
			return httptest.NewRequest("GET", "/?Action=ListQueues", nil)
		}, observation{"sqs", "ListQueues", 200}},
		{"sns query", func() *http.Request {
			return httptest.NewRequest("GET", "/?Action=ListTopics", nil)
		}, observation{"sns", "ListTopics", 200}},
		{"sqs query, bad parameter", func() *http.Request {
			return httptest.NewRequest("GET", "/?Action=ListQueues&MaxResults=many", nil)
		}, observation{"sqs", "ListQueues", 400}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			w := httptest.NewRecorder()
			h.ServeHTTP(w, tc.req())
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("observed %+v (response %d %s), want exactly %+v", got, w.Code, w.Body.String(), tc.want)
			}
		})
	}
}
