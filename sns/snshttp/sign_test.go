package snshttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

func TestLoadOrCreateSigner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	s1, err := LoadOrCreateSigner(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v", err, fi.Mode())
	}
	s2, err := LoadOrCreateSigner(dir)
	if err != nil {
		t.Fatal(err)
	}
	if string(s1.CertPEM()) != string(s2.CertPEM()) {
		t.Fatal("the reloaded signer has another certificate")
	}
	sig, err := s2.Sign("2", "x")
	if err != nil {
		t.Fatal(err)
	}
	if sig1, _ := s1.Sign("2", "x"); sig1 != sig {
		t.Fatal("the reloaded signer signs differently")
	}

	os.Remove(filepath.Join(dir, CertFile))
	if _, err := LoadOrCreateSigner(dir); err == nil {
		t.Fatal("a key without its certificate was accepted")
	}
}

func TestNewSignerErrors(t *testing.T) {
	a, b := testSigner(t), mustGenerate(t)
	keyA, certA, _ := generate()
	if _, err := NewSigner(keyA, certA); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSigner(keyA, b.CertPEM()); err == nil {
		t.Error("a certificate of another key was accepted")
	}
	if _, err := NewSigner([]byte("junk"), a.CertPEM()); err == nil {
		t.Error("a junk key was accepted")
	}
	if _, err := NewSigner(keyA, []byte("junk")); err == nil {
		t.Error("a junk certificate was accepted")
	}
	if _, err := a.Sign("3", "x"); err == nil {
		t.Error("signature version 3 was accepted")
	}
}

func mustGenerate(t *testing.T) *Signer {
	t.Helper()
	s, err := GenerateSigner()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCertHandler(t *testing.T) {
	s := testSigner(t)
	srv := httptest.NewServer(s.CertHandler())
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + DefaultCertPath)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != string(s.CertPEM()) {
		t.Fatalf("status %d body %q", resp.StatusCode, b)
	}
	resp, err = http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: status %d", resp.StatusCode)
	}
}

// An envelope built by hand (no Encoder) and signed with Sign verifies,
// which pins the string to sign of both sides to the documented one.
func TestVerifyHandBuiltEnvelope(t *testing.T) {
	s := testSigner(t)
	toSign := "Message\nhi\nMessageId\nid-1\nTimestamp\n2026-01-02T03:04:05.006Z\nTopicArn\narn:aws:sns:r:1:t\nType\nNotification\n"
	for _, v := range []string{"1", "2"} {
		sig, err := s.Sign(v, toSign)
		if err != nil {
			t.Fatal(err)
		}
		env := fmt.Sprintf(`{"Type":"Notification","MessageId":"id-1","TopicArn":"arn:aws:sns:r:1:t","Message":"hi",`+
			`"Timestamp":"2026-01-02T03:04:05.006Z","SignatureVersion":%q,"Signature":%q,"SigningCertURL":"x","UnsubscribeURL":"y"}`, v, sig)
		if err := Verify([]byte(env), s.CertPEM()); err != nil {
			t.Fatalf("v%s: %v", v, err)
		}
	}
	for _, bad := range []string{`{`, `{"Type":"Other"}`, `{"Type":"Notification","Message":1}`,
		`{"Type":"Notification","Message":"a","MessageId":"b","Timestamp":"c","TopicArn":"d","SignatureVersion":"1","Signature":"!!"}`,
		`{"Type":"Notification","Message":"a","MessageId":"b","Timestamp":"c","TopicArn":"d","SignatureVersion":"9","Signature":""}`,
		`{"Type":"Notification","MessageId":"b","Timestamp":"c","TopicArn":"d","SignatureVersion":"1","Signature":""}`} {
		if err := Verify([]byte(bad), s.CertPEM()); err == nil {
			t.Errorf("Verify accepted %s", bad)
		}
	}
}

// The aws-sdk-go-v2 has no SNS message validator (service/sns holds only
// the API client), so there is no SDK check to run here; Verify follows
// AWS's documented receiver procedure instead.

func BenchmarkDeliver(b *testing.B) {
	for _, tc := range []struct {
		name     string
		distinct bool // a new message each delivery: every one is signed
	}{{"fanout", false}, {"distinct", true}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
			}))
			b.Cleanup(srv.Close)
			d, err := New(Config{Signer: testSigner(b), PublicURL: "http://herald", MaxPerHost: 64})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(d.Close)
			target := Target{SubscriptionARN: testSub, Endpoint: srv.URL, SignatureVersion: "2"}
			var seq atomic.Int64
			b.SetParallelism(64 / max(1, runtimeProcs()))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				n := testNotification()
				for pb.Next() {
					if tc.distinct {
						n.MessageID = fmt.Sprint(seq.Add(1))
					}
					if err := d.Deliver(context.Background(), target, n); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}
