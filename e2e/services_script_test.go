package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStopCountsAZombieAsStopped tests scripts/services, which the suite's
// services and the two-DC rig run on: a service that exits on SIGTERM but
// that nobody reaps stays a zombie, as it does under a PID 1 that is no
// init (some containers, this CI's machine). `services stop` must count it
// stopped; kill -0 alone counted it running, waited 60 s, then reported
// that it "survived SIGKILL" and failed, which failed the two-DC rig's
// Cassandra restarts.
func TestStopCountsAZombieAsStopped(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "redis"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A stand-in for redis-server: its command line names it, and SIGTERM
	// ends it. This test is its parent and does not wait for it until the
	// end, so once ended it is a zombie.
	svc := exec.Command("bash", "-c", "exec -a redis-server sleep 600")
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	pid := svc.Process.Pid
	t.Cleanup(func() { svc.Process.Kill(); svc.Wait() })
	waitFor(t, "the stand-in to be named redis-server", func() bool {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return strings.HasPrefix(string(b), "redis-server\x00")
	})
	if err := os.WriteFile(filepath.Join(dir, "redis", "redis.pid"), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	stop := exec.Command("../scripts/services", "stop", "redis")
	stop.Env = append(os.Environ(), "HERALD_SERVICES_DIR="+dir, "HERALD_REDIS_PORT="+strconv.Itoa(freePort(t)))
	stop.WaitDelay = time.Second // a killed stop's children hold its output open
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = stop.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // the stop's own wait is 60 s
		stop.Process.Kill()
		<-done
		t.Fatalf("services stop still waiting after 30 s for an ended service:\n%s", out)
	}
	if err != nil || strings.Contains(string(out), "SIGKILL") {
		t.Fatalf("services stop: %v\n%s", err, out)
	}
	if state := procState(pid); state != "Z" {
		t.Fatalf("the stand-in's state is %q, want Z (a zombie): the test did not make the case it is named for", state)
	}
}

// procState is the state letter of pid in /proc ("" once it is gone).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	s = s[strings.LastIndex(s, ") ")+2:]
	return s[:1]
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// freePort is a TCP port nothing listens on, so that the stop's check of
// the port finds no other Redis.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
