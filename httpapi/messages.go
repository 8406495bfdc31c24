package httpapi

import (
	"bytes"
	"errors"
	"net/http"
	"sync"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
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
