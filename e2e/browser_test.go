package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestBrowserSelftest loads the device console (package web, /devices) in
// headless Chromium with ?selftest=<word>: the page itself connects to /v1/ws,
// subscribes to <word>.#, publishes to <word>.a and waits for the message
// to come back through its subscription, then titles itself "SELFTEST PASS
// <message_uuid>". The test then checks over HTTP that the message is
// stored.
//
// Chromium's --dump-dom does not wait for WebSocket traffic (virtual time
// and --timeout both dump once the page has loaded), so the test reads the
// page's title from Chromium's DevTools HTTP endpoint (/json/list) until
// the selftest reports.
func TestBrowserSelftest(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := testContext(t)

	resp, err := http.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / answered %d %q, want the console page (is web.Handler wired into httpapi?)",
			resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	word := uniqueWord(t)
	pageURL := s.URL + "/devices?selftest=" + word
	title := runSelftestPage(t, ctx, chromium, pageURL)
	id, ok := strings.CutPrefix(title, "SELFTEST PASS ")
	if !ok {
		t.Fatalf("page reported %q, want SELFTEST PASS <message_uuid>\nserver log:\n%s", title, s.logs())
	}

	m, err := s.client().Get(ctx, id)
	if err != nil {
		t.Fatalf("GET /v1/messages/%s: %v", id, err)
	}
	var md struct{ Paths []string }
	if err := json.Unmarshal(m.Metadata, &md); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(md.Paths, []string{word + ".a"}) || string(m.Body) != "selftest "+word {
		t.Errorf("stored message has paths %q and body %q, want [%s.a] and %q", md.Paths, m.Body, word, "selftest "+word)
	}
}

// findChromium returns the path of the chromium binary (requireTool).
func findChromium(t *testing.T) string {
	t.Helper()
	return requireTool(t, "chromium")
}

// requireTool returns the path of a program a test needs; without it the
// test is skipped, or fails when CI=true (scripts/test installs them).
func requireTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (scripts/test installs it)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return path
}

var devtoolsLine = regexp.MustCompile(`DevTools listening on ws://([0-9.:\[\]a-z]+)/`)

// runSelftestPage opens pageURL in headless Chromium and returns the page's
// title once it starts with "SELFTEST PASS" or "SELFTEST FAIL".
func runSelftestPage(t *testing.T, ctx context.Context, chromium, pageURL string) string {
	t.Helper()
	return watchPage(t, ctx, chromium, pageURL, func(title string) bool {
		return strings.HasPrefix(title, "SELFTEST PASS") || strings.HasPrefix(title, "SELFTEST FAIL")
	})
}

// watchPage opens pageURL in headless Chromium and calls done with each
// title the page shows until done answers true; it returns that title.
func watchPage(t *testing.T, ctx context.Context, chromium, pageURL string, done func(title string) bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--remote-debugging-port=0", pageURL)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Stop the browser with SIGTERM so that it reaps its own helper
	// processes; whatever of its process group is left is killed after.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var (
		logMu sync.Mutex
		log   strings.Builder
	)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			log.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	defer func() {
		cancel()
		cmd.Wait()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}()
	logs := func() string { logMu.Lock(); defer logMu.Unlock(); return log.String() }

	var devtools string
	select {
	case devtools = <-addr:
	case <-ctx.Done():
		t.Fatalf("chromium did not start its DevTools endpoint:\n%s", logs())
	}
	last := ""
	for ctx.Err() == nil {
		title, err := pageTitle(ctx, devtools, pageURL)
		if err == nil && title != last {
			last = title
			if done(title) {
				return title
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the page did not finish within 60s (title %q); chromium:\n%s", last, logs())
	return ""
}

// pageTitle returns the title of the page target at pageURL, from the
// DevTools HTTP endpoint at devtools (host:port).
func pageTitle(ctx context.Context, devtools, pageURL string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+devtools+"/json/list", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var targets []struct{ Type, URL, Title string }
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		return "", err
	}
	for _, tg := range targets {
		if tg.Type == "page" && tg.URL == pageURL {
			return tg.Title, nil
		}
	}
	return "", fmt.Errorf("no page at %s yet", pageURL)
}
