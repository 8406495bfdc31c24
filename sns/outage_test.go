package sns

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// TestOutagesLogOncePerRun: many workers failing many times log one
// warning per queue and call, and one line when the call succeeds again.
func TestOutagesLogOncePerRun(t *testing.T) {
	var buf bytes.Buffer // the handler serializes its writes
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var o outages
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				o.failed(log, opReceive, "q1", errors.New("storage unavailable"))
			}
		}()
	}
	wg.Wait()
	o.failed(log, opReceive, "q2", errors.New("storage unavailable"))
	o.failed(log, opCreate, "q2", errors.New("storage unavailable"))
	o.failed(log, opCreate, "q2", errors.New("storage unavailable"))
	o.succeeded(log, opReceive, "q1")
	o.succeeded(log, opReceive, "q1")
	o.succeeded(log, opCreate, "q1")  // its creation never failed
	o.succeeded(log, opReceive, "q3") // never failed
	out := buf.String()
	if n := strings.Count(out, "internal queue failing"); n != 3 {
		t.Errorf("%d failure warnings, want 3 (one per queue and call):\n%s", n, out)
	}
	if n := strings.Count(out, "succeeds again"); n != 1 {
		t.Errorf("%d recovery lines, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "failed=400") {
		t.Errorf("recovery line does not count the 400 failures:\n%s", out)
	}
}
