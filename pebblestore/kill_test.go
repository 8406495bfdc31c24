//go:build unix

package pebblestore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// putterDirEnv names the directory in which TestHelperProcessPutter, run as
// a child process, puts messages.
const putterDirEnv = "HERALD_PEBBLESTORE_PUTTER_DIR"

const putterGoroutines = 16

// putterMessage returns the i-th message of goroutine g of the putter: all
// of its content follows from (g, i), so the parent can check it.
func putterMessage(g, i int) *cache.Message {
	base, _, _, _ := ticksOf(t0)
	id := v1Ticks(base+uint64(g)<<32+uint64(i), uint64(g)<<32|uint64(i))
	paths := []string{fmt.Sprintf("kill.g%d.n%d", g, i%100), "kill.all"}
	meta, _ := json.Marshal(map[string]any{"paths": paths, "g": g, "i": i})
	return &cache.Message{
		ID:         id,
		ReplicaID:  v1Ticks(base, uint64(g)),
		Metadata:   meta,
		Paths:      paths,
		Body:       bytes.Repeat([]byte(fmt.Sprintf("<%d/%d>", g, i)), 1+i%200),
		ReceivedAt: t0.Add(time.Duration(i) * time.Millisecond),
		ExpiresAt:  t0.AddDate(100, 0, 0), // stays alive whatever the real clock says
	}
}

// TestHelperProcessPutter is not a test: TestSIGKILLDurability runs the test
// binary with it as a child process that puts messages as fast as it can,
// printing "ack <id> <g> <i>" once each put has returned, until killed.
func TestHelperProcessPutter(t *testing.T) {
	dir := os.Getenv(putterDirEnv)
	if dir == "" {
		t.Skip("helper process of TestSIGKILLDurability")
	}
	db, err := Open(dir, Options{ReapInterval: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := range putterGoroutines {
		wg.Go(func() {
			for i := 0; ; i++ {
				m := putterMessage(g, i)
				if _, _, err := db.PutMessage(ctx, m); err != nil {
					fmt.Fprintln(os.Stderr, "put:", err)
					os.Exit(3)
				}
				mu.Lock()
				fmt.Fprintf(out, "ack %s %d %d\n", m.ID, g, i)
				err := out.Flush()
				mu.Unlock()
				if err != nil {
					os.Exit(4)
				}
			}
		})
	}
	wg.Wait()
}

type putterAck struct {
	id   uuid.UUID
	g, i int
}

// TestSIGKILLDurability kills a process that is putting messages and
// checks that every put it acknowledged survives.
func TestSIGKILLDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process for seconds")
	}
	dir := t.TempDir()
	acks, stderr := runPutterUntilKilled(t, dir, 1500*time.Millisecond)
	if len(acks) == 0 {
		t.Fatalf("the putter acknowledged nothing; its stderr:\n%s", stderr)
	}
	t.Logf("%d puts acknowledged before SIGKILL", len(acks))

	db := openDBIn(t, dir, nil, Options{})
	const batch = 500
	for start := 0; start < len(acks); start += batch {
		part := acks[start:min(start+batch, len(acks))]
		ids := make([]uuid.UUID, len(part))
		for k, a := range part {
			ids[k] = a.id
		}
		got, err := db.GetMessages(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		for k, a := range part {
			if got[k] == nil {
				t.Fatalf("acknowledged message %s (goroutine %d, #%d) is lost", a.id, a.g, a.i)
			}
			checkSameMessage(t, got[k], putterMessage(a.g, a.i))
		}
	}
	// The indexes survived too: the last acked message of each goroutine
	// is findable from its path.
	last := map[int]putterAck{}
	for _, a := range acks {
		if a.i >= last[a.g].i {
			last[a.g] = a
		}
	}
	for g, a := range last {
		m := putterMessage(g, a.i)
		h, err := db.History(ctx, m.Paths[0], cache.Position{}, 1000)
		if err != nil || !containsID(refIDs(h), a.id) {
			t.Errorf("History(%s) lacks acknowledged message %s: %v", m.Paths[0], a.id, err)
		}
	}
}

// runPutterUntilKilled runs TestHelperProcessPutter on dir, lets it put for
// d after its first acknowledgement, kills it with SIGKILL and returns what
// it acknowledged.
func runPutterUntilKilled(t *testing.T, dir string, d time.Duration) ([]putterAck, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessPutter$", "-test.count=1")
	cmd.Env = append(os.Environ(), putterDirEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	t.Cleanup(func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})

	first := make(chan struct{})
	done := make(chan []putterAck)
	go func() { done <- readAcks(stdout, first) }()
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		t.Fatalf("the putter acknowledged nothing in 30s; its stderr:\n%s", stderr.String())
	}
	time.Sleep(d)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	acks := <-done // the pipe closes when the child dies
	err = cmd.Wait()
	waited = true
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the putter ended with %v, not by SIGKILL; its stderr:\n%s", err, stderr.String())
	}
	return acks, stderr.String()
}

// readAcks parses the putter's acknowledgements until r ends, closing first
// at the first one.
func readAcks(r io.Reader, first chan<- struct{}) []putterAck {
	var acks []putterAck
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "ack ")
		if !ok {
			continue
		}
		var a putterAck
		var id string
		if _, err := fmt.Sscanf(line, "%s %d %d", &id, &a.g, &a.i); err != nil {
			continue
		}
		var err error
		if a.id, err = uuid.Parse(id); err != nil {
			continue
		}
		if len(acks) == 0 {
			close(first)
		}
		acks = append(acks, a)
	}
	_, _ = io.Copy(io.Discard, r)
	return acks
}

func containsID(ids []uuid.UUID, id uuid.UUID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
