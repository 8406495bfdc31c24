package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/api"
)

// TestSIGKILLLosesNoAcknowledgedPut puts messages from many clients, kills
// the server with SIGKILL mid-stream, restarts it on the same data directory
// and checks that every put the server acknowledged is there, intact.
func TestSIGKILLLosesNoAcknowledgedPut(t *testing.T) {
	eachEngine(t, testSIGKILLLosesNoAcknowledgedPut)
}

func testSIGKILLLosesNoAcknowledgedPut(t *testing.T, e engine) {
	dataDir := t.TempDir()
	s := e.start(t, dataDir)
	c := s.client()
	root := uniqueWord(t)

	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	acked := map[string]string{} // message_uuid -> body
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				body := fmt.Sprintf("worker %d message %d", w, i)
				resp, _, err := c.Put(ctx, api.PutRequest{Metadata: meta(fmt.Sprintf("%s.w%d", root, w)), Body: []byte(body)})
				if err != nil {
					return // the server died; unacknowledged puts may be lost
				}
				mu.Lock()
				acked[resp.MessageUUID] = body
				mu.Unlock()
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	s.kill(t)
	cancel()
	wg.Wait()
	if len(acked) < 100 {
		t.Fatalf("only %d puts acknowledged before the kill; the test needs more load", len(acked))
	}

	restarted := e.start(t, dataDir)
	rc, rctx := restarted.client(), testContext(t)
	for id, body := range acked {
		got, err := rc.Get(rctx, id)
		if err != nil {
			t.Fatalf("acknowledged message %s lost after SIGKILL: %v", id, err)
		}
		if string(got.Body) != body {
			t.Fatalf("message %s body %q after restart, want %q", id, got.Body, body)
		}
	}
	t.Logf("%d acknowledged puts all survived SIGKILL", len(acked))
}

func TestMetricsExposeRequestsAndStoreLatency(t *testing.T) {
	s := startServer(t, "")
	c, ctx := s.client(), testContext(t)
	if _, _, err := c.Put(ctx, api.PutRequest{Metadata: meta(uniqueWord(t) + ".m")}); err != nil {
		t.Fatal(err)
	}
	c.Get(ctx, "not-a-uuid")
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	text := string(raw)
	for _, want := range []string{
		`herald_http_requests_total{method="POST",route="/v1/messages",status="201"} 1`,
		`herald_http_requests_total{method="GET",route="/v1/messages/{uuid}",status="400"} 1`,
		`herald_http_request_duration_seconds_bucket{method="POST",route="/v1/messages"`,
		`herald_store_operation_duration_seconds_count{op="put_message",result="ok"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
