package http1

import (
	"bytes"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
)

// maxHeaderBytes bounds a request's header block on the lean path; a longer
// one goes to net/http, which has its own bound.
const maxHeaderBytes = 16 << 10

// maxContentLength bounds the Content-Length the lean path accepts; a larger
// one goes to net/http. Handlers bound what they read far below it.
const maxContentLength = 1 << 40

// head is a parsed request head: its line and header fields.
type head struct {
	method        string
	target        string
	url           *url.URL
	host          string
	header        http.Header
	contentLength int64
	close         bool // Connection: close
}

// parseHead parses the header block b (request line to the empty line,
// CRLF included) into h. It reports false for anything outside the lean
// subset (see the package doc); the caller then hands the connection over
// without having consumed a byte.
//
// The block is copied into one string whose substrings are the target and
// the values: one allocation instead of one per field.
func parseHead(b []byte, h *head) bool {
	if !bytes.HasSuffix(b, headEnd) {
		return false
	}
	line, rest, ok := cutLine(string(b))
	if !ok {
		return false
	}
	sp := strings.IndexByte(line, ' ')
	if sp <= 0 {
		return false
	}
	switch line[:sp] {
	case http.MethodPost:
		h.method = http.MethodPost
	case http.MethodPut:
		h.method = http.MethodPut
	case http.MethodDelete:
		h.method = http.MethodDelete
	default:
		return false
	}
	line = line[sp+1:]
	sp = strings.IndexByte(line, ' ')
	if sp <= 0 || line[0] != '/' || line[sp+1:] != "HTTP/1.1" {
		return false
	}
	target := line[:sp]
	for i := 0; i < len(target); i++ {
		if c := target[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return false // net/http answers it
	}
	h.target, h.url = target, u

	// Count the fields first so that their values share one slice.
	n := strings.Count(rest, "\r\n") - 1
	if n < 1 || n > 100 {
		return false
	}
	h.header = make(http.Header, n)
	values := make([]string, n)
	hosts, lengths := 0, 0
	h.contentLength = 0
	h.close = false
	for i := 0; ; i++ {
		line, rest, ok = cutLine(rest)
		if !ok {
			return false
		}
		if len(line) == 0 {
			break
		}
		if i == n {
			return false
		}
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			return false
		}
		name := line[:colon]
		for i := 0; i < len(name); i++ {
			if !isTokenByte(name[i]) {
				return false
			}
		}
		v := trimOWS(line[colon+1:])
		for i := 0; i < len(v); i++ {
			if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
				return false
			}
		}
		key, ok := commonKeys[name]
		if !ok {
			key = textproto.CanonicalMIMEHeaderKey(name)
		}
		switch key {
		case "Host":
			hosts++
			if !validHost(v) {
				return false
			}
			h.host = v
		case "Content-Length":
			lengths++
			cl, ok := parseLength(v)
			if !ok {
				return false
			}
			h.contentLength = cl
		case "Transfer-Encoding", "Expect", "Upgrade", "Te", "Http2-Settings":
			return false
		case "Connection":
			if !connectionClose(v, &h.close) {
				return false
			}
		}
		values[i] = v
		if old := h.header[key]; old != nil {
			h.header[key] = append(old, v)
		} else {
			h.header[key] = values[i : i+1 : i+1]
		}
	}
	return hosts == 1 && lengths <= 1 && len(rest) == 0
}

var headEnd = []byte("\r\n\r\n")

// cutLine splits s at its first CRLF. A bare CR or LF left inside the line
// is refused by the checks of each part of a line (method, target and
// version; field names as tokens, values without control bytes).
func cutLine(s string) (line, rest string, ok bool) {
	i := strings.Index(s, "\r\n")
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+2:], true
}

// trimOWS drops the optional white space (SP, HTAB) around a field value.
func trimOWS(b string) string {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// parseLength parses a Content-Length: digits only, at most
// maxContentLength.
func parseLength(b string) (int64, bool) {
	if len(b) == 0 || len(b) > 13 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, n <= maxContentLength
}

// connectionClose reads a Connection field, a list of tokens: "close"
// sets *closing; the others name hop-by-hop fields, which change nothing
// here (an Upgrade field itself sends the request to net/http). A value
// that is not a token list goes to net/http.
func connectionClose(v string, closing *bool) bool {
	for opt := range strings.SplitSeq(v, ",") {
		opt = trimOWS(opt)
		for i := 0; i < len(opt); i++ {
			if !isTokenByte(opt[i]) {
				return false
			}
		}
		if strings.EqualFold(opt, "close") {
			*closing = true
		}
	}
	return true
}

// isTokenByte reports whether c may appear in a field name (RFC 9110 tchar).
func isTokenByte(c byte) bool {
	return c < 0x80 && tokenTable[c]
}

var tokenTable = asciiSet("!#$%&'*+-.^_`|~")

// asciiSet is the set of ASCII letters, digits and the bytes of extra.
func asciiSet(extra string) (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for i := 0; i < len(extra); i++ {
		t[extra[i]] = true
	}
	return t
}

// validHost reports whether a Host value has only the bytes net/http
// accepts in one (letters, digits and "!$%&'()*+,-.:;=[]_~").
func validHost(b string) bool {
	for i := 0; i < len(b); i++ {
		if c := b[i]; c >= 0x80 || !hostTable[c] {
			return false
		}
	}
	return true
}

var hostTable = asciiSet("!$%&'()*+,-.:;=[]_~")

// commonKeys are the canonical names of the fields SDKs and clients send,
// interned so that parsing them allocates no key.
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Host", "Content-Length", "Content-Type", "Connection", "Accept", "Accept-Encoding", "User-Agent",
		"Authorization", "X-Amz-Date", "X-Amz-Target", "X-Amz-Content-Sha256", "X-Amz-Security-Token",
		"X-Amz-User-Agent", "Amz-Sdk-Invocation-Id", "Amz-Sdk-Request", "X-Amzn-Query-Mode",
		"X-Amzn-Trace-Id", "Origin", "Cookie", "X-Forwarded-For", "X-Request-Id",
	} {
		m[k] = k
		m[strings.ToLower(k)] = k
	}
	return m
}()
