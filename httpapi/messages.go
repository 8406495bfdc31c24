package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/internal/jsonobj"
)

// maxRequestBytes bounds a request body: a whole batch of messages at the
// cache's limits, base64 growth included, plus room for JSON syntax.
func (s *Server) maxRequestBytes(batch bool) int64 {
	cfg := s.cache.Config()
	one := int64(cfg.MaxBodyBytes)*4/3 + int64(cfg.MaxMetadataBytes) + 4096
	if batch {
		return one * int64(cfg.MaxBatch)
	}
	return one
}

// bodyBuffers recycles request-body buffers between requests.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// decodeJSON reads a JSON request body into v, refusing unknown fields and
// trailing data, with clear errors.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any, batch bool) error {
	limit := s.maxRequestBytes(batch)
	if r.ContentLength > limit {
		return &http.MaxBytesError{Limit: limit}
	}
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 { // keep small buffers only
			buf.Reset()
			bodyBuffers.Put(buf)
		}
	}()
	if r.ContentLength > 0 {
		// Trust the announced length only so far: a client may lie.
		buf.Grow(int(min(r.ContentLength, 64<<10)) + 1)
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit)); err != nil {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return err
		}
		return herald.Errorf(herald.EInvalid, "cannot read the request body: %v", err)
	}
	return decodeStrict(buf.Bytes(), v)
}

// decodeStrict decodes the JSON object body into the struct v (a pointer),
// strictly: member names must match v's JSON names exactly and once each, no
// unknown members, valid UTF-8 and nothing after the object.
func decodeStrict(body []byte, v any) error {
	fields := jsonFields(v)
	err := jsonobj.Members(body, func(name string, value json.RawMessage) error {
		target, ok := fields[name]
		if !ok {
			return fmt.Errorf("unknown field %q", name)
		}
		if b, ok := target.(*[]byte); ok && decodeBase64String(value, b) {
			return nil
		}
		if err := json.Unmarshal(value, target); err != nil {
			var b64 base64.CorruptInputError
			if errors.As(err, &b64) {
				return notBase64Error{name, int64(b64)}
			}
			return fmt.Errorf("field %q: %s", name, describeJSONError(err))
		}
		return nil
	})
	var nb notBase64Error
	if errors.As(err, &nb) {
		return herald.Errorf(herald.EInvalid, "%v", nb)
	}
	if err != nil {
		return herald.Errorf(herald.EInvalid, "malformed JSON: %v", err)
	}
	return nil
}

// notBase64Error is a bytes field whose JSON string is not base64: well
// formed JSON, so not reported as malformed.
type notBase64Error struct {
	field  string
	offset int64
}

func (e notBase64Error) Error() string {
	return fmt.Sprintf("field %q is not base64 (bad data at byte %d): encode it in standard base64 with padding, as `base64` or btoa() do (\"hello\" is \"aGVsbG8=\")", e.field, e.offset)
}

// decodeBase64String decodes value into *dst when it is a JSON string with
// no escapes holding standard base64, as encoding/json would, without the
// two extra passes over the text encoding/json makes; it reports false for
// anything else, which then takes the general path (and its error messages).
// Bodies are the largest field of a request, so this matters.
func decodeBase64String(value json.RawMessage, dst *[]byte) bool {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return false
	}
	text := value[1 : len(value)-1]
	if bytes.IndexByte(text, '\\') >= 0 {
		return false
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(out, text)
	if err != nil {
		return false
	}
	*dst = out[:n]
	return true
}

// jsonFields maps the JSON member names of the request structs to pointers
// to their fields.
func jsonFields(v any) map[string]any {
	switch v := v.(type) {
	case *api.PutRequest:
		return map[string]any{"message_uuid": &v.MessageUUID, "replica_uuid": &v.ReplicaUUID,
			"metadata": &v.Metadata, "body": &v.Body, "ttl": &v.TTL}
	case *api.BatchRequest:
		return map[string]any{"messages": &v.Messages}
	case *api.DataCenter:
		return map[string]any{"dc": &v.DC}
	}
	panic(fmt.Sprintf("httpapi: no JSON fields for %T", v))
}

func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Sprintf("must be %s, not %s", typeErr.Type, typeErr.Value)
	}
	return err.Error()
}

func (s *Server) putMessage(w http.ResponseWriter, r *http.Request) {
	var req api.PutRequest
	if err := s.decodeJSON(w, r, &req, false); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	m, created, err := s.cache.Put(r.Context(), toInput(req))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, api.PutResponse{MessageUUID: m.ID.String(), ReplicaUUID: m.ReplicaID.String()})
}

func (s *Server) putBatch(w http.ResponseWriter, r *http.Request) {
	var req api.BatchRequest
	if err := s.decodeJSON(w, r, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, r, s.log, herald.Errorf(herald.EInvalid, `"messages" must list at least one message`))
		return
	}
	if max := s.cache.Config().MaxBatch; len(req.Messages) > max {
		writeError(w, r, s.log, herald.Errorf(herald.ETooLarge, "a batch holds at most %d messages, not %d", max, len(req.Messages)))
		return
	}
	// Entries are decoded one by one so that a malformed entry fails alone.
	results := make([]api.BatchResult, len(req.Messages))
	var inputs []cache.PutInput
	var slots []int
	for i, raw := range req.Messages {
		var one api.PutRequest
		if err := decodeStrict(raw, &one); err != nil {
			status, body := toErrorBody(err)
			results[i] = api.BatchResult{Status: status, Error: &body}
			continue
		}
		inputs = append(inputs, toInput(one))
		slots = append(slots, i)
	}
	if len(inputs) > 0 {
		outcomes, err := s.cache.PutBatch(r.Context(), inputs)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		for j, o := range outcomes {
			results[slots[j]] = batchEntry(o)
		}
	}
	writeJSON(w, http.StatusOK, api.BatchResponse{Results: results})
}

func batchEntry(o cache.PutResult) api.BatchResult {
	if o.Err != nil {
		status, body := toErrorBody(o.Err)
		return api.BatchResult{Status: status, Error: &body}
	}
	status := http.StatusOK
	if o.Created {
		status = http.StatusCreated
	}
	return api.BatchResult{Status: status, MessageUUID: o.Message.ID.String(), ReplicaUUID: o.Message.ReplicaID.String()}
}

func (s *Server) getMessage(w http.ResponseWriter, r *http.Request) {
	m, err := s.cache.Get(r.Context(), r.PathValue("uuid"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toWire(m))
}
