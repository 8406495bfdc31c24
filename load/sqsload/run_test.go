package sqsload

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
)

func testConfig(f *fakeSQS, mix string, change func(*Config)) Config {
	m, err := ParseMix(mix)
	if err != nil {
		panic(err)
	}
	c := Config{Server: f.srv.URL, Concurrency: 2, Requests: 10, Queues: 2, Batch: 3, MessageSize: 16,
		Mix: m, Visibility: -1, Prefill: -1}
	if change != nil {
		change(&c)
	}
	return c
}

// byName indexes a report's per-action results.
func byName(rs []loadgen.Result) map[string]loadgen.Result {
	out := map[string]loadgen.Result{}
	for _, r := range rs {
		out[r.Name] = r
	}
	return out
}

func TestMixCycleCountsEachCallUnderItsAction(t *testing.T) {
	cases := []struct {
		name        string
		batch       int
		send, del   string
		perCallMsgs int
	}{
		{"single messages", 1, ActionSendMessage, ActionDeleteMessage, 1},
		{"batches of three", 3, ActionSendMessageBatch, ActionDeleteMessageBatch, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeSQS(t)
			// Two workers on two queues: worker w always uses queue w, so each
			// receive finds exactly what its own send put there.
			r, err := RunMix(t.Context(), testConfig(f, "send=1,receive=1,delete=1", func(c *Config) { c.Batch = tc.batch }))
			if err != nil {
				t.Fatal(err)
			}
			got := byName(r.Actions)
			if len(r.Actions) != 3 || r.Actions[0].Name != tc.send || r.Actions[1].Name != ActionReceiveMessage || r.Actions[2].Name != tc.del {
				t.Fatalf("actions %v, want %s, ReceiveMessage, %s in that order", names(r.Actions), tc.send, tc.del)
			}
			for _, action := range []string{tc.send, ActionReceiveMessage, tc.del} {
				a := got[action]
				if a.Calls != 10 || a.Items != 10*tc.perCallMsgs || a.Errors != 0 {
					t.Errorf("%s: %d calls, %d messages, %d errors; want 10 calls of %d messages (10 cycles)", action, a.Calls, a.Items, a.Errors, tc.perCallMsgs)
				}
				if len(f.requestsOf(action)) != 10 {
					t.Errorf("%s: the server got %d calls, want 10", action, len(f.requestsOf(action)))
				}
			}
			if r.All.Calls != 30 || r.Cycles.Calls != 10 {
				t.Errorf("all %d calls, %d cycles; want 30 and 10", r.All.Calls, r.Cycles.Calls)
			}
			if r.CallsPerSec <= 0 || r.SentPerSec <= 0 || r.SentPerSec != r.DeletedPerSec || r.SentPerSec != r.ReceivedPerSec {
				t.Errorf("rates: %v calls/s, %v sent/s, %v received/s, %v deleted/s", r.CallsPerSec, r.SentPerSec, r.ReceivedPerSec, r.DeletedPerSec)
			}
			if f.messageCount() != 0 || f.queueCount() != 0 {
				t.Errorf("%d messages and %d queues left; every message deleted and the queues too", f.messageCount(), f.queueCount())
			}
			for _, req := range f.requestsOf(ActionReceiveMessage) {
				if req.Body["MaxNumberOfMessages"] != float64(tc.batch) {
					t.Fatalf("receive asked for %v messages, want the batch size %d", req.Body["MaxNumberOfMessages"], tc.batch)
				}
			}
		})
	}
}

func names(rs []loadgen.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestSendOnlyMixLeavesMessagesAndKeepLeavesQueues(t *testing.T) {
	f := newFakeSQS(t)
	r, err := RunMix(t.Context(), testConfig(f, "send", func(c *Config) { c.Keep = true; c.QueuePrefix = "kept" }))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Actions) != 1 || r.Actions[0].Name != ActionSendMessageBatch || r.Actions[0].Items != 30 {
		t.Fatalf("actions %+v, want only 10 SendMessageBatch calls of 3", r.Actions)
	}
	if f.messageCount() != 30 || f.queueCount() != 2 || r.QueuesLeft != "kept" {
		t.Fatalf("%d messages in %d queues, left %q; want 30 in the 2 kept queues", f.messageCount(), f.queueCount(), r.QueuesLeft)
	}
	if len(f.requestsOf(ActionDeleteQueue)) != 0 {
		t.Fatal("--keep deleted queues")
	}
}

func TestReceiveOnlyMixPrefillsAndKeepsMessagesVisible(t *testing.T) {
	f := newFakeSQS(t)
	r, err := RunMix(t.Context(), testConfig(f, "receive", func(c *Config) { c.Requests = 20 }))
	if err != nil {
		t.Fatal(err)
	}
	if r.Prefilled != 2*1000 {
		t.Fatalf("prefilled %d, want 1000 per queue by default", r.Prefilled)
	}
	recv := byName(r.Actions)[ActionReceiveMessage]
	if len(r.Actions) != 1 || recv.Calls != 20 || recv.Items != 60 {
		t.Fatalf("actions %+v, want 20 receives of 3", r.Actions)
	}
	for _, req := range f.requestsOf(ActionReceiveMessage) {
		if req.Body["VisibilityTimeout"] != 0.0 {
			t.Fatalf("receive-only load sent VisibilityTimeout %v, want 0 so messages come back", req.Body["VisibilityTimeout"])
		}
	}
}

func TestMixErrorsAreCountedPerAction(t *testing.T) {
	f := newFakeSQS(t)
	f.failDeletes = true
	r, err := RunMix(t.Context(), testConfig(f, "send=1,receive=1,delete=1", nil))
	if err != nil {
		t.Fatal(err)
	}
	del := byName(r.Actions)[ActionDeleteMessageBatch]
	if del.Errors != 10 || del.Calls != 0 || !strings.Contains(del.FirstError, "ReceiptHandleIsInvalid") {
		t.Fatalf("delete result %+v, want 10 errors naming the failed entry", del)
	}
	if byName(r.Actions)[ActionSendMessageBatch].Errors != 0 || r.All.Errors != 10 {
		t.Fatalf("errors leaked to other actions: %+v", r.Actions)
	}
}

func TestMixReportJSON(t *testing.T) {
	f := newFakeSQS(t)
	r, err := RunMix(t.Context(), testConfig(f, "send=1,receive=1,delete=1", nil))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenario    string  `json:"scenario"`
		Mix         string  `json:"mix"`
		Batch       int     `json:"batch"`
		CallsPerSec float64 `json:"calls_per_sec"`
		Sent        float64 `json:"messages_sent_per_sec"`
		Actions     []struct {
			Name  string  `json:"name"`
			Calls int     `json:"calls"`
			P50   int64   `json:"p50_ns"`
			P90   int64   `json:"p90_ns"`
			P99   int64   `json:"p99_ns"`
			P999  int64   `json:"p999_ns"`
			Rate  float64 `json:"items_per_sec"`
		} `json:"actions"`
		All struct {
			Calls int `json:"calls"`
		} `json:"all"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Scenario != "mix" || doc.Mix != "send=1,receive=1,delete=1" || doc.Batch != 3 || doc.CallsPerSec <= 0 || doc.Sent <= 0 || doc.All.Calls != 30 {
		t.Fatalf("JSON report %s", raw)
	}
	for _, a := range doc.Actions {
		if a.Calls != 10 || a.P50 <= 0 || a.P50 > a.P90 || a.P90 > a.P99 || a.P99 > a.P999 {
			t.Fatalf("action %+v lacks calls or ordered percentiles in %s", a, raw)
		}
	}
	text := r.String()
	for _, want := range []string{"SendMessageBatch", "ReceiveMessage", "DeleteMessageBatch", "p99.9", "API calls/s"} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
}

func TestIdleQueuesReportsTimeAndMemoryPerQueue(t *testing.T) {
	f := newFakeSQS(t)
	r, err := RunIdleQueues(t.Context(), Config{Server: f.srv.URL, Concurrency: 4, Queues: 50, Batch: 1, MessageSize: 1, Visibility: -1, Prefill: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Created != 50 || r.Create.Calls != 50 || r.Elapsed <= 0 || r.QueuesPerSec <= 0 {
		t.Fatalf("report %+v, want 50 queues created with a time", r)
	}
	if r.MemoryError != "" || r.ResidentBytesPerQueue != residentPerQueue || r.HeapInuseBytesPerQueue != heapPerQueue {
		t.Fatalf("per queue: resident %v heap %v (%s); want %d and %d", r.ResidentBytesPerQueue, r.HeapInuseBytesPerQueue, r.MemoryError, residentPerQueue, heapPerQueue)
	}
	if r.Before.ResidentBytes != residentBase || r.After.HeapInuseBytes != heapBase+50*heapPerQueue {
		t.Fatalf("memory before %+v after %+v", r.Before, r.After)
	}
	if f.queueCount() != 0 || r.Delete == nil || r.Delete.Calls != 50 {
		t.Fatalf("%d queues left after the run (delete %+v)", f.queueCount(), r.Delete)
	}
	if !strings.Contains(r.String(), "bytes/queue") {
		t.Fatalf("text report lacks the per-queue memory:\n%s", r)
	}
}

func TestIdleQueuesWithoutMetricsStillReportsTime(t *testing.T) {
	f := newFakeSQS(t)
	f.noMetrics = true
	r, err := RunIdleQueues(t.Context(), Config{Server: f.srv.URL, Concurrency: 2, Queues: 3, Batch: 1, MessageSize: 1, Keep: true, QueuePrefix: "idle"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Created != 3 || r.Elapsed <= 0 || r.Before != nil || !strings.Contains(r.MemoryError, "404") {
		t.Fatalf("report %+v, want 3 queues timed and the missing /metrics named", r)
	}
	if f.queueCount() != 3 || r.Delete != nil || r.QueuesLeft != "idle" {
		t.Fatalf("--keep: %d queues left, delete %+v", f.queueCount(), r.Delete)
	}
}

func TestParseMemory(t *testing.T) {
	text := `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 1.2345678e+07
go_memstats_heap_inuse_bytes_other 1
go_memstats_heap_inuse_bytes{instance="a"} 4096 1700000000000
`
	m, err := parseMemory(strings.NewReader(text))
	if err != nil || m.ResidentBytes != 12345678 || m.HeapInuseBytes != 4096 {
		t.Fatalf("parseMemory = %+v, %v", m, err)
	}
	if _, err := parseMemory(strings.NewReader("up 1\n")); err == nil {
		t.Fatal("metrics without memory gauges were accepted")
	}
}

func TestParseMix(t *testing.T) {
	cases := []struct {
		text string
		want Mix
		bad  bool
	}{
		{text: "send=1,receive=1,delete=1", want: Mix{Sends: 1, Receives: 1, Delete: true}},
		{text: "send", want: Mix{Sends: 1}},
		{text: "receive", want: Mix{Receives: 1}},
		{text: " send=2 , receive=1 ", want: Mix{Sends: 2, Receives: 1}},
		{text: "receive,delete", want: Mix{Receives: 1, Delete: true}},
		{text: "", bad: true},
		{text: "delete", bad: true},
		{text: "send=x", bad: true},
		{text: "send=-1", bad: true},
		{text: "peek=1", bad: true},
		{text: "receive,delete=2", bad: true},
	}
	for _, tc := range cases {
		got, err := ParseMix(tc.text)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseMix(%q) accepted: %+v", tc.text, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseMix(%q) = %+v, %v; want %+v", tc.text, got, err, tc.want)
		}
		if again, _ := ParseMix(got.String()); again != got {
			t.Errorf("ParseMix(%q.String()) = %+v", got, again)
		}
	}
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	base := Config{Server: "http://x", Concurrency: 1, Queues: 1, Batch: 1, MessageSize: 1, Mix: Mix{Sends: 1}, Visibility: -1, Prefill: -1}
	got, err := base.withDefaults()
	if err != nil || got.Duration != 10*time.Second || got.Visibility != -1 || got.Prefill != 0 || !strings.HasPrefix(got.QueuePrefix, "herald-bench-") {
		t.Fatalf("defaults %+v, %v", got, err)
	}
	for name, change := range map[string]func(*Config){
		"no server":      func(c *Config) { c.Server = "" },
		"not a URL":      func(c *Config) { c.Server = "127.0.0.1:4566" },
		"no workers":     func(c *Config) { c.Concurrency = 0 },
		"no queues":      func(c *Config) { c.Queues = 0 },
		"batch of 0":     func(c *Config) { c.Batch = 0 },
		"batch of 11":    func(c *Config) { c.Batch = 11 },
		"empty messages": func(c *Config) { c.MessageSize = 0 },
		"wait 21":        func(c *Config) { c.Wait = 21 },
	} {
		c := base
		change(&c)
		if _, err := c.withDefaults(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestTallyMergesWorkersAndOrdersActions(t *testing.T) {
	tally := NewTally(2)
	tally.Record(1, ActionDeleteMessage, 3*time.Millisecond, 1, nil)
	tally.Record(0, ActionSendMessage, time.Millisecond, 1, nil)
	tally.Record(1, ActionSendMessage, 2*time.Millisecond, 1, nil)
	tally.Record(0, ActionSendMessage, 0, 0, errors.New("boom"))
	perAction, all := tally.Results(time.Second, 2)
	if got := names(perAction); strings.Join(got, ",") != "SendMessage,DeleteMessage" {
		t.Fatalf("order %v", got)
	}
	send := perAction[0]
	if send.Calls != 2 || send.Items != 2 || send.Errors != 1 || send.FirstError != "boom" || send.Max != 2*time.Millisecond {
		t.Fatalf("send %+v", send)
	}
	if all.Calls != 3 || all.Items != 3 || all.Errors != 1 || all.CallsPerSec != 3 || all.Max != 3*time.Millisecond {
		t.Fatalf("all %+v", all)
	}
}

// markWriter notes, for each mark, the targets of the requests the fake
// had got when it was written.
type markWriter struct {
	f     *fakeSQS
	marks map[string][]string
}

func (m *markWriter) Write(p []byte) (int, error) {
	m.f.mu.Lock()
	defer m.f.mu.Unlock()
	var targets []string
	for _, r := range m.f.requests {
		targets = append(targets, strings.TrimPrefix(r.Target, "AmazonSQS."))
	}
	m.marks[strings.TrimSpace(string(p))] = targets
	return len(p), nil
}

func TestMixMarksItsMeasuredPhase(t *testing.T) {
	f := newFakeSQS(t)
	marks := &markWriter{f: f, marks: map[string][]string{}}
	if _, err := RunMix(t.Context(), testConfig(f, "send=1,receive=1,delete=1", func(c *Config) { c.Marks = marks })); err != nil {
		t.Fatal(err)
	}
	start, end := marks.marks[MarkLoadStart], marks.marks[MarkLoadEnd]
	if len(marks.marks) != 2 || strings.Join(start, ",") != "CreateQueue,CreateQueue" {
		t.Fatalf("marks %v", marks.marks)
	}
	if len(end) != 2+30 || slices.Contains(end, ActionDeleteQueue) {
		t.Fatalf("at the end mark: %v", end)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if last := f.requests[len(f.requests)-1].Target; last != "AmazonSQS.DeleteQueue" {
		t.Fatalf("last request %s", last)
	}
}

// With Servers, worker w calls Servers[w mod len]: each worker's client is
// its door's, and a mix of four workers over two doors of one set of
// queues sends through both, creating the queues through the first.
func TestMixSpreadsWorkersOverServers(t *testing.T) {
	f := newFakeSQS(t)
	doors := []string{f.srv.URL, f.secondDoor(t)}
	cfg := testConfig(f, "send=1,receive=1,delete=1", func(c *Config) {
		c.Server, c.Servers, c.Concurrency, c.Requests, c.Queues = "", doors, 4, 40, 4
	})
	checked, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	clients, closeAll := checked.workerClients(checked.client())
	for w, c := range clients {
		if want := doors[w%2] + "/"; c.endpoint != want {
			t.Errorf("worker %d calls %s, want %s", w, c.endpoint, want)
		}
	}
	closeAll()

	r, err := RunMix(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.All.Errors != 0 {
		t.Fatalf("%d errors, first: %s", r.All.Errors, r.All.FirstError)
	}
	perHost := map[string]int{}
	for _, req := range f.requestsOf(ActionSendMessageBatch) {
		perHost[req.Host]++
	}
	total := 0
	for _, d := range doors {
		n := perHost[strings.TrimPrefix(d, "http://")]
		if n == 0 {
			t.Errorf("no send went through %s: %v", d, perHost)
		}
		total += n
	}
	if total != 40 {
		t.Errorf("%d sends in all, want 40 (one a cycle): %v", total, perHost)
	}
	for _, c := range f.requestsOf(ActionCreateQueue) {
		if c.Host != strings.TrimPrefix(doors[0], "http://") {
			t.Errorf("CreateQueue through %s, want the first server", c.Host)
		}
	}
}

// Config.Tags go with every CreateQueue of the run, as the JSON protocol's
// "tags" member.
func TestMixCreatesQueuesWithTags(t *testing.T) {
	f := newFakeSQS(t)
	_, err := RunMix(t.Context(), testConfig(f, "send=1,receive=1,delete=1", func(c *Config) {
		c.Tags = map[string]string{"herald:shards": "16"}
	}))
	if err != nil {
		t.Fatal(err)
	}
	creates := f.requestsOf(ActionCreateQueue)
	if len(creates) != 2 {
		t.Fatalf("%d CreateQueue calls, want 2", len(creates))
	}
	for _, c := range creates {
		tags, _ := c.Body["tags"].(map[string]any)
		if tags["herald:shards"] != "16" || len(tags) != 1 {
			t.Errorf("CreateQueue tags %v, want herald:shards=16", c.Body["tags"])
		}
	}
}
