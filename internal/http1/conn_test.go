package http1

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// dial opens a connection to addr closed at the test's end.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

func send(t *testing.T, c net.Conn, raw string) {
	t.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
}

func readOne(t *testing.T, br *bufio.Reader) answer {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading an answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, by: resp.Header.Get("X-Served-By"), close: resp.Close, body: string(b)}
}

// TestSlowRequestCanceledWhenClientLeaves: a handler still running after
// SlowRequest (a long poll) sees its context canceled when the client
// goes, as under net/http.
func TestSlowRequestCanceledWhenClientLeaves(t *testing.T) {
	started := make(chan struct{})
	canceled := make(chan error, 1)
	leanAddr, _, _ := startServers(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		close(started)
		select {
		case <-r.Context().Done():
			canceled <- r.Context().Err()
		case <-time.After(10 * time.Second):
			canceled <- nil
		}
	}))
	c, _ := dial(t, leanAddr)
	send(t, c, post("/", "wait"))
	<-started
	c.Close()
	if err := <-canceled; err != context.Canceled {
		t.Fatalf("handler's context: %v, want canceled when the client left", err)
	}
}

// TestSlowRequestKeepsConnection: a slow request that ends normally leaves
// its connection usable, and a request the client sent meanwhile
// (pipelined) is answered after it, in order.
func TestSlowRequestKeepsConnection(t *testing.T) {
	leanAddr, _, _ := startServers(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(10 * testSlowRequest) // the watch runs meanwhile
			if err := r.Context().Err(); err != nil {
				t.Errorf("slow request's context: %v", err)
			}
		}
		echo(w, r)
	}))
	c, br := dial(t, leanAddr)
	send(t, c, post("/slow", "a"))
	time.Sleep(3 * testSlowRequest)
	send(t, c, post("/next", "b"))
	for _, want := range []string{`POST /slow host=example.test len=1 ua="t" body="a"`, `POST /next host=example.test len=1 ua="t" body="b"`} {
		if a := readOne(t, br); a.status != 200 || a.body != want || a.by != "lean" {
			t.Fatalf("got %v, want 200 %q from the lean server", a, want)
		}
	}
	send(t, c, post("/after", "c"))
	if a := readOne(t, br); a.status != 200 || !strings.Contains(a.body, "/after") {
		t.Fatalf("the connection after a slow request answered %v", a)
	}
}

// TestUnreadBody: a body the handler left unread is skipped when small,
// and closes the connection when larger than maxDrainBytes.
func TestUnreadBody(t *testing.T) {
	leanAddr, _, _ := startServers(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ignored " + r.URL.Path)) // reads nothing
	}))
	small := strings.Repeat("s", 1000)
	got, _ := exchange(t, leanAddr, post("/a", small)+post("/b", ""))
	if len(got) != 2 || got[0].body != "ignored /a" || got[1].body != "ignored /b" || got[0].close {
		t.Errorf("small unread body: answers %v, want both on one connection", got)
	}
	big := strings.Repeat("b", maxDrainBytes+1)
	got, _ = exchange(t, leanAddr, post("/a", big)+post("/b", ""))
	if len(got) != 1 || !got[0].close || got[0].body != "ignored /a" {
		t.Errorf("big unread body: answers %v, want one, with Connection: close", got)
	}
}

// TestHandlerPanicClosesConnection: a panicking handler's connection is
// closed without an answer, and the server goes on serving others.
func TestHandlerPanicClosesConnection(t *testing.T) {
	leanAddr, _, _ := startServers(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow-panic":
			time.Sleep(5 * testSlowRequest) // its connection is watched by then
			panic(http.ErrAbortHandler)
		case "/panic":
			panic(http.ErrAbortHandler)
		}
		echo(w, r)
	}))
	for _, path := range []string{"/panic", "/slow-panic"} {
		if got, _ := exchange(t, leanAddr, post(path, "")+post("/after", "")); len(got) != 0 {
			t.Errorf("answers after a panic in %s: %v, want none", path, got)
		}
	}
	if got, _ := exchange(t, leanAddr, post("/ok", "")); len(got) != 1 || got[0].status != 200 {
		t.Errorf("next connection: %v", got)
	}
}

// TestAnswerHead: the lean writer adds Date, Content-Length and a sniffed
// Content-Type, drops a handler's own framing fields, and turns line
// breaks in values into spaces so that no value splits the answer.
func TestAnswerHead(t *testing.T) {
	leanAddr, _, _ := startServers(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/split":
			w.Header().Set("X-Echo", "a\r\nX-Injected: 1")
			w.Header().Set("Transfer-Encoding", "chunked")
			w.Header().Set("Content-Length", "1")
			w.Write([]byte("<html>hi</html>"))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
			w.Write([]byte("dropped"))
		}
	}))
	c, br := dial(t, leanAddr)
	send(t, c, post("/split", "")+post("/empty", ""))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "<html>hi</html>" || resp.ContentLength != int64(len(b)) || resp.TransferEncoding != nil {
		t.Errorf("body %q, length %d, transfer encoding %v", b, resp.ContentLength, resp.TransferEncoding)
	}
	if got := resp.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if resp.Header.Get("X-Injected") != "" || resp.Header.Get("X-Echo") != "a  X-Injected: 1" {
		t.Errorf("a value split the answer: %v", resp.Header)
	}
	if _, err := time.Parse(http.TimeFormat, resp.Header.Get("Date")); err != nil {
		t.Errorf("Date: %v", err)
	}
	if a := readOne(t, br); a.status != http.StatusNoContent || a.body != "" {
		t.Errorf("204 answer: %v", a)
	}
}

// TestShutdownWaitsForRunningRequests: Shutdown closes idle connections at
// once, lets a running request finish and answer, and then returns.
func TestShutdownWaitsForRunningRequests(t *testing.T) {
	running := make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			close(running)
			<-release
		}
		echo(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Handler: h, Fallback: &http.Server{Handler: h}}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	idle, idleBR := dial(t, ln.Addr().String())
	send(t, idle, post("/first", ""))
	readOne(t, idleBR)
	busy, busyBR := dial(t, ln.Addr().String())
	send(t, busy, post("/hold", ""))
	<-running

	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	if _, err := idleBR.ReadByte(); err != io.EOF {
		t.Errorf("idle connection during shutdown: read %v, want EOF", err)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v while a request ran", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if a := readOne(t, busyBR); a.status != 200 || !a.close {
		t.Errorf("running request's answer: %v, want 200 with Connection: close", a)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Errorf("Serve: %v", err)
	}
}
