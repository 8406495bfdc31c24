package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/pebblestore"
)

// Each fuzz target has one store per process (a fuzz worker is a process of
// its own): opening Pebble for every input would make fuzzing crawl. The
// targets do not share a store, so that what one stores cannot change what
// the other sees.

// fuzzEnv is one target's store and handler.
type fuzzEnv struct {
	once  sync.Once
	err   error
	dir   string
	db    *pebblestore.DB
	store *countingStore
	h     http.Handler
}

var (
	putEnv   fuzzEnv // FuzzPutMessage's
	queryEnv fuzzEnv // FuzzQueryParams'
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, e := range []*fuzzEnv{&putEnv, &queryEnv} {
		if e.db != nil {
			if err := e.db.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "closing a fuzz store:", err)
			}
		}
		if e.dir != "" {
			os.RemoveAll(e.dir)
		}
	}
	os.Exit(code)
}

// serving returns the env's handler over its store, creating both on first
// use, with a few messages already stored so that queries have something to
// walk and page through.
func (e *fuzzEnv) serving(t *testing.T) (http.Handler, *countingStore) {
	t.Helper()
	e.once.Do(func() { e.err = e.open() })
	if e.err != nil {
		t.Fatalf("setting up the fuzz store: %v", e.err)
	}
	return e.h, e.store
}

func (e *fuzzEnv) open() error {
	var err error
	if e.dir, err = os.MkdirTemp("", "herald-httpapi-fuzz-"); err != nil {
		return err
	}
	if e.db, err = pebblestore.Open(e.dir, pebblestore.Options{ReapInterval: -1, Logger: quietLog}); err != nil {
		return err
	}
	e.store = &countingStore{Store: e.db}
	e.h = newHandler(e.store)
	for _, p := range []string{"a", "a.b", "a.b.c", "ab", "ab-c", "abc.d", "x.y", "x.y.z"} {
		for range 3 {
			body := fmt.Sprintf(`{"metadata":{"paths":[%q]},"body":"aGVsbG8="}`, p)
			if rec := serve(e.h, http.MethodPost, "/v1/messages", body); rec.Code != http.StatusCreated {
				return fmt.Errorf("seeding %s: status %d: %s", p, rec.Code, rec.Body)
			}
		}
	}
	return nil
}

// countingStore counts the messages its store newly stored, and remembers
// the last one, so that a test sees whether a request changed anything.
type countingStore struct {
	cache.Store
	created atomic.Int64
	mu      sync.Mutex
	last    *cache.Message
}

func (s *countingStore) PutMessage(ctx context.Context, m *cache.Message) (*cache.Message, bool, error) {
	stored, created, err := s.Store.PutMessage(ctx, m)
	if err == nil && created {
		s.mu.Lock()
		s.last = stored
		s.mu.Unlock()
		s.created.Add(1)
	}
	return stored, created, err
}

func (s *countingStore) lastCreated() *cache.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// putFields are the members of a message a client may send.
var putFields = []string{"message_uuid", "replica_uuid", "metadata", "body", "ttl"}

func FuzzPutMessage(f *testing.F) {
	v1 := "5b0a7a2e-cef5-11f0-8de9-0242ac120002"
	v4 := "9f1c1b8e-2f4a-4c59-9d2e-6f1f7c7e0b11"
	for _, seed := range []string{
		// valid
		`{"metadata":{"paths":["a.b"]}}`,
		`{"metadata":{"paths":["feeds.breaking-news.12345"],"title":"Hi"},"body":"aGVsbG8=","ttl":3600}`,
		`{"message_uuid":"` + v1 + `","replica_uuid":"` + v1 + `","metadata":{"paths":["a","a.b","a"]}}`,
		`{"message_uuid":"` + v1 + `","metadata":{"paths":["other"]}}`, // a repeat: 200
		` {"metadata" : { "paths" : [ "x.y" ] , "n" : [1, 2.5e3, null, true] } } `,
		`{"metadata":{"paths":["2014-02-01T09:39Z.A_b:c-d"]},"ttl":2592000}`,
		`{"metadata":{"paths":["a"]},"body":""}`,
		`{"metadata":{"paths":["a"],"s":"\u00e9\ud83d\ude00"}}`,
		// invalid
		``,
		`null`,
		`[]`,
		`"x"`,
		`{}`,
		`{"metadata":null}`,
		`{"metadata":[]}`,
		`{"metadata":{}}`,
		`{"metadata":{"paths":[]}}`,
		`{"metadata":{"paths":"a"}}`,
		`{"metadata":{"paths":["a..b"]}}`,
		`{"metadata":{"paths":["a.*"]}}`,
		`{"metadata":{"paths":["` + strings.Repeat("w.", 33) + `w"]}}`,
		`{"metadata":{"paths":["a"]},"extra":1}`,
		`{"metadata":{"paths":["a"]},"ttl":0}`,
		`{"metadata":{"paths":["a"]},"ttl":-5}`,
		`{"metadata":{"paths":["a"]},"ttl":2592001}`,
		`{"metadata":{"paths":["a"]},"ttl":1.5}`,
		`{"metadata":{"paths":["a"]},"ttl":"60"}`,
		`{"metadata":{"paths":["a"]},"body":"!!"}`,
		`{"metadata":{"paths":["a"]},"body":"aGVsbG8"}`,
		`{"metadata":{"paths":["a"]},"message_uuid":"` + v4 + `"}`,
		`{"metadata":{"paths":["a"]},"replica_uuid":"nope"}`,
		`{"metadata":{"paths":["a"]}} {}`,
		`{"metadata":`,
		"\xff\xfe{}",
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, body []byte) {
		h, store := putEnv.serving(t)
		before := store.created.Load()
		req := httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		after := store.created.Load()
		status, data := rec.Code, rec.Body.Bytes()

		if status >= 500 {
			t.Fatalf("status %d for body %q: %s", status, body, data)
		}
		if !json.Valid(data) {
			t.Fatalf("status %d: answer is not JSON: %q", status, data)
		}
		if status < 200 || status > 299 {
			errorBody(t, status, rec.Header(), data)
			if after != before {
				t.Fatalf("status %d, yet %d messages were stored", status, after-before)
			}
			return
		}

		// A success.
		switch {
		case status == http.StatusCreated && after != before+1:
			t.Fatalf("201, but %d messages were stored, want 1", after-before)
		case status == http.StatusOK && after != before:
			t.Fatalf("200 (a repeat), but %d messages were stored, want 0", after-before)
		case status != http.StatusCreated && status != http.StatusOK:
			t.Fatalf("unexpected success status %d", status)
		}
		if !json.Valid(body) {
			t.Fatalf("status %d for a body that is not one JSON document: %q", status, body)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &fields); err != nil {
			t.Fatalf("status %d for a body that is not a JSON object: %q", status, body)
		}
		for name := range fields {
			if !slices.Contains(putFields, name) {
				t.Fatalf("status %d for a body with the unknown member %q: %q", status, name, body)
			}
		}
		var resp api.PutResponse
		if err := decodeStrict(data, &resp); err != nil {
			t.Fatalf("status %d: answer is not a put response (%v): %s", status, err, data)
		}
		for _, id := range []string{resp.MessageUUID, resp.ReplicaUUID} {
			if u, err := uuid.Parse(id); err != nil || u.Version() != 1 {
				t.Fatalf("status %d: answer names %q, not a version 1 uuid", status, id)
			}
		}
		if status == http.StatusCreated {
			checkStored(t, h, store.lastCreated(), resp.MessageUUID)
		}
	})
}

// checkStored checks the message a put just created: its metadata names
// exactly the paths it is indexed under, and it can be read back as valid
// JSON.
func checkStored(t *testing.T, h http.Handler, m *cache.Message, id string) {
	t.Helper()
	if m == nil || m.ID.String() != id {
		t.Fatalf("the store did not see message %s", id)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(m.Metadata, &doc); err != nil {
		t.Fatalf("stored metadata %q is not a JSON object: %v", m.Metadata, err)
	}
	var compacted bytes.Buffer
	if err := json.Compact(&compacted, m.Metadata); err != nil || !bytes.Equal(compacted.Bytes(), m.Metadata) {
		t.Fatalf("stored metadata %q is not compact JSON (%v)", m.Metadata, err)
	}
	var named []string
	if err := json.Unmarshal(doc["paths"], &named); err != nil || len(named) == 0 {
		t.Fatalf("stored metadata %q has no \"paths\" member, yet the message is indexed under %q", m.Metadata, m.Paths)
	}
	var unique []string
	for _, p := range named {
		if !slices.Contains(unique, p) {
			unique = append(unique, p)
		}
	}
	if !slices.Equal(unique, m.Paths) {
		t.Fatalf("stored metadata names the paths %q, but the message is indexed under %q", named, m.Paths)
	}

	rec := serve(h, http.MethodGet, "/v1/messages/"+id, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET of the message just created: %d %s", rec.Code, rec.Body)
	}
	if data := rec.Body.Bytes(); !json.Valid(data) || !utf8.Valid(data) {
		t.Fatalf("GET of the message just created is not valid JSON text (RFC 8259 requires UTF-8): %q", data)
	}
}

// queryRoutes are the GET endpoints FuzzQueryParams drives, with the answer
// type each one documents.
var queryRoutes = []struct {
	path string
	resp func() any
}{
	{"/v1/latest", func() any { return new(api.LatestResponse) }},
	{"/v1/all", func() any { return new(api.MessagesResponse) }},
	{"/v1/journal", func() any { return new(api.MessagesResponse) }},
	{"/v1/paths", func() any { return new(api.PathsResponse) }},
}

func FuzzQueryParams(f *testing.F) {
	for _, seed := range []struct {
		route uint8
		query string
	}{
		{0, "pattern=%23"},
		{0, "pattern=a.%2A&limit=1"},
		{0, "pattern=%23.c&limit=2&cursor="},
		{0, "pattern=a.b"},
		{0, "pattern=a..b"},
		{0, "pattern=%ff"},
		{0, ""},
		{1, "path=a.b&limit=1"},
		{1, "path=a.b&limit=1000"},
		{1, "path=a.%2A"},
		{1, "path=a&cursor=eyJrIjoidHJlZSIsInAiOiJhIn0"},
		{2, "from=2026-01-01T00:00:00Z&to=2100-01-01T00:00:00Z&limit=2"},
		{2, "from=0000-01-01T00:00:00Z&to=9999-12-31T23:59:59.999999999Z"},
		{2, "from=2026-01-01T00:00:00%2B14:00&to=2026-01-01T00:00:00-12:00"},
		{2, "from=yesterday&to=today"},
		{2, "to=2026-01-01T00:00:00Z"},
		{3, ""},
		{3, "prefix=a&limit=1"},
		{3, "prefix=a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.A.B.C.D.E.F"},
		{3, "prefix=&limit=-1"},
		{3, "limit=99999999999999999999"},
		{3, "limit=0"},
		{3, "limit=+3&limit=4"},
		{3, "cursor=%21%21&prefix=a"},
		{3, "a=1;b=2&%zz"},
		// hand-made cursors with extreme values, for mutation to start from
		{2, "from=1970-01-01T00:00:00Z&to=2100-01-01T00:00:00Z&cursor=eyJrIjoiam91cm5hbCIsInQiOi05MjIzMzcyMDM2ODU0Nzc1ODA4LCJpZCI6ImZmZmZmZmZmLWZmZmYtZmZmZi1mZmZmLWZmZmZmZmZmZmZmZiJ9"},
		{1, "path=a.b&cursor=eyJrIjoiaGlzdG9yeSIsInQiOjkyMjMzNzIwMzY4NTQ3NzU4MDcsImlkIjoiMDAwMDAwMDAtMDAwMC0xMDAwLTgwMDAtMDAwMDAwMDAwMDAwIn0"},
		{0, "pattern=%23.w&cursor=eyJrIjoidHJlZSIsInAiOiJ3Lncudy53Lncudy53Lncudy53Lncudy53Lncudy53Lncudy53Lncudy53Lncudy53Lncudy53Lncudy53Lncudy53LncifQ"},
		{3, "prefix=a&cursor=eyJrIjoidHJlZSIsInAiOiJ6enouYSJ9"},
	} {
		f.Add(seed.route, seed.query)
	}

	f.Fuzz(func(t *testing.T, route uint8, rawQuery string) {
		h, _ := queryEnv.serving(t)
		rt := queryRoutes[int(route)%len(queryRoutes)]
		status, data := getQuery(t, h, rt.path, rawQuery)
		checkQueryAnswer(t, rt.path, rawQuery, status, data, rt.resp())
		if status != http.StatusOK {
			return
		}
		// The next page of a successful query must be servable too.
		var page struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal(data, &page); err != nil || page.NextCursor == "" {
			return
		}
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return // the server read what it could; the next page's query would differ
		}
		q.Set("cursor", page.NextCursor)
		next := q.Encode()
		status, data = getQuery(t, h, rt.path, next)
		checkQueryAnswer(t, rt.path, next, status, data, rt.resp())
		if status != http.StatusOK {
			t.Fatalf("GET %s?%s: the next page of a successful query answered %d: %s", rt.path, next, status, data)
		}
	})
}

func getQuery(t *testing.T, h http.Handler, path, rawQuery string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.URL.RawQuery = rawQuery
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// checkQueryAnswer checks that a query's answer is never a server error and
// is always JSON: the documented answer on 200, an error body otherwise.
func checkQueryAnswer(t *testing.T, path, rawQuery string, status int, data []byte, resp any) {
	t.Helper()
	if status >= 500 {
		t.Fatalf("GET %s?%s: status %d: %s", path, rawQuery, status, data)
	}
	if !json.Valid(data) || !utf8.Valid(data) {
		t.Fatalf("GET %s?%s: status %d, answer is not valid JSON: %q", path, rawQuery, status, data)
	}
	if status == http.StatusOK {
		if err := decodeStrict(data, resp); err != nil {
			t.Fatalf("GET %s?%s: answer is not a %T (%v): %s", path, rawQuery, resp, err, data)
		}
		return
	}
	if status != http.StatusBadRequest {
		t.Fatalf("GET %s?%s: status %d, want 200 or 400: %s", path, rawQuery, status, data)
	}
	var e api.ErrorResponse
	if err := decodeStrict(data, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("GET %s?%s: status %d, answer is not a JSON error (%v): %s", path, rawQuery, status, err, data)
	}
}
