package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	t.Cleanup(srv.Close)
	tests := []struct {
		method, path string
		status       int
		contentType  string
		contains     string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", `<script src="/console.js">`},
		{"GET", "/console.js", 200, "text/javascript; charset=utf-8", `"/v1/admin/queues"`},
		{"GET", "/console.css", 200, "text/css; charset=utf-8", "table {"},
		{"GET", "/devices", 200, "text/html; charset=utf-8", `<script type="module" src="/app.js">`},
		{"GET", "/app.js", 200, "text/javascript; charset=utf-8", `import { Herald } from "/client/herald.js";`},
		{"GET", "/app.js", 200, "text/javascript; charset=utf-8", "SELFTEST PASS "},
		{"GET", "/style.css", 200, "text/css; charset=utf-8", "body {"},
		{"GET", "/client/herald.js", 200, "text/javascript; charset=utf-8", "export class Herald"},
		{"GET", "/client/herald.js", 200, "text/javascript; charset=utf-8", `"/v1/ws"`},
		{"GET", "/client/test.html", 200, "text/html; charset=utf-8", `from "/client/herald.js"`},
		{"GET", "/client/", 404, "", ""},
		{"GET", "/client/herald", 404, "", ""},
		{"HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/index.html", 404, "", ""},
		{"GET", "/static/app.js", 404, "", ""},
		{"GET", "/nope", 404, "", ""},
		{"POST", "/", 405, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d (body %q)", resp.StatusCode, tc.status, body)
			}
			if tc.contentType != "" && resp.Header.Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), tc.contentType)
			}
			if !strings.Contains(string(body), tc.contains) {
				t.Errorf("body does not contain %q", tc.contains)
			}
			if tc.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD answered a body of %d bytes", len(body))
			}
		})
	}
}

// TestAssetsServed checks that "/" and every path Assets names is served,
// so the routes the HTTP server registers from Assets stay in step with
// Handler.
func TestAssetsServed(t *testing.T) {
	h := Handler()
	for _, p := range append([]string{"/"}, Assets()...) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			t.Errorf("GET %s: status %d, %d bytes", p, rec.Code, rec.Body.Len())
		}
	}
	if len(Assets())+1 != len(files) {
		t.Errorf("Assets has %d entries, files %d (with the page)", len(Assets()), len(files))
	}
}

// TestClientLibrary checks that herald.js stays a dependency-free ES
// module whose exports are documented (a JSDoc comment right above each).
func TestClientLibrary(t *testing.T) {
	src, err := static.ReadFile("client/herald.js")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	exports := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "import ") || strings.Contains(l, "require(") {
			t.Errorf("line %d imports something: %q", i+1, l)
		}
		if strings.HasPrefix(l, "export ") {
			exports++
			if i == 0 || !strings.HasSuffix(strings.TrimSpace(lines[i-1]), "*/") {
				t.Errorf("line %d: %q has no JSDoc comment above it", i+1, l)
			}
		}
	}
	if exports == 0 {
		t.Error("herald.js exports nothing")
	}
}
