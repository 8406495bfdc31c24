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
// warning per queue, and one line when receives succeed again.
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
				o.failed(log, "q1", errors.New("storage unavailable"))
			}
		}()
	}
	wg.Wait()
	o.failed(log, "q2", errors.New("storage unavailable"))
	o.succeeded(log, "q1")
	o.succeeded(log, "q1")
	o.succeeded(log, "q3") // never failed
	out := buf.String()
	if n := strings.Count(out, "receives from internal queue failing"); n != 2 {
		t.Errorf("%d failure warnings, want 2 (one per queue):\n%s", n, out)
	}
	if n := strings.Count(out, "succeed again"); n != 1 {
		t.Errorf("%d recovery lines, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "failed=400") {
		t.Errorf("recovery line does not count the 400 failures:\n%s", out)
	}
}
