package awsapi

import (
	"encoding/base64"
	"encoding/json"
	"github.com/heraldmq/herald/internal/jsonenc"
	"net/http"
	"slices"
	"strconv"
	"sync"
)

// jsonResponse is the body of a successful JSON 1.0 answer.
type jsonResponse interface {
	appendJSON(dst []byte) ([]byte, error)
}

// marshaled answers with encoding/json's rendering of v: the rarely called
// actions, where a hand-written encoder would buy nothing.
type marshaled struct{ v any }

func (m marshaled) appendJSON(dst []byte) ([]byte, error) {
	data, err := json.Marshal(m.v)
	return append(dst, data...), err
}

// emptyResult is the {} of actions that answer nothing.
type emptyResult struct{}

func (emptyResult) appendJSON(dst []byte) ([]byte, error) { return append(dst, "{}"...), nil }

// jsonBuffers holds response buffers. Buffers that grew past
// maxPooledBuffer (a receive of large messages) are left to the
// collector rather than pinned in the pool.
var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

const maxPooledBuffer = 1 << 20

// writeJSONResponse renders resp into a pooled buffer and writes it with
// its Content-Length, so that net/http neither chunks nor buffers twice.
func writeJSONResponse(w http.ResponseWriter, status int, resp jsonResponse) error {
	bp := jsonBuffers.Get().(*[]byte)
	body, err := resp.appendJSON((*bp)[:0])
	if err == nil {
		writeJSONBody(w, status, body)
	}
	if cap(body) <= maxPooledBuffer {
		*bp = body[:0]
		jsonBuffers.Put(bp)
	}
	return err
}

func writeJSONBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", jsonContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// appendMember appends "name": to dst, after a comma unless it opens the
// object. Names are constants that need no escaping.
func appendMember(dst []byte, name string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// appendStringMember appends "name":"value".
func appendStringMember(dst []byte, name, value string) []byte {
	return jsonenc.AppendString(appendMember(dst, name), value)
}

// appendOptionalString appends "name":"value" unless value is empty, as
// encoding/json's omitempty does.
func appendOptionalString(dst []byte, name, value string) []byte {
	if value == "" {
		return dst
	}
	return appendStringMember(dst, name, value)
}

// appendStringMap appends m as an object with its names in order, as
// encoding/json renders maps.
func appendStringMap(dst []byte, m map[string]string) []byte {
	var buf [16]string
	names := buf[:0]
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	dst = append(dst, '{')
	for i, name := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonenc.AppendString(dst, name)
		dst = append(dst, ':')
		dst = jsonenc.AppendString(dst, m[name])
	}
	return append(dst, '}')
}

// appendBase64 appends b as a base64 JSON string, as encoding/json renders
// []byte.
func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}
