package snshttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
)

var (
	signerOnce sync.Once
	signer     *Signer
	signerErr  error
)

// testSigner is one generated Signer shared by the tests (RSA key
// generation is slow).
func testSigner(t testing.TB) *Signer {
	t.Helper()
	signerOnce.Do(func() { signer, signerErr = GenerateSigner() })
	if signerErr != nil {
		t.Fatal(signerErr)
	}
	return signer
}

// received is one request an endpoint got.
type received struct {
	header http.Header
	body   []byte
	method string
}

// endpoint is an httptest server recording requests and answering status.
type endpoint struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	status int
}

func newEndpoint(t testing.TB, status int) *endpoint {
	t.Helper()
	e := &endpoint{status: status}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.got = append(e.got, received{header: r.Header.Clone(), body: b, method: r.Method})
		st := e.status
		e.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *endpoint) requests() []received {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]received(nil), e.got...)
}

func newDeliverer(t testing.TB, cfg Config) *Deliverer {
	t.Helper()
	if cfg.Signer == nil {
		cfg.Signer = testSigner(t)
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "https://herald.example.com"
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

const (
	testTopic = "arn:aws:sns:us-east-1:000000000000:alerts"
	testSub   = testTopic + ":5f3a63a6-30bb-4a4b-8e0e-0a5f1c1f7a11"
)

func testNotification() sns.Notification {
	return sns.Notification{
		MessageID: "9a8b7c6d-0000-4000-8000-000000000001",
		TopicARN:  testTopic,
		Subject:   "Storm warning",
		Message:   "Wind \"100 km/h\" <north> & rain\nline 2\ttab ünïcødé \u2028 end",
		Timestamp: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC),
		MessageAttributes: map[string]sns.MessageAttributeValue{
			"severity": {DataType: "String", StringValue: "high"},
			"level":    {DataType: "Number", StringValue: "3"},
			"blob":     {DataType: "Binary", BinaryValue: []byte{0, 1, 2, 250}},
			"zones":    {DataType: "String.Array", StringValue: `["n","e"]`},
		},
	}
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
