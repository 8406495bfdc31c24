package http1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testSlowRequest is the servers' SlowRequest.
const testSlowRequest = 20 * time.Millisecond

// echo answers with what it saw of the request, and says which server ran
// it: net/http's writer can hijack, the lean one cannot.
func echo(w http.ResponseWriter, r *http.Request) {
	by := "lean"
	if _, ok := w.(http.Hijacker); ok {
		by = "net/http"
	}
	w.Header().Set("X-Served-By", by)
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "%s %s host=%s len=%d ua=%q body=%q", r.Method, r.URL.RequestURI(), r.Host, r.ContentLength, r.Header.Get("User-Agent"), b)
}

// startServers serves h on loopback with the lean server in front of a
// net/http server (lean) and with net/http alone (std), stopped at the
// test's end. Handler panics are logged to the test.
func startServers(tb testing.TB, h http.Handler) (lean, std string, ls *Server) {
	tb.Helper()
	logger := log.New(testWriter{tb}, "", 0)
	fallback := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: logger}
	ls = &Server{Handler: h, Fallback: fallback, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute,
		SlowRequest: testSlowRequest, ErrorLog: logger}
	stdSrv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: logger}
	lean = serveOn(tb, ls.Serve, ls.Shutdown)
	std = serveOn(tb, stdSrv.Serve, stdSrv.Shutdown)
	return lean, std, ls
}

func serveOn(tb testing.TB, serve func(net.Listener) error, shutdown func(context.Context) error) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			tb.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != http.ErrServerClosed {
			tb.Errorf("serve returned %v", err)
		}
	})
	return ln.Addr().String()
}

// testWriter logs the servers' errors to the test; under fuzzing, where
// the fuzz target's own t is not at hand, it keeps the last one for
// lastError.
type testWriter struct{ tb testing.TB }

var fuzzErrors struct {
	sync.Mutex
	last string
}

func (w testWriter) Write(p []byte) (int, error) {
	if _, fuzzing := w.tb.(*testing.F); fuzzing {
		fuzzErrors.Lock()
		fuzzErrors.last = string(p)
		fuzzErrors.Unlock()
		return len(p), nil
	}
	w.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// takeFuzzError returns and forgets the last error a server logged under
// fuzzing.
func takeFuzzError() string {
	fuzzErrors.Lock()
	defer fuzzErrors.Unlock()
	e := fuzzErrors.last
	fuzzErrors.last = ""
	return e
}

// answer is one response as a client read it.
type answer struct {
	status int
	by     string
	close  bool
	body   string
}

func (a answer) String() string {
	return fmt.Sprintf("%d by=%s close=%v %q", a.status, a.by, a.close, a.body)
}

// exchange writes raw to addr, half-closes, and reads every answer until
// the server closes (see readAnswers).
func exchange(tb testing.TB, addr, raw string) ([]answer, bool) {
	tb.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		tb.Fatalf("write: %v", err)
	}
	c.(*net.TCPConn).CloseWrite()
	return readAnswers(tb, bufio.NewReader(c))
}

// readAnswers reads answers until the stream ends. A connection reset
// also ends it (reset true): a server closing with unread bytes resets
// it, and the reset can destroy an answer already sent, so what follows
// a reset is unknown.
func readAnswers(tb testing.TB, br *bufio.Reader) (out []answer, reset bool) {
	tb.Helper()
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return out, errors.Is(err, syscall.ECONNRESET)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if errors.Is(err, syscall.ECONNRESET) {
			return out, true
		}
		if err != nil {
			tb.Fatalf("answer body: %v", err)
		}
		out = append(out, answer{status: resp.StatusCode, by: resp.Header.Get("X-Served-By"), close: resp.Close, body: string(b)})
	}
}

// post is a well-formed lean request.
func post(target, body string) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: example.test\r\nUser-Agent: t\r\nContent-Length: %d\r\n\r\n%s", target, len(body), body)
}
