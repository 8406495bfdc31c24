package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/load/sqsload"
)

func TestBenchSQSFlags(t *testing.T) {
	cfg, err := parseBenchSQSFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.load
	if cfg.scenario != "mix" || cfg.jsonOut || cfg.marks || l.Server != "http://127.0.0.1:4566" || l.Concurrency != 64 || l.Duration != 10*time.Second ||
		l.Requests != 0 || l.Queues != 1 || l.Batch != 1 || l.MessageSize != 1024 || l.Wait != 0 || l.Keep ||
		l.Mix != (sqsload.Mix{Sends: 1, Receives: 1, Delete: true}) || l.AccessKey != "" {
		t.Fatalf("defaults %+v", cfg)
	}

	t.Setenv("HERALD_SECRET_KEY", "from-env")
	cfg, err = parseBenchSQSFlags([]string{"--scenario", "idle-queues", "--queues", "100000", "--concurrency", "8", "--batch", "10",
		"--message-size", "256", "--mix", "send", "--wait", "2", "--requests", "500", "--duration", "0s", "--json", "--keep", "--marks",
		"--access-key", "AK", "--server", "http://h:1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l = cfg.load
	if cfg.scenario != "idle-queues" || !cfg.jsonOut || !cfg.marks || !l.Keep || l.Queues != 100000 || l.Concurrency != 8 || l.Batch != 10 ||
		l.MessageSize != 256 || l.Mix != (sqsload.Mix{Sends: 1}) || l.Wait != 2 || l.Requests != 500 || l.Duration != 0 ||
		l.AccessKey != "AK" || l.SecretKey != "from-env" || l.Server != "http://h:1" {
		t.Fatalf("parsed %+v", cfg)
	}
}

func TestBenchSQSRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--batch", "0"},
		{"--batch", "11"},
		{"--mix", "delete"},
		{"--mix", "peek"},
		{"--scenario", "chaos"},
		{"--access-key", "AK"},
		{"--wait", "30"},
		{"--server", "localhost:4566"},
		{"extra"},
	} {
		if _, err := parseBenchSQSFlags(args, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestBenchSQSIdleQueuesPrintsJSON(t *testing.T) {
	var created int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			io.WriteString(w, "process_resident_memory_bytes 1000\ngo_memstats_heap_inuse_bytes 500\n")
			return
		}
		switch r.Header.Get("X-Amz-Target") {
		case "AmazonSQS.CreateQueue":
			var in struct{ QueueName string }
			json.NewDecoder(r.Body).Decode(&in)
			created++
			json.NewEncoder(w).Encode(map[string]string{"QueueUrl": "http://" + r.Host + "/000000000000/" + in.QueueName})
		case "AmazonSQS.DeleteQueue":
			io.WriteString(w, "{}")
		default:
			http.Error(w, "unexpected", http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	var out bytes.Buffer
	err := runBench(t.Context(), []string{"sqs", "--server", srv.URL, "--scenario", "idle-queues", "--queues", "5",
		"--concurrency", "1", "--settle", "0s", "--json"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Scenario string  `json:"scenario"`
		Created  int     `json:"created"`
		PerQueue float64 `json:"resident_bytes_per_queue"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil || report.Scenario != "idle-queues" || report.Created != 5 || created != 5 {
		t.Fatalf("output %q (%v), server saw %d creates", out.String(), err, created)
	}
	if !strings.HasSuffix(out.String(), "}\n") {
		t.Fatalf("JSON output %q is not one document", out.String())
	}
}
