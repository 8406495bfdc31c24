package e2e

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestUnreachableCassandraAnswers503 starts Herald against a Cassandra that
// is not there: it must still start, report itself not ready, and answer
// API calls with a clear 503 instead of hanging or failing with 500. (That
// the engine recovers when Cassandra comes back is tested in cassandrastore
// against a real Cassandra behind a proxy that is cut and restored.)
func TestUnreachableCassandraAnswers503(t *testing.T) {
	dataDir := t.TempDir()
	s := startProcessNoWait(t, dataDir, []string{"serve", "--listen", "127.0.0.1:0", "--store", "cassandra",
		"--cassandra-hosts", "127.0.0.1:1", "--cassandra-keyspace", "herald_unreachable", "--cassandra-timeout", "1s"})

	resp, err := http.Get(s.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/healthz answered %d while Cassandra is unreachable, want 503", resp.StatusCode)
	}
	start := time.Now()
	status, body := rawRequest(t, "POST", s.URL+"/v1/messages", `{"metadata":{"paths":["a.b"]}}`)
	if status != http.StatusServiceUnavailable || time.Since(start) > 10*time.Second {
		t.Fatalf("put answered %d after %s, want a prompt 503", status, time.Since(start))
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Code != "unavailable" || !strings.Contains(e.Error.Message, "unavailable") {
		t.Fatalf("503 body %s is not a clear unavailable error", body)
	}
	if status, _ := rawRequest(t, "GET", s.URL+"/v1/latest?pattern=a.%23", ""); status != http.StatusServiceUnavailable {
		t.Fatalf("latest answered %d, want 503", status)
	}
}

// startProcessNoWait is startProcess for a server that is expected not to be
// ready: it waits for the listening line only.
func startProcessNoWait(t *testing.T, dataDir string, args []string) *server {
	t.Helper()
	cmd := exec.Command(heraldBin, args...)
	return launch(t, cmd, dataDir, false)
}
