package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/heraldmq/herald/internal/testcert"
)

var listeningAddr = regexp.MustCompile(`msg="herald listening" addr=(\S+)`)

// startServe runs 'herald serve' in this process with args, on a free port
// and the embedded store in a temporary directory, and returns the address
// its "listening" line gives and its log so far. It stops when the test
// ends; a failed test prints its log.
func startServe(t *testing.T, args ...string) (addr string, log func() string) {
	t.Helper()
	args = append([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}, args...)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, args, io.Discard, pw)
		pw.Close()
	}()
	var mu sync.Mutex
	var lines strings.Builder
	log = func() string { mu.Lock(); defer mu.Unlock(); return lines.String() }
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			mu.Lock()
			lines.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := listeningAddr.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		io.Copy(io.Discard, pr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop within 20s")
		}
		if t.Failed() {
			t.Logf("herald serve's log:\n%s", log())
		}
	})
	select {
	case addr = <-found:
	case err := <-done:
		t.Fatalf("serve ended before listening: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not listen within 30s")
	}
	return addr, log
}

// httpsClient trusts pool only, and offers HTTP/2 when h2 is set. Each
// client has its connections of its own.
func httpsClient(t *testing.T, pool *x509.CertPool, h2 bool) *http.Client {
	t.Helper()
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: h2}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// get fetches url with c and checks the answer is 200.
func get(t *testing.T, c *http.Client, url string) *http.Response {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return resp
}

// herald serve --tls-cert --tls-key serves HTTPS (HTTP/2 and HTTP/1.1, TLS
// 1.2 or later) on its one listener, WebSockets (wss://) included, and
// nothing in plain HTTP.
func TestServeTLS(t *testing.T) {
	pair := testcert.New(t, 1)
	certFile, keyFile := pair.Write(t, t.TempDir(), time.Now())
	base, _ := startServe(t, "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("listening on %s, want an https:// address", base)
	}
	pool := testcert.Pool(pair)

	for _, tc := range []struct {
		name  string
		h2    bool
		proto int
	}{{"HTTP/2", true, 2}, {"HTTP/1.1", false, 1}} {
		t.Run("GET /livez over "+tc.name, func(t *testing.T) {
			resp := get(t, httpsClient(t, pool, tc.h2), base+"/livez")
			if resp.ProtoMajor != tc.proto || resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 {
				t.Errorf("answered over HTTP/%d, TLS %#x; want HTTP/%d, TLS 1.2 or later", resp.ProtoMajor, resp.TLS.Version, tc.proto)
			}
		})
	}

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			client *http.Client
			url    string
			want   string
		}{
			{"plain HTTP", &http.Client{Timeout: 10 * time.Second}, "http" + strings.TrimPrefix(base, "https") + "/livez", ""},
			{"a client that does not trust the certificate", httpsClient(t, x509.NewCertPool(), false), base + "/livez", "certificate"},
			{"TLS 1.1", &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}}}, base + "/livez", "protocol version"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, err := tc.client.Get(tc.url)
				if err == nil {
					// Go's TLS server answers a plain request 400.
					resp.Body.Close()
					if tc.want == "" && resp.StatusCode == http.StatusBadRequest {
						return
					}
					t.Fatalf("answered HTTP %d", resp.StatusCode)
				}
				if tc.want == "" || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err %v, want one saying %q", err, tc.want)
				}
			})
		}
	})

	t.Run("WebSocket over wss", func(t *testing.T) {
		client := httpsClient(t, pool, true)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		conn, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(base, "https")+"/v1/ws", &websocket.DialOptions{HTTPClient: client})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer conn.CloseNow()
		frame := func(typ string) map[string]any {
			t.Helper()
			for {
				_, b, err := conn.Read(ctx)
				if err != nil {
					t.Fatalf("waiting for %s: %v", typ, err)
				}
				var f map[string]any
				if err := json.Unmarshal(b, &f); err != nil {
					t.Fatal(err)
				}
				if f["type"] == typ {
					return f
				}
			}
		}
		if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"subscribe","id":"1","pattern":"tls.#"}`)); err != nil {
			t.Fatal(err)
		}
		frame("subscribed")
		resp, err := client.Post(base+"/v1/messages", "application/json", strings.NewReader(`{"metadata":{"paths":["tls.one"]},"body":"aGk="}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("put: HTTP %d", resp.StatusCode)
		}
		if f := frame("message"); f["path"] != "tls.one" {
			t.Errorf("pushed %v, want the message of tls.one", f)
		}
	})
}

// A certificate renewed in place is presented to the next connection, with
// no restart.
func TestServeTLSReloadsCertificate(t *testing.T) {
	dir := t.TempDir()
	first, renewed := testcert.New(t, 1), testcert.New(t, 2)
	t0 := time.Now().Add(-time.Hour)
	certFile, keyFile := first.Write(t, dir, t0)
	base, log := startServe(t, "--tls-cert", certFile, "--tls-key", keyFile)
	pool := testcert.Pool(first, renewed)
	served := func() int64 {
		t.Helper()
		resp := get(t, httpsClient(t, pool, false), base+"/livez")
		return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
	}
	if got := served(); got != 1 {
		t.Fatalf("serving certificate %d, want 1", got)
	}
	kept := httpsClient(t, pool, false)
	get(t, kept, base+"/livez")
	renewed.Write(t, dir, t0.Add(time.Minute))
	if got := served(); got != 2 {
		t.Fatalf("after the renewal serving certificate %d, want 2", got)
	}
	if resp := get(t, kept, base+"/livez"); resp.TLS.PeerCertificates[0].SerialNumber.Int64() != 1 {
		t.Error("a connection open before the renewal changed certificate")
	}
	if !strings.Contains(log(), "TLS certificate reloaded") {
		t.Errorf("the reload was not logged")
	}
}

// --tls-cert and --tls-key go together; a pair that does not load stops
// the start with a line naming the flags.
func TestServeTLSFlagMistakes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--tls-cert", "cert.pem"}, "herald: --tls-cert needs --tls-key (the certificate's private key)"},
		{[]string{"serve", "--tls-key", "key.pem"}, "herald: --tls-key needs --tls-cert (the certificate)"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--tls-cert", missing, "--tls-key", missing}, "herald: --tls-cert/--tls-key: stat " + missing + ": no such file or directory"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, _, line, code := runCLI(t, tc.args...)
			if code != 1 || line != tc.want {
				t.Errorf("exit %d, printed %q; want %q", code, line, tc.want)
			}
		})
	}
}
