package http1

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// maxKeptBuffer bounds the answer buffer a connection keeps between
// requests; a larger one (a receive of big messages) is let go.
const maxKeptBuffer = 256 << 10

// response is the http.ResponseWriter of the lean path: it buffers the
// answer and writes it, head and body, in one system call at the end.
type response struct {
	c           *conn
	header      http.Header
	status      int
	wroteHeader bool
	body        []byte
	head        []byte
}

func (w *response) reset() {
	if w.header == nil {
		w.header = make(http.Header, 4)
	} else {
		clear(w.header)
	}
	w.status = 0
	w.wroteHeader = false
	w.body = w.body[:0]
}

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic("http1: invalid WriteHeader code " + strconv.Itoa(code))
	}
	if w.wroteHeader || code < 200 { // 1xx answers are not sent on this path
		return
	}
	w.wroteHeader = true
	w.status = code
}

func (w *response) Write(p []byte) (int, error) {
	if err := w.startBody(); err != nil {
		return 0, err
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

func (w *response) WriteString(s string) (int, error) {
	if err := w.startBody(); err != nil {
		return 0, err
	}
	w.body = append(w.body, s...)
	return len(s), nil
}

// startBody sends 200 unless a status was set, and refuses a body to a
// status that has none.
func (w *response) startBody() error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return http.ErrBodyNotAllowed
	}
	return nil
}

// closeAfter reports whether the handler asked for the connection to
// close.
func (w *response) closeAfter() bool {
	closing := false
	for _, v := range w.header["Connection"] {
		connectionClose(v, &closing)
	}
	return closing
}

// finish writes the answer; closing adds "Connection: close".
func (w *response) finish(closing bool) error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	h := append(w.head[:0], "HTTP/1.1 "...)
	h = strconv.AppendInt(h, int64(w.status), 10)
	h = append(h, ' ')
	h = append(h, http.StatusText(w.status)...)
	h = append(h, "\r\n"...)
	for k, vv := range w.header {
		switch k {
		case "Content-Length", "Transfer-Encoding":
			continue // the length is the buffered body's
		}
		if !validKey(k) {
			continue
		}
		for _, v := range vv {
			h = append(h, k...)
			h = append(h, ": "...)
			h = appendValue(h, v)
			h = append(h, "\r\n"...)
		}
	}
	if _, ok := w.header["Date"]; !ok {
		h = append(h, "Date: "...)
		h = append(h, httpDate()...)
		h = append(h, "\r\n"...)
	}
	if bodyAllowed(w.status) {
		if _, ok := w.header["Content-Type"]; !ok && len(w.body) > 0 {
			h = append(h, "Content-Type: "...)
			h = append(h, http.DetectContentType(w.body)...)
			h = append(h, "\r\n"...)
		}
		h = append(h, "Content-Length: "...)
		h = strconv.AppendInt(h, int64(len(w.body)), 10)
		h = append(h, "\r\n"...)
	}
	if closing && !w.closeAfter() {
		h = append(h, "Connection: close\r\n"...)
	}
	h = append(h, "\r\n"...)
	w.head = h
	var err error
	if len(w.body) == 0 {
		_, err = w.c.nc.Write(h)
	} else {
		bufs := net.Buffers{h, w.body}
		_, err = bufs.WriteTo(w.c.nc)
	}
	if cap(w.body) > maxKeptBuffer {
		w.body = nil
	}
	return err
}

// bodyAllowed reports whether an answer with this status has a body.
func bodyAllowed(status int) bool {
	return status != http.StatusNoContent && status != http.StatusNotModified && status >= 200
}

// appendValue appends a field value with CR and LF made spaces, as
// net/http does, so that no value can split the answer.
func appendValue(h []byte, v string) []byte {
	if !strings.ContainsAny(v, "\r\n") {
		return append(h, v...)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		h = append(h, c)
	}
	return h
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isTokenByte(k[i]) {
			return false
		}
	}
	return true
}

// httpDate is the Date field's value, formatted once a second.
func httpDate() string {
	now := time.Now().Unix()
	if d := cachedDate.Load(); d != nil && d.unix == now {
		return d.text
	}
	d := &dateText{unix: now, text: time.Unix(now, 0).UTC().Format(http.TimeFormat)}
	cachedDate.Store(d)
	return d.text
}

type dateText struct {
	unix int64
	text string
}

var cachedDate atomic.Pointer[dateText]
