package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/metrics"
)

// awsStub claims requests carrying X-Amz-Target or an Action parameter,
// the way awsapi.Handler does, and answers "aws".
type awsStub struct{}

func (awsStub) Accepts(r *http.Request) bool {
	return r.Header.Get("X-Amz-Target") != "" || r.URL.Query().Has("Action")
}

func (awsStub) ServeHTTP(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("aws")) }

// TestAWSRouting checks that Herald's routes always stay Herald's, that
// other paths go to the AWS handler when it accepts them, and that what it
// refuses gets Herald's JSON 404.
func TestAWSRouting(t *testing.T) {
	m := metrics.New()
	srv := httpapi.New(cache.NewService(metrics.InstrumentCacheStore(openStore(t), m), cache.DefaultConfig()), m, quietLog)
	srv.SetAWSHandler(awsStub{})
	cases := []struct {
		name, method, target, amzTarget string
		wantAWS                         bool
	}{
		{"json 1.0 to /", "POST", "/", "AmazonSQS.ListQueues", true},
		{"json 1.0 to a queue URL", "POST", "/000000000000/orders", "AmazonSQS.SendMessage", true},
		{"query GET", "GET", "/?Action=ListQueues", "", true},
		{"query to a queue URL", "GET", "/000000000000/orders?Action=ReceiveMessage", "", true},
		{"healthz with an AWS marker", "GET", "/healthz?Action=x", "", false},
		{"metrics", "GET", "/metrics", "", false},
		{"herald API with an AWS marker", "GET", "/v1/latest?Action=x", "AmazonSQS.ListQueues", false},
		{"unknown path without marker", "GET", "/nowhere", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.target, nil)
			if tc.amzTarget != "" {
				req.Header.Set("X-Amz-Target", tc.amzTarget)
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if got := rec.Body.String() == "aws"; got != tc.wantAWS {
				t.Fatalf("%s %s went to AWS = %v, want %v (status %d, body %s)", tc.method, tc.target, got, tc.wantAWS, rec.Code, rec.Body)
			}
		})
	}

	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `route="aws"`) {
		t.Fatalf("AWS requests are not measured under route aws")
	}
}

// TestAWSRoutingOff checks that without an AWS handler nothing changes.
func TestAWSRoutingOff(t *testing.T) {
	rec := serve(newHandler(openStore(t)), "GET", "/?Action=ListQueues", "")
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d, want Herald's 404", rec.Code)
	}
}
