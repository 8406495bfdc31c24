package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// launch is how to start one server.
type launch struct {
	argv []string
	dir  string   // working directory ("" for the run's)
	env  []string // added to the cleaned environment
	// benchArgs are extra flags of `herald bench` for this server.
	benchArgs []string
}

// server is a running server process, in a process group of its own.
type server struct {
	name    string
	url     string // http://127.0.0.1:PORT
	cmd     *exec.Cmd
	log     *os.File
	done    chan struct{} // closed when the process has ended
	err     error         // how it ended, once done
	stopped bool

	benchArgs []string
	// services are processes this program did not start whose CPU counts
	// with the server's (Cassandra and Redis under Herald), by name.
	services map[string]int
}

// freePort returns a loopback port nothing listens on now, away from the
// ports Herald's own services use.
func freePort() (int, error) {
	reserved := map[int]bool{4566: true, 9042: true, 6379: true, 5672: true, 7000: true, 25672: true}
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !reserved[port] {
			return port, nil
		}
	}
	return 0, errors.New("no free port")
}

// childEnv is this process's environment without HERALD_* variables, so
// that a server starts from its flags alone.
func childEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HERALD_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// startServer starts l with its output in logPath.
func startServer(name string, port int, l launch, logPath string) (*server, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(l.argv[0], l.argv[1:]...)
	cmd.Dir = l.dir
	cmd.Env = childEnv(l.env)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	s := &server{name: name, url: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, log: log, done: make(chan struct{}), benchArgs: l.benchArgs}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// waitReady waits until the server answers HTTP at all (any status).
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil}}
	deadline := time.Now().Add(timeout)
	for {
		resp, err := hc.Get(s.url + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("%s ended before answering (%v); its log: %s", s.name, s.err, s.log.Name())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer on %s within %s; its log: %s", s.name, s.url, timeout, s.log.Name())
		}
	}
}

// stop ends the server's process group: SIGTERM, then SIGKILL after 10s.
// Stopping it again does nothing.
func (s *server) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	defer s.log.Close()
	pgid := s.pid()
	select {
	case <-s.done:
	default:
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-s.done
		}
	}
	// Whatever the group left behind goes too.
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// alive reports an error if the server has ended.
func (s *server) alive() error {
	select {
	case <-s.done:
		return fmt.Errorf("%s has ended (%v); its log: %s", s.name, s.err, s.log.Name())
	default:
		return nil
	}
}
