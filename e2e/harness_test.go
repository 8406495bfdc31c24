// Package e2e tests Herald end to end: a real `herald serve` process on a
// random port, driven through real clients (Go's HTTP client via package
// client, curl, the herald CLI).
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heraldmq/herald/client"
)

// heraldBin is the herald binary built once for the whole package.
var heraldBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "herald-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	heraldBin = filepath.Join(dir, "herald")
	build := exec.Command("go", "build", "-o", heraldBin, "../cmd/herald")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building herald:", err)
		os.Exit(1)
	}
	code := m.Run()
	dropCassandraKeyspace()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is one running `herald serve` process.
type server struct {
	URL     string
	DataDir string
	cmd     *exec.Cmd
	done    chan struct{}
	logMu   sync.Mutex
	log     strings.Builder
}

var listenLine = regexp.MustCompile(`addr=(https?://[^ ]+)`)

// startServer runs herald serve on the embedded engine on a free port with
// its data in dataDir ("" for a fresh temporary directory) and waits until it
// answers. The process is stopped when the test ends.
func startServer(t *testing.T, dataDir string, extraArgs ...string) *server {
	t.Helper()
	return embedded.start(t, dataDir, extraArgs...)
}

// start runs herald serve on engine e; dataDir is the embedded engine's
// directory ("" for a fresh one) and is ignored by other engines.
func (e engine) start(t *testing.T, dataDir string, extraArgs ...string) *server {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir}, e.args()...)
	args = append(args, extraArgs...)
	return startProcess(t, dataDir, args)
}

// startProcess runs the herald binary with args and waits until it serves.
func startProcess(t *testing.T, dataDir string, args []string) *server {
	t.Helper()
	return launch(t, exec.Command(heraldBin, args...), dataDir, true)
}

// launch starts cmd, waits for its "listening" log line and, when healthy
// is set, for /healthz to answer 200.
func launch(t *testing.T, cmd *exec.Cmd, dataDir string, healthy bool) *server {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start herald: %v", err)
	}
	s := &server{DataDir: dataDir, cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.logMu.Lock()
			s.log.WriteString(line + "\n")
			s.logMu.Unlock()
			if m := listenLine.FindStringSubmatch(line); m != nil && strings.Contains(line, "listening") {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() { cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop(t) })
	select {
	case s.URL = <-addr:
	case <-s.done:
		t.Fatalf("herald exited before listening:\n%s", s.logs())
	case <-time.After(30 * time.Second):
		t.Fatalf("herald did not start listening in 30s:\n%s", s.logs())
	}
	if healthy {
		waitHealthy(t, http.DefaultClient, s.URL)
	}
	return s
}

// waitHealthy waits until url's /healthz answers 200 to c: up to a
// minute, since a node on Cassandra is ready once its keyspace answers,
// which on a machine busy with the other half of the suite (the two-DC
// tests run beside it) took over 15 s. Tests that assert how soon a node
// is ready use waitHealthyWithin.
func waitHealthy(t *testing.T, c *http.Client, url string) {
	t.Helper()
	waitHealthyWithin(t, c, url, time.Minute)
}

// waitHealthyWithin is waitHealthy for up to d.
func waitHealthyWithin(t *testing.T, c *http.Client, url string, d time.Duration) {
	t.Helper()
	if err := healthyWithin(c, url, d); err != nil {
		t.Fatal(err)
	}
}

// healthyWithin waits up to d for url's /healthz to answer 200 to c; its
// error carries the last answer (Herald's health body names what is not
// ready) or the last failure to reach it.
func healthyWithin(c *http.Client, url string, d time.Duration) error {
	deadline := time.Now().Add(d)
	last := "no answer yet"
	// Each request is bounded (Herald answers /healthz within its one
	// second readiness check): one that a cut or a stalled peer leaves
	// hanging becomes a failed attempt, not a wait past d.
	bounded := *c
	bounded.Timeout = 5 * time.Second
	for time.Now().Before(deadline) {
		resp, err := bounded.Get(url + "/healthz")
		if err != nil {
			last = err.Error()
		} else {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s/healthz did not answer 200 within %v; last: %s", url, d, last)
}

func (s *server) logs() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

// stop ends the process with SIGTERM (a clean shutdown) unless it already
// ended, and reports a failed shutdown.
func (s *server) stop(t *testing.T) {
	t.Helper()
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		t.Errorf("herald did not stop within 20s of SIGTERM:\n%s", s.logs())
	}
}

// kill ends the process with SIGKILL, as a crash would.
func (s *server) kill(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// pause stops the process (SIGSTOP) until the returned function, or the
// end of the test, resumes it (SIGCONT).
func (s *server) pause(t *testing.T) (resume func()) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	resume = func() { once.Do(func() { s.cmd.Process.Signal(syscall.SIGCONT) }) }
	t.Cleanup(resume)
	return resume
}

func (s *server) client() *client.Client { return client.New(s.URL, nil) }

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
