package chaos

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// heraldProc is one `herald serve` child process, restartable on the same
// address: the first start picks a free port, every restart reuses it, so
// clients keep one URL across kills.
type heraldProc struct {
	bin     string
	args    []string // serve's flags except --listen
	logPath string
	listen  string // host:port, fixed after the first start
	url     string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when cmd ended
	ending  bool          // the drill is ending the process: its exit is expected
	crashes []string      // exits the drill did not cause
}

var listenLine = regexp.MustCompile(`msg="herald listening" addr=(http://[^ ]+)`)

// startHerald starts bin serve with args on a free port of 127.0.0.1,
// appending its output to logPath, and waits until it listens.
func startHerald(ctx context.Context, bin string, args []string, logPath string) (*heraldProc, error) {
	h := &heraldProc{bin: bin, args: args, logPath: logPath, listen: "127.0.0.1:0"}
	if err := h.start(ctx); err != nil {
		return nil, err
	}
	h.listen = strings.TrimPrefix(h.url, "http://")
	return h, nil
}

// start runs the process and waits for its "listening" line. A port still
// held a moment after a kill is retried for a few seconds.
func (h *heraldProc) start(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 25; attempt++ {
		if err = h.startOnce(ctx); err == nil || !strings.Contains(err.Error(), "address already in use") {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
	return err
}

func (h *heraldProc) startOnce(ctx context.Context) error {
	logf, err := os.OpenFile(h.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "=== chaos: starting herald at %s\n", time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(h.bin, append([]string{"serve", "--listen", h.listen}, h.args...)...)
	cmd.SysProcAttr = childAttr()
	cmd.Stdout = logf
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logf.Close()
		return err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", h.bin, err)
	}
	addr := make(chan string, 1)
	var tail tailBuffer
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			logf.Write(line)
			logf.Write([]byte{'\n'})
			tail.add(line)
			if m := listenLine.FindSubmatch(line); m != nil {
				select {
				case addr <- string(m[1]):
				default:
				}
			}
		}
		io.Copy(logf, stderr)
	}()
	done := make(chan struct{})
	h.mu.Lock()
	h.cmd, h.done, h.ending = cmd, done, false
	h.mu.Unlock()
	go func() {
		err := cmd.Wait()
		h.mu.Lock()
		if !h.ending {
			h.crashes = append(h.crashes, fmt.Sprintf("%s at %s", cmdExit(err), time.Now().UTC().Format(time.RFC3339)))
		}
		h.mu.Unlock()
		logf.Close()
		close(done)
	}()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case u := <-addr:
		h.url = u
		return nil
	case <-done:
		return fmt.Errorf("herald exited before listening: %s", tail.String())
	case <-timer.C:
		h.kill()
		return fmt.Errorf("herald did not listen within 30s: %s", tail.String())
	case <-ctx.Done():
		h.kill()
		return ctx.Err()
	}
}

// kill ends the process with SIGKILL, as a crash would, and waits for it.
func (h *heraldProc) kill() {
	cmd, done := h.markEnding()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// markEnding marks the process as ended on purpose (its exit is no crash)
// and returns it, nil if none runs.
func (h *heraldProc) markEnding() (*exec.Cmd, chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ending = true
	return h.cmd, h.done
}

// stop ends the process with SIGTERM (a clean shutdown), or SIGKILL after
// 20 seconds.
func (h *heraldProc) stop() {
	cmd, done := h.markEnding()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		h.kill()
	}
}

// unexpectedExits lists the exits of Herald the drill did not cause.
func (h *heraldProc) unexpectedExits() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.crashes...)
}

func cmdExit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// waitHealthy waits until /healthz answers 200.
func (h *heraldProc) waitHealthy(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil}}
	defer c.CloseIdleConnections()
	last := "no answer"
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		resp, err := c.Get(h.url + "/healthz")
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("HTTP %d %s", resp.StatusCode, bytes.TrimSpace(body))
		} else {
			last = err.Error()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("herald's /healthz did not answer 200 within %s (last: %s)", timeout, last)
}

// tailBuffer keeps the last few lines of a process's output for errors.
type tailBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (t *tailBuffer) add(line []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 8 {
		t.lines = t.lines[1:]
	}
	t.lines = append(t.lines, string(line))
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// redisProc is the drill's own redis-server: no persistence, on a port of
// 127.0.0.1 that stays the same across restarts, so a restart is a Redis
// that comes back empty.
type redisProc struct {
	bin, dir string
	port     int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// startRedis starts redis-server (bin) on a free port with its files in dir.
func startRedis(ctx context.Context, bin, dir string) (*redisProc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	r := &redisProc{bin: bin, dir: dir, port: port}
	return r, r.start(ctx)
}

func (r *redisProc) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

// start runs redis-server and waits until it answers PING.
func (r *redisProc) start(ctx context.Context) error {
	var lastErr error
	for attempt := 0; attempt < 25; attempt++ {
		cmd := exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", r.dir, "--logfile", "redis.log")
		cmd.Dir = r.dir
		cmd.SysProcAttr = childAttr()
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start redis-server: %w", err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		r.mu.Lock()
		r.cmd, r.done = cmd, done
		r.mu.Unlock()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			select {
			case <-done:
				lastErr = fmt.Errorf("redis-server exited at start (port %d busy?)", r.port)
			default:
				if lastErr = ping(r.addr()); lastErr == nil {
					return nil
				}
				time.Sleep(20 * time.Millisecond)
				continue
			}
			break
		}
		r.kill()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("redis-server on %s did not start: %v", r.addr(), lastErr)
}

// kill ends redis-server with SIGKILL: everything it held is gone.
func (r *redisProc) kill() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// ping sends a Redis PING and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return errors.New("redis answered " + strings.TrimSpace(line))
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// runServices runs scripts/services (script) with args, for the optional
// faults that restart a shared service.
func runServices(ctx context.Context, script string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, script, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", script, strings.Join(args, " "), err, lastLines(out, 5))
	}
	return nil
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
