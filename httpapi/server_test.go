package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/pebblestore"
)

// quietLog drops the server's log lines (the failing-store tests make
// many on purpose).
var quietLog = slog.New(slog.DiscardHandler)

// openStore opens a pebblestore in a temporary directory for the test and
// closes it at the end.
func openStore(t *testing.T) *pebblestore.DB {
	t.Helper()
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{ReapInterval: -1, Logger: quietLog})
	if err != nil {
		t.Fatalf("pebblestore.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	return db
}

// newHandler returns Herald's HTTP handler over store with the default
// limits.
func newHandler(store cache.Store) http.Handler {
	m := metrics.New()
	svc := cache.NewService(metrics.InstrumentCacheStore(store, m), cache.DefaultConfig())
	return httpapi.New(svc, m, quietLog)
}

// serve sends one request to h and returns the recorded answer.
func serve(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// decodeStrict decodes a whole JSON document into v, refusing unknown
// fields and trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON document")
	}
	return nil
}

// errorBody checks that an answer is a JSON error in Herald's shape and
// returns it.
func errorBody(t *testing.T, status int, header http.Header, body []byte) api.ErrorBody {
	t.Helper()
	if ct := header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("status %d: Content-Type %q, want application/json", status, ct)
	}
	var e api.ErrorResponse
	if err := decodeStrict(body, &e); err != nil {
		t.Fatalf("status %d: body is not a JSON error (%v): %q", status, err, body)
	}
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Errorf("status %d: error has an empty code or message: %q", status, body)
	}
	return e.Error
}

// errStoreDown is the cause inside every failure of downStore.
var errStoreDown = errors.New("replica 10.0.0.7 refused the connection")

// downStore is a Store whose every method fails the way engines report a
// storage failure.
type downStore struct{}

func (downStore) PutMessage(context.Context, *cache.Message) (*cache.Message, bool, error) {
	return nil, false, herald.Unavailable("put message", errStoreDown)
}

func (downStore) GetMessages(context.Context, []uuid.UUID) ([]*cache.Message, error) {
	return nil, herald.Unavailable("get messages", errStoreDown)
}

func (downStore) Latest(context.Context, string) (*cache.Ref, error) {
	return nil, herald.Unavailable("latest", errStoreDown)
}

func (downStore) Children(context.Context, string, string, int) ([]cache.Child, error) {
	return nil, herald.Unavailable("children", errStoreDown)
}

func (downStore) History(context.Context, string, cache.Position, int) ([]cache.Ref, error) {
	return nil, herald.Unavailable("history", errStoreDown)
}

func (downStore) Journal(context.Context, time.Time, time.Time, cache.Position, int) ([]cache.Ref, error) {
	return nil, herald.Unavailable("journal", errStoreDown)
}

func (downStore) ExpiredSince(context.Context, time.Time) (bool, error) {
	return false, herald.Unavailable("expired since", errStoreDown)
}

func (downStore) Close() error  { return nil }
func (downStore) Epoch() string { return "0000000000000000" }

func TestUnavailableStoreAnswers503WithRetryAfter(t *testing.T) {
	h := newHandler(downStore{})
	v1 := uuid.Must(uuid.NewUUID()).String()
	tests := []struct {
		name, method, target, body string
	}{
		{"put", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a.b"]}}`},
		{"get", http.MethodGet, "/v1/messages/" + v1, ""},
		{"latest wildcard", http.MethodGet, "/v1/latest?pattern=%23", ""},
		{"latest literal", http.MethodGet, "/v1/latest?pattern=a.b", ""},
		{"all", http.MethodGet, "/v1/all?path=a.b", ""},
		{"journal", http.MethodGet, "/v1/journal?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z", ""},
		{"paths", http.MethodGet, "/v1/paths", ""},
		{"paths under a prefix", http.MethodGet, "/v1/paths?prefix=a", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(h, tc.method, tc.target, tc.body)
			if rec.Code != http.StatusServiceUnavailable {
				t.Fatalf("status %d, want 503; body %s", rec.Code, rec.Body)
			}
			if ra := rec.Header().Get("Retry-After"); ra == "" {
				t.Errorf("no Retry-After header")
			}
			e := errorBody(t, rec.Code, rec.Header(), rec.Body.Bytes())
			if e.Code != herald.EUnavailable {
				t.Errorf("error code %q, want %q", e.Code, herald.EUnavailable)
			}
			if strings.Contains(e.Message, "10.0.0.7") {
				t.Errorf("error message %q leaks the storage failure's cause", e.Message)
			}
		})
	}
	t.Run("batch entry", func(t *testing.T) {
		rec := serve(h, http.MethodPost, "/v1/messages:batch", `{"messages":[{"metadata":{"paths":["a"]}},{"metadata":{"paths":["a..b"]}}]}`)
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d, want 200 (entries fail alone); body %s", rec.Code, rec.Body)
		}
		var resp api.BatchResponse
		if err := decodeStrict(rec.Body.Bytes(), &resp); err != nil {
			t.Fatalf("batch answer: %v: %s", err, rec.Body)
		}
		if len(resp.Results) != 2 {
			t.Fatalf("%d results, want 2", len(resp.Results))
		}
		if r := resp.Results[0]; r.Status != http.StatusServiceUnavailable || r.Error == nil || r.Error.Code != herald.EUnavailable {
			t.Errorf("entry 0 = %+v, want status 503 with code unavailable", r)
		}
		if r := resp.Results[1]; r.Status != http.StatusBadRequest || r.Error == nil || r.Error.Code != herald.EInvalid {
			t.Errorf("entry 1 = %+v, want status 400 with code invalid_argument", r)
		}
	})
	t.Run("healthz still ok", func(t *testing.T) {
		if rec := serve(h, http.MethodGet, "/healthz", ""); rec.Code != http.StatusOK {
			t.Errorf("GET /healthz with the store down: %d, want 200", rec.Code)
		}
	})
}

// panicStore wraps a working store and panics in the methods selected.
type panicStore struct {
	cache.Store
	putPanics      atomic.Bool
	childrenPanics atomic.Bool
}

func (s *panicStore) PutMessage(ctx context.Context, m *cache.Message) (*cache.Message, bool, error) {
	if s.putPanics.Load() {
		panic("test: PutMessage exploded")
	}
	return s.Store.PutMessage(ctx, m)
}

func (s *panicStore) Children(ctx context.Context, parent, after string, limit int) ([]cache.Child, error) {
	if s.childrenPanics.Load() {
		panic(errors.New("test: Children exploded"))
	}
	return s.Store.Children(ctx, parent, after, limit)
}

func TestPanicIs500JSONAndTheServerKeepsServing(t *testing.T) {
	store := &panicStore{Store: openStore(t)}
	srv := httptest.NewServer(newHandler(store))
	t.Cleanup(srv.Close)

	do := func(t *testing.T, method, path, body string) (int, http.Header, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: reading the answer: %v", method, path, err)
		}
		return resp.StatusCode, resp.Header, data
	}
	want500 := func(t *testing.T, method, path, body string) {
		t.Helper()
		status, header, data := do(t, method, path, body)
		if status != http.StatusInternalServerError {
			t.Fatalf("%s %s: status %d, want 500; body %s", method, path, status, data)
		}
		e := errorBody(t, status, header, data)
		if e.Code != herald.EInternal {
			t.Errorf("%s %s: code %q, want %q", method, path, e.Code, herald.EInternal)
		}
		if strings.Contains(e.Message, "exploded") {
			t.Errorf("%s %s: message %q leaks the panic", method, path, e.Message)
		}
	}
	wantStatus := func(t *testing.T, method, path, body string, want int) {
		t.Helper()
		if status, _, data := do(t, method, path, body); status != want {
			t.Fatalf("%s %s: status %d, want %d; body %s", method, path, status, want, data)
		}
	}

	wantStatus(t, http.MethodPost, "/v1/messages", `{"metadata":{"paths":["p.a"]}}`, http.StatusCreated)

	store.putPanics.Store(true)
	for range 3 {
		want500(t, http.MethodPost, "/v1/messages", `{"metadata":{"paths":["p.b"]}}`)
	}
	wantStatus(t, http.MethodGet, "/healthz", "", http.StatusOK)
	wantStatus(t, http.MethodGet, "/v1/latest?pattern=p.%23", "", http.StatusOK)

	store.childrenPanics.Store(true)
	want500(t, http.MethodGet, "/v1/latest?pattern=p.%2A", "")
	want500(t, http.MethodGet, "/v1/paths", "")
	wantStatus(t, http.MethodGet, "/v1/all?path=p.a", "", http.StatusOK)

	store.putPanics.Store(false)
	store.childrenPanics.Store(false)
	wantStatus(t, http.MethodPost, "/v1/messages", `{"metadata":{"paths":["p.c"]}}`, http.StatusCreated)
	status, _, data := do(t, http.MethodGet, "/v1/paths?prefix=p", "")
	var paths api.PathsResponse
	if status != http.StatusOK || decodeStrict(data, &paths) != nil {
		t.Fatalf("GET /v1/paths after the panics: %d %s", status, data)
	}
	if got := strings.Join(paths.Paths, ","); got != "p.a,p.c" {
		t.Errorf("paths after the panics = %s, want p.a,p.c (a put that panicked stores nothing)", got)
	}
}

func TestErrorStatusesAndShape(t *testing.T) {
	h := newHandler(openStore(t))
	big := `{"metadata":{"paths":["a"],"pad":"` + strings.Repeat("x", cache.DefaultConfig().MaxMetadataBytes) + `"}}`
	tooMany := `{"messages":[` + strings.TrimSuffix(strings.Repeat(`{"metadata":{"paths":["a"]}},`, cache.DefaultConfig().MaxBatch+1), ",") + `]}`
	huge := `{"metadata":{"paths":["a"]},"body":"` + strings.Repeat("A", 4<<20) + `"}`
	tests := []struct {
		name, method, target, body string
		status                     int
		code                       string
	}{
		{"unknown endpoint", http.MethodGet, "/v2/nothing", "", http.StatusNotFound, herald.ENotFound},
		{"wrong method", http.MethodDelete, "/v1/messages", "", http.StatusMethodNotAllowed, "method_not_allowed"},
		{"wrong method on a query", http.MethodPost, "/v1/latest?pattern=a", "{}", http.StatusMethodNotAllowed, "method_not_allowed"},
		{"empty body", http.MethodPost, "/v1/messages", "", http.StatusBadRequest, herald.EInvalid},
		{"malformed JSON", http.MethodPost, "/v1/messages", `{"metadata":`, http.StatusBadRequest, herald.EInvalid},
		{"unknown field", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]},"colour":"red"}`, http.StatusBadRequest, herald.EInvalid},
		{"two documents", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]}} {}`, http.StatusBadRequest, herald.EInvalid},
		{"wrong type", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]},"ttl":"60"}`, http.StatusBadRequest, herald.EInvalid},
		{"bad base64 body", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]},"body":"!!"}`, http.StatusBadRequest, herald.EInvalid},
		{"metadata too large", http.MethodPost, "/v1/messages", big, http.StatusRequestEntityTooLarge, herald.ETooLarge},
		{"request too large", http.MethodPost, "/v1/messages", huge, http.StatusRequestEntityTooLarge, herald.ETooLarge},
		{"batch too large", http.MethodPost, "/v1/messages:batch", tooMany, http.StatusRequestEntityTooLarge, herald.ETooLarge},
		{"empty batch", http.MethodPost, "/v1/messages:batch", `{"messages":[]}`, http.StatusBadRequest, herald.EInvalid},
		{"missing message", http.MethodGet, "/v1/messages/" + uuid.Must(uuid.NewUUID()).String(), "", http.StatusNotFound, herald.ENotFound},
		{"bad message uuid", http.MethodGet, "/v1/messages/xyz", "", http.StatusBadRequest, herald.EInvalid},
		{"latest without pattern", http.MethodGet, "/v1/latest", "", http.StatusBadRequest, herald.EInvalid},
		{"latest bad pattern", http.MethodGet, "/v1/latest?pattern=a..b", "", http.StatusBadRequest, herald.EInvalid},
		{"limit zero", http.MethodGet, "/v1/paths?limit=0", "", http.StatusBadRequest, herald.EInvalid},
		{"limit not a number", http.MethodGet, "/v1/paths?limit=ten", "", http.StatusBadRequest, herald.EInvalid},
		{"limit over the max", http.MethodGet, "/v1/paths?limit=1001", "", http.StatusBadRequest, herald.EInvalid},
		{"bad cursor", http.MethodGet, "/v1/paths?cursor=%21", "", http.StatusBadRequest, herald.EInvalid},
		{"journal bad time", http.MethodGet, "/v1/journal?from=yesterday&to=2027-01-01T00:00:00Z", "", http.StatusBadRequest, herald.EInvalid},
		{"journal without to", http.MethodGet, "/v1/journal?from=2026-01-01T00:00:00Z", "", http.StatusBadRequest, herald.EInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(h, tc.method, tc.target, tc.body)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d; body %.300s", rec.Code, tc.status, rec.Body)
			}
			if e := errorBody(t, rec.Code, rec.Header(), rec.Body.Bytes()); e.Code != tc.code {
				t.Errorf("code %q, want %q (message %q)", e.Code, tc.code, e.Message)
			}
			if rec.Code < 500 && rec.Header().Get("Retry-After") != "" {
				t.Errorf("a client error has a Retry-After header")
			}
		})
	}
	// None of the refused requests stored anything.
	rec := serve(h, http.MethodGet, "/v1/paths", "")
	var paths api.PathsResponse
	if err := decodeStrict(rec.Body.Bytes(), &paths); err != nil || len(paths.Paths) != 0 {
		t.Errorf("after refused requests: paths %q (%v), want none", paths.Paths, err)
	}
}
