package snshttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("envelope is not JSON: %v\n%s", err, b)
	}
	return m
}

func TestDeliverNotification(t *testing.T) {
	for _, version := range []string{"", "1", "2"} {
		t.Run("version "+version, func(t *testing.T) {
			ep := newEndpoint(t, 200)
			d := newDeliverer(t, Config{})
			n := testNotification()
			target := Target{SubscriptionARN: testSub, Endpoint: ep.URL + "/hook?x=1", SignatureVersion: version}
			if err := d.Deliver(context.Background(), target, n); err != nil {
				t.Fatal(err)
			}
			reqs := ep.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			wantHeaders := map[string]string{
				"X-Amz-Sns-Message-Type":     "Notification",
				"X-Amz-Sns-Message-Id":       n.MessageID,
				"X-Amz-Sns-Topic-Arn":        testTopic,
				"X-Amz-Sns-Subscription-Arn": testSub,
				"Content-Type":               "text/plain; charset=UTF-8",
				"User-Agent":                 "Amazon Simple Notification Service Agent",
			}
			for k, v := range wantHeaders {
				if got := r.header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if r.method != http.MethodPost || r.header.Get("X-Amz-Sns-Rawdelivery") != "" {
				t.Errorf("method %s, rawdelivery %q", r.method, r.header.Get("X-Amz-Sns-Rawdelivery"))
			}
			m := decode(t, r.body)
			wantVersion := version
			if wantVersion == "" {
				wantVersion = "1"
			}
			want := map[string]string{
				"Type":             "Notification",
				"MessageId":        n.MessageID,
				"TopicArn":         testTopic,
				"Subject":          n.Subject,
				"Message":          n.Message,
				"Timestamp":        "2026-11-30T08:00:00.000Z",
				"SignatureVersion": wantVersion,
				"SigningCertURL":   "https://herald.example.com/SimpleNotificationService-herald.pem",
				"UnsubscribeURL":   "https://herald.example.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:000000000000:alerts:5f3a63a6-30bb-4a4b-8e0e-0a5f1c1f7a11",
			}
			for k, v := range want {
				if m[k] != v {
					t.Errorf("%s = %#v, want %q", k, m[k], v)
				}
			}
			attrs, _ := m["MessageAttributes"].(map[string]any)
			wantAttrs := map[string][2]string{
				"severity": {"String", "high"},
				"level":    {"Number", "3"},
				"blob":     {"Binary", "AAEC+g=="},
				"zones":    {"String.Array", `["n","e"]`},
			}
			if len(attrs) != len(wantAttrs) {
				t.Fatalf("MessageAttributes = %v", m["MessageAttributes"])
			}
			for k, v := range wantAttrs {
				a, _ := attrs[k].(map[string]any)
				if a["Type"] != v[0] || a["Value"] != v[1] || len(a) != 2 {
					t.Errorf("attribute %s = %v, want Type %s Value %s", k, a, v[0], v[1])
				}
			}
			// <, > and & are written as is, as AWS does.
			if !strings.Contains(string(r.body), `<north> & rain`) {
				t.Errorf("body escapes HTML characters:\n%s", r.body)
			}
			if err := Verify(r.body, d.Signer().CertPEM()); err != nil {
				t.Fatalf("Verify: %v\n%s", err, r.body)
			}
			assertTamperFails(t, r.body, d.Signer().CertPEM(),
				[]string{"Message", "MessageId", "Subject", "Timestamp", "TopicArn", "SignatureVersion"})
		})
	}
}

var (
	otherOnce   sync.Once
	otherSigner *Signer
)

// assertTamperFails changes each field in turn and expects Verify to fail.
func assertTamperFails(t *testing.T, body, certPEM []byte, fields []string) {
	t.Helper()
	for _, f := range fields {
		m := decode(t, body)
		switch f {
		case "SignatureVersion":
			if m[f] == "1" {
				m[f] = "2"
			} else {
				m[f] = "1"
			}
		case "Subject":
			if _, ok := m[f]; ok {
				delete(m, f)
			} else {
				m[f] = "added"
			}
		default:
			m[f] = m[f].(string) + "x"
		}
		b, _ := json.Marshal(m)
		if err := Verify(b, certPEM); err == nil {
			t.Errorf("Verify accepted an envelope with %s changed", f)
		}
	}
	// A signature by another key fails too.
	otherOnce.Do(func() { otherSigner, _ = GenerateSigner() })
	other := otherSigner
	if other == nil {
		t.Fatal("no second signer")
	}
	if err := Verify(body, other.CertPEM()); err == nil {
		t.Error("Verify accepted the envelope with another certificate")
	}
}

func TestDeliverWithoutSubjectOrAttributes(t *testing.T) {
	ep := newEndpoint(t, 204)
	d := newDeliverer(t, Config{})
	n := testNotification()
	n.Subject, n.MessageAttributes = "", nil
	if err := d.Deliver(context.Background(), Target{SubscriptionARN: testSub, Endpoint: ep.URL, SignatureVersion: "2"}, n); err != nil {
		t.Fatal(err)
	}
	body := ep.requests()[0].body
	m := decode(t, body)
	if _, ok := m["Subject"]; ok {
		t.Error("Subject present though not set")
	}
	if _, ok := m["MessageAttributes"]; ok {
		t.Error("MessageAttributes present though empty")
	}
	if err := Verify(body, d.Signer().CertPEM()); err != nil {
		t.Fatal(err)
	}
	assertTamperFails(t, body, d.Signer().CertPEM(), []string{"Subject", "Message"})
}

func TestInvalidUTF8IsSignedAsSent(t *testing.T) {
	ep := newEndpoint(t, 200)
	d := newDeliverer(t, Config{})
	n := testNotification()
	n.Message = "bad \xff\xfe bytes \xc3"
	if err := d.Deliver(context.Background(), Target{SubscriptionARN: testSub, Endpoint: ep.URL}, n); err != nil {
		t.Fatal(err)
	}
	body := ep.requests()[0].body
	if m := decode(t, body); m["Message"] != "bad \uFFFD bytes \uFFFD" {
		t.Errorf("Message = %q", m["Message"])
	}
	if err := Verify(body, d.Signer().CertPEM()); err != nil {
		t.Fatal(err)
	}
}

func TestConfirmations(t *testing.T) {
	tests := []struct {
		typ  string
		send func(d *Deliverer, t Target) error
	}{
		{TypeSubscriptionConfirmation, func(d *Deliverer, t Target) error {
			return d.SendConfirmation(context.Background(), t, "tok123", "")
		}},
		{TypeUnsubscribeConfirmation, func(d *Deliverer, t Target) error {
			return d.SendUnsubscribeConfirmation(context.Background(), t, "tok123", "https://other.example/?Action=ConfirmSubscription")
		}},
	}
	for _, tt := range tests {
		for _, version := range []string{"1", "2"} {
			t.Run(tt.typ+" v"+version, func(t *testing.T) {
				ep := newEndpoint(t, 200)
				d := newDeliverer(t, Config{})
				if err := tt.send(d, Target{SubscriptionARN: testSub, Endpoint: ep.URL, SignatureVersion: version}); err != nil {
					t.Fatal(err)
				}
				r := ep.requests()[0]
				m := decode(t, r.body)
				if m["Type"] != tt.typ || m["Token"] != "tok123" || m["TopicArn"] != testTopic || m["SignatureVersion"] != version {
					t.Errorf("envelope %v", m)
				}
				wantURL := "https://herald.example.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-east-1:000000000000:alerts&Token=tok123"
				if tt.typ == TypeUnsubscribeConfirmation {
					wantURL = "https://other.example/?Action=ConfirmSubscription"
				}
				if m["SubscribeURL"] != wantURL {
					t.Errorf("SubscribeURL = %v, want %s", m["SubscribeURL"], wantURL)
				}
				msg, _ := m["Message"].(string)
				id, _ := m["MessageId"].(string)
				ts, _ := m["Timestamp"].(string)
				if msg == "" || len(id) != 36 || !strings.HasSuffix(ts, "Z") || len(ts) != len(TimestampLayout) {
					t.Errorf("Message %q MessageId %q Timestamp %q", msg, id, ts)
				}
				for _, k := range []string{"UnsubscribeURL", "Subject", "MessageAttributes"} {
					if _, ok := m[k]; ok {
						t.Errorf("%s present in a confirmation", k)
					}
				}
				if r.header.Get("X-Amz-Sns-Message-Type") != tt.typ || r.header.Get("X-Amz-Sns-Message-Id") != id ||
					r.header.Get("X-Amz-Sns-Topic-Arn") != testTopic {
					t.Errorf("headers %v", r.header)
				}
				wantSubHeader := ""
				if tt.typ == TypeUnsubscribeConfirmation {
					wantSubHeader = testSub
				}
				if got := r.header.Get("X-Amz-Sns-Subscription-Arn"); got != wantSubHeader {
					t.Errorf("subscription header %q, want %q", got, wantSubHeader)
				}
				if err := Verify(r.body, d.Signer().CertPEM()); err != nil {
					t.Fatal(err)
				}
				assertTamperFails(t, r.body, d.Signer().CertPEM(),
					[]string{"Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"})
			})
		}
	}
}

func TestRawDelivery(t *testing.T) {
	ep := newEndpoint(t, 200)
	d := newDeliverer(t, Config{})
	n := testNotification()
	target := Target{SubscriptionARN: testSub, Endpoint: ep.URL, Raw: true, ContentType: "application/json"}
	if err := d.Deliver(context.Background(), target, n); err != nil {
		t.Fatal(err)
	}
	r := ep.requests()[0]
	if string(r.body) != n.Message {
		t.Errorf("body %q, want the message", r.body)
	}
	if r.header.Get("X-Amz-Sns-Rawdelivery") != "true" || r.header.Get("Content-Type") != "application/json" ||
		r.header.Get("X-Amz-Sns-Subscription-Arn") != testSub || r.header.Get("X-Amz-Sns-Message-Type") != "Notification" {
		t.Errorf("headers %v", r.header)
	}
}

func TestStatusClassification(t *testing.T) {
	// A redirect target that must never be reached.
	var hit atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit.Store(true) }))
	t.Cleanup(other.Close)

	tests := []struct {
		status   int
		retry429 bool
		want     Outcome
	}{
		{200, false, Delivered}, {201, false, Delivered}, {204, false, Delivered},
		{301, false, Failed}, {302, false, Failed}, {307, false, Failed},
		{400, false, Rejected}, {403, false, Rejected}, {404, false, Rejected},
		{429, false, Rejected}, {429, true, Failed},
		{500, false, Failed}, {502, false, Failed}, {503, false, Failed}, {504, false, Failed},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tt.status >= 300 && tt.status < 400 {
				http.Redirect(w, r, other.URL, tt.status)
				return
			}
			w.WriteHeader(tt.status)
		}))
		d := newDeliverer(t, Config{Retry429: tt.retry429})
		err := d.Deliver(context.Background(), Target{SubscriptionARN: testSub, Endpoint: srv.URL}, testNotification())
		srv.Close()
		got := Delivered
		var de *DeliveryError
		if errors.As(err, &de) {
			got = de.Outcome
			if de.Status != tt.status {
				t.Errorf("%d: DeliveryError.Status = %d", tt.status, de.Status)
			}
		} else if err != nil {
			t.Fatalf("%d: %v", tt.status, err)
		}
		if got != tt.want || IsRetryable(err) != (tt.want == Failed) {
			t.Errorf("status %d (retry429 %v): %v, retryable %v; want %v", tt.status, tt.retry429, got, IsRetryable(err), tt.want)
		}
		if Classify(tt.status) != tt.want && !(tt.status == 429 && tt.retry429) {
			t.Errorf("Classify(%d) = %v", tt.status, Classify(tt.status))
		}
	}
	if hit.Load() {
		t.Error("a redirect was followed")
	}
}

func TestTransportFailures(t *testing.T) {
	d := newDeliverer(t, Config{Timeout: 200 * time.Millisecond})
	ctx := context.Background()

	// Nothing listens: Failed.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	if err := d.Deliver(ctx, Target{Endpoint: deadURL}, testNotification()); !IsRetryable(err) {
		t.Errorf("connection refused: %v, want a retryable error", err)
	}

	// Too slow: Failed after the timeout.
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	start := time.Now()
	err := d.Deliver(ctx, Target{Endpoint: slow.URL}, testNotification())
	var de *DeliveryError
	if !errors.As(err, &de) || de.Outcome != Failed || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow endpoint: %v, want Failed with a deadline", err)
	}
	if el := time.Since(start); el < 200*time.Millisecond || el > 2*time.Second {
		t.Errorf("slow endpoint gave up after %v, want about 200ms", el)
	}

	// The caller's context ends: its error, not the endpoint's.
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := d.Deliver(cctx, Target{Endpoint: slow.URL}, testNotification()); !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &de) {
		t.Errorf("cancelled: %v, want the context's error", err)
	}

	// Unusable URLs: Rejected.
	for _, u := range []string{"ftp://x/y", "not a url", "http://", "://x"} {
		if err := d.Deliver(ctx, Target{Endpoint: u}, testNotification()); !errors.As(err, &de) || de.Outcome != Rejected {
			t.Errorf("endpoint %q: %v, want Rejected", u, err)
		}
	}
}

// A hanging host gets at most MaxPerHost requests; deliveries to another
// host go on at full speed meanwhile, and further attempts on the hanging
// host fail fast with ErrHostBusy.
func TestPerHostBound(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	inHang := 0
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inHang++
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	fast := newEndpoint(t, 200)
	d := newDeliverer(t, Config{MaxConcurrent: 8, MaxPerHost: 2, HostWait: 100 * time.Millisecond, Timeout: 10 * time.Second})

	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- d.Deliver(ctx, Target{Endpoint: hang.URL}, testNotification())
		}()
	}
	// The four beyond MaxPerHost fail with ErrHostBusy after HostWait.
	busy := 0
	deadline := time.After(3 * time.Second)
	for busy < 4 {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrHostBusy) || !IsRetryable(err) {
				t.Fatalf("hanging host: %v, want ErrHostBusy", err)
			}
			busy++
		case <-deadline:
			t.Fatalf("only %d attempts failed with ErrHostBusy", busy)
		}
	}

	start := time.Now()
	var fwg sync.WaitGroup
	for range 100 {
		fwg.Add(1)
		go func() {
			defer fwg.Done()
			if err := d.Deliver(ctx, Target{Endpoint: fast.URL}, testNotification()); err != nil {
				t.Error(err)
			}
		}()
	}
	fwg.Wait()
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("100 deliveries to the fast host took %v while another host hangs", el)
	}
	if n := len(fast.requests()); n != 100 {
		t.Errorf("fast host got %d requests", n)
	}
	mu.Lock()
	if inHang != 2 {
		t.Errorf("hanging host got %d requests, want MaxPerHost = 2", inHang)
	}
	mu.Unlock()
	close(release)
	wg.Wait()
	if n := d.hosts.inFlight("http://" + strings.TrimPrefix(hang.URL, "http://")); n != 0 {
		t.Errorf("%d slots of the hanging host still held", n)
	}
}
