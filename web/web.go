// Package web serves Herald's browser pages, embedded in the binary (no
// build step, no external resources):
//
//   - "/", the operator console: queues with their live counts and rates,
//     topics with their subscriptions, paths, rollups (charts drawn with
//     the vendored uPlot, static/vendor), the node; it reads the admin API
//     (/v1/admin/...) and can peek at, send to, purge and redrive a queue
//     and publish to a topic. With
//     ?check=... it checks what it shows and reports in its title
//     (console.js); the browser end-to-end test drives that.
//   - "/devices", the device console: it speaks the WebSocket protocol of
//     docs/websocket.md to subscribe, publish and work a queue. With
//     ?selftest=<word> it runs a scripted publish-and-receive scenario by
//     itself and reports "SELFTEST PASS <message_uuid>" in its title.
//   - "/client/herald.js", the JavaScript client library of that protocol
//     (an ES module the device console imports), and "/client/test.html",
//     its test page: with ?scenario=... it runs a scripted scenario and
//     reports in its title (the e2e browser tests drive it).
package web

import (
	"embed"
	"net/http"
)

//go:embed static/console.html static/console.js static/console.css static/devices.html static/app.js static/style.css client/herald.js client/test.html
//go:embed static/vendor/uplot.iife.min.js static/vendor/uplot.min.css
var static embed.FS

// files maps each served URL path to its embedded file and content type.
var files = map[string]struct{ name, contentType string }{
	"/":            {"static/console.html", "text/html; charset=utf-8"},
	"/console.js":  {"static/console.js", "text/javascript; charset=utf-8"},
	"/console.css": {"static/console.css", "text/css; charset=utf-8"},
	"/devices":     {"static/devices.html", "text/html; charset=utf-8"},
	"/app.js":      {"static/app.js", "text/javascript; charset=utf-8"},
	"/style.css":   {"static/style.css", "text/css; charset=utf-8"},

	"/client/herald.js": {"client/herald.js", "text/javascript; charset=utf-8"},
	"/client/test.html": {"client/test.html", "text/html; charset=utf-8"},

	"/vendor/uplot.iife.min.js": {"static/vendor/uplot.iife.min.js", "text/javascript; charset=utf-8"},
	"/vendor/uplot.min.css":     {"static/vendor/uplot.min.css", "text/css; charset=utf-8"},
}

// Assets lists the URL paths of the page's own files, which Handler serves
// besides the page itself at "/"; every other path is a 404. Wire it as
// httpapi's SetPage(web.Handler(), web.Assets()...).
func Assets() []string {
	return []string{"/console.js", "/console.css", "/devices", "/app.js", "/style.css",
		"/client/herald.js", "/client/test.html", "/vendor/uplot.iife.min.js", "/vendor/uplot.min.css"}
}

// Handler serves the page at "/" and its files at Assets (GET and HEAD).
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := static.ReadFile(f.name)
		if err != nil { // cannot happen: the files are embedded
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.contentType)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	})
}
