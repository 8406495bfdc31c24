package main

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/internal/testcert"
)

// A renewal is served from the next handshake on; a renewal caught half
// done (a new certificate beside the old key) or a file missing for a
// moment keeps the previous certificate, with one warning, until the
// files are whole again.
func TestCertReloaderFollowsRenewals(t *testing.T) {
	dir := t.TempDir()
	a, b, c := testcert.New(t, 1), testcert.New(t, 2), testcert.New(t, 3)
	t0 := time.Now().Add(-time.Hour)
	certFile, keyFile := a.Write(t, dir, t0)
	var logs bytes.Buffer
	r, err := newCertReloader(certFile, keyFile, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		change   func()
		serial   int64
		warnings int // logged by this step
	}{
		{"the first pair", func() {}, 1, 0},
		{"a new certificate beside the old key", func() { testcert.Replace(t, certFile, b.CertPEM, t0.Add(time.Minute)) }, 1, 1},
		{"its key too", func() { testcert.Replace(t, keyFile, b.KeyPEM, t0.Add(2*time.Minute)) }, 2, 0},
		{"the certificate missing", func() { os.Remove(certFile) }, 2, 1},
		{"a whole renewal", func() { c.Write(t, dir, t0.Add(3*time.Minute)) }, 3, 0},
	}
	for _, s := range steps {
		before := strings.Count(logs.String(), "level=WARN")
		s.change()
		for range 3 { // each handshake checks; a failure is logged once
			cert, err := r.getCertificate(nil)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if got := cert.Leaf.SerialNumber.Int64(); got != s.serial {
				t.Fatalf("%s: serving certificate %d, want %d", s.name, got, s.serial)
			}
		}
		if got := strings.Count(logs.String(), "level=WARN") - before; got != s.warnings {
			t.Errorf("%s: %d warnings, want %d:\n%s", s.name, got, s.warnings, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "TLS certificate reloaded") {
		t.Errorf("no reload logged:\n%s", logs.String())
	}
}

// A pair that does not load fails the start.
func TestCertReloaderRefusesABadPair(t *testing.T) {
	dir := t.TempDir()
	a, b := testcert.New(t, 1), testcert.New(t, 2)
	certFile, keyFile := a.Write(t, dir, time.Now())
	otherKey := filepath.Join(dir, "other.pem")
	testcert.Replace(t, otherKey, b.KeyPEM, time.Now())
	for _, tc := range []struct{ name, cert, key, want string }{
		{"missing key", certFile, filepath.Join(dir, "none.pem"), "no such file"},
		{"another certificate's key", certFile, otherKey, "private key does not match"},
		{"a key as certificate", keyFile, keyFile, "certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newCertReloader(tc.cert, tc.key, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
}
