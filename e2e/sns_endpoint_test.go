package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns/snshttp"
)

// snsEndpoint is an HTTP subscriber as a real application would run one:
// it confirms subscriptions by fetching their SubscribeURL, checks every
// message's signature against the certificate at its SigningCertURL, and
// records what it got. failFirst makes it answer 500 to that many
// notifications before accepting, to exercise Herald's retries.
type snsEndpoint struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	failFirst int
	failed    int
	got       []snsEnvelope
	raw       []string
	bad       []string // why a delivery was refused (bad signature, ...)
	arrived   chan struct{}
}

// snsEnvelope is the JSON document SNS posts to HTTP subscribers.
type snsEnvelope struct {
	Type              string
	MessageID         string `json:"MessageId"`
	Token             string
	TopicARN          string `json:"TopicArn"`
	Subject           string
	Message           string
	Timestamp         string
	SignatureVersion  string
	Signature         string
	SigningCertURL    string `json:"SigningCertURL"`
	SubscribeURL      string `json:"SubscribeURL"`
	UnsubscribeURL    string `json:"UnsubscribeURL"`
	MessageAttributes map[string]struct{ Type, Value string }
}

func newSNSEndpoint(t *testing.T, failFirst int) *snsEndpoint {
	t.Helper()
	e := &snsEndpoint{t: t, failFirst: failFirst, arrived: make(chan struct{}, 1000)}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *snsEndpoint) URL() string { return e.srv.URL + "/hook" }

func (e *snsEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	kind := r.Header.Get("x-amz-sns-message-type")
	if kind == "" {
		e.record(func() { e.bad = append(e.bad, "no x-amz-sns-message-type header") })
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var env snsEnvelope
	if err := json.Unmarshal(body, &env); err != nil || env.Type != kind {
		// Raw message delivery: the body is the message itself.
		e.record(func() { e.raw = append(e.raw, string(body)) })
		e.arrived <- struct{}{}
		return
	}
	if err := verifySNS(body, env.SigningCertURL); err != nil {
		e.record(func() { e.bad = append(e.bad, "signature: "+err.Error()) })
		w.WriteHeader(http.StatusForbidden)
		return
	}
	switch env.Type {
	case "SubscriptionConfirmation":
		resp, err := http.Get(env.SubscribeURL)
		if err != nil || resp.StatusCode != http.StatusOK {
			e.record(func() { e.bad = append(e.bad, "confirming failed") })
		}
		if resp != nil {
			resp.Body.Close()
		}
	case "Notification":
		e.mu.Lock()
		if e.failed < e.failFirst {
			e.failed++
			e.mu.Unlock()
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		e.got = append(e.got, env)
		e.mu.Unlock()
		e.arrived <- struct{}{}
	}
}

func (e *snsEndpoint) record(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f()
}

// waitFor waits until n notifications (or raw messages) arrived.
func (e *snsEndpoint) waitFor(n int, within time.Duration) {
	e.t.Helper()
	deadline := time.After(within)
	for i := 0; i < n; i++ {
		select {
		case <-e.arrived:
		case <-deadline:
			e.mu.Lock()
			defer e.mu.Unlock()
			e.t.Fatalf("%d of %d deliveries arrived within %v (refused: %v)", i, n, within, e.bad)
		}
	}
}

func (e *snsEndpoint) notifications() []snsEnvelope {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]snsEnvelope(nil), e.got...)
}

// verifySNS checks a message's signature against the certificate Herald
// serves at its SigningCertURL, as a subscriber must.
func verifySNS(body []byte, certURL string) error {
	resp, err := http.Get(certURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	pem, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return snshttp.Verify(body, pem)
}
