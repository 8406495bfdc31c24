package http1

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestServerAnswersAsNetHTTP sends each raw stream to the lean server and
// to net/http alone: the answers (status, body, close) must be the same,
// and the lean server must have run exactly the requests of its subset,
// handing the connection over at the first other one.
func TestServerAnswersAsNetHTTP(t *testing.T) {
	leanAddr, stdAddr, _ := startServers(t, http.HandlerFunc(echo))
	const h = "Host: example.test\r\n"
	for _, tc := range []struct {
		name string
		raw  string
		by   []string // who served each answer, in order
	}{
		{"one post", post("/", "hello"), []string{"lean"}},
		{"pipelined posts", post("/a", "1") + post("/b?x=1", "22") + post("/c", ""), []string{"lean", "lean", "lean"}},
		{"put and delete", strings.Replace(post("/p", "x"), "POST", "PUT", 1) + strings.Replace(post("/d", ""), "POST", "DELETE", 1), []string{"lean", "lean"}},
		{"lower-case field names", "POST / HTTP/1.1\r\nhost: example.test\r\nuser-agent: sdk\r\ncontent-length: 2\r\n\r\nok", []string{"lean"}},
		{"get is handed over", "GET /x HTTP/1.1\r\n" + h + "\r\n", []string{"net/http"}},
		{"everything after a hand-over stays there", post("/1", "a") + "GET /2 HTTP/1.1\r\n" + h + "\r\n" + post("/3", "c"), []string{"lean", "net/http", "net/http"}},
		{"Content-Length with Transfer-Encoding", "POST / HTTP/1.1\r\n" + h + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", []string{"net/http"}},
		{"two different Content-Lengths", "POST / HTTP/1.1\r\n" + h + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab", []string{""}},
		{"two equal Content-Lengths", "POST / HTTP/1.1\r\n" + h + "Content-Length: 2\r\nContent-Length: 2\r\n\r\nab", []string{"net/http"}},
		{"signed Content-Length", "POST / HTTP/1.1\r\n" + h + "Content-Length: +2\r\n\r\nab", []string{""}},
		{"chunked body", "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", []string{"net/http"}},
		{"folded field", "POST / HTTP/1.1\r\n" + h + "X-A: 1\r\n 2\r\nContent-Length: 0\r\n\r\n", []string{"net/http"}},
		{"lines ending in LF", "POST / HTTP/1.1\nHost: example.test\nContent-Length: 2\n\nab", []string{"net/http"}},
		{"HTTP/1.0", "POST / HTTP/1.0\r\n" + h + "Content-Length: 2\r\n\r\nab", []string{"net/http"}},
		{"Expect", "POST / HTTP/1.1\r\n" + h + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\nab", []string{"", "net/http"}}, // 100 Continue first,
		{"Upgrade", "POST / HTTP/1.1\r\n" + h + "Connection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: 0\r\n\r\n", []string{"net/http"}},
		{"no Host", "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", []string{""}},
		{"two Hosts", "POST / HTTP/1.1\r\n" + h + h + "Content-Length: 0\r\n\r\n", []string{""}},
		{"bad Host", "POST / HTTP/1.1\r\nHost: a b\r\nContent-Length: 0\r\n\r\n", []string{""}},
		{"space before colon", "POST / HTTP/1.1\r\n" + h + "Content-Length : 0\r\n\r\n", []string{""}},
		{"control byte in a value", "POST / HTTP/1.1\r\n" + h + "X-A: a\x01b\r\nContent-Length: 0\r\n\r\n", []string{""}},
		{"absolute-form target", "POST http://example.test/ HTTP/1.1\r\n" + h + "Content-Length: 0\r\n\r\n", []string{"net/http"}},
		{"Connection naming hop-by-hop fields", "POST / HTTP/1.1\r\n" + h + "Connection: upgrade, keep-alive, X-Hop\r\nX-Hop: 1\r\nContent-Length: 0\r\n\r\n", []string{"lean"}},
		{"Connection: close", "POST / HTTP/1.1\r\n" + h + "Connection: close\r\nContent-Length: 1\r\n\r\na" + post("/never", ""), []string{"lean"}},
		{"header block over 16 KiB", "POST / HTTP/1.1\r\n" + h + "X-Big: " + strings.Repeat("b", 17<<10) + "\r\nContent-Length: 0\r\n\r\n", []string{"net/http"}},
		{"head cut short", "POST / HTTP/1.1\r\n" + h + "Content-Le", []string{""}},
		{"body cut short", "POST / HTTP/1.1\r\n" + h + "Content-Length: 10\r\n\r\nabc", []string{"lean"}},
		{"empty line first", "\r\n" + post("/", "a"), []string{""}},
		{"garbage", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			by := sameAnswers(t, leanAddr, stdAddr, tc.raw)
			if !slices.Equal(by, tc.by) {
				t.Errorf("served by %q, want %q", by, tc.by)
			}
		})
	}
}

// sameAnswers sends raw to both servers and fails the test unless the
// answers match; it returns who served each of the lean server's answers.
func sameAnswers(t *testing.T, leanAddr, stdAddr, raw string) []string {
	t.Helper()
	got, gotReset := exchange(t, leanAddr, raw)
	want, wantReset := exchange(t, stdAddr, raw)
	if gotReset || wantReset {
		// Only the answers before a reset are known (see readAnswers).
		n := min(len(got), len(want))
		got, want = got[:n], want[:n]
	}
	if len(got) != len(want) {
		t.Fatalf("lean server gave %d answers %v, net/http %d %v", len(got), got, len(want), want)
	}
	var by []string
	for i := range got {
		by = append(by, got[i].by)
		w := want[i]
		w.by = got[i].by
		if i == len(got)-1 && got[i].close {
			w.close = true // announcing the close net/http makes silently
		}
		if got[i] != w {
			t.Errorf("answer %d: lean server %v, net/http %v", i, got[i], want[i])
		}
	}
	return by
}

// FuzzServerAnswersAsNetHTTP checks that no byte stream is answered
// differently by the lean server and by net/http alone: a request is
// either run by the lean path exactly as net/http would run it, or handed
// over to net/http.
func FuzzServerAnswersAsNetHTTP(f *testing.F) {
	for _, seed := range []string{
		post("/", "hello"),
		post("/a", "1") + post("/b?x=1", "22"),
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"POST / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n 2\r\nContent-Length: 0\r\n\r\n",
		"POST / HTTP/1.1\nHost: a\nContent-Length: 2\n\nab",
		"DELETE /q HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
		"PUT /%zz HTTP/1.1\r\nHost: [::1]:80\r\nContent-Length: 0\r\n\r\n",
		"POST /?a=b#c HTTP/1.1\r\nHost: a\r\nContent-Length: 01\r\n\r\nx",
	} {
		f.Add(seed)
	}
	leanAddr, stdAddr, _ := startServers(f, http.HandlerFunc(echo))
	f.Fuzz(func(t *testing.T, raw string) {
		sameAnswers(t, leanAddr, stdAddr, raw)
		if e := takeFuzzError(); strings.Contains(e, "http1:") {
			t.Fatalf("the lean server logged: %s", e)
		}
	})
}
