package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
)

// runCLI runs herald with args and returns its stdout, stderr and what main
// would print and exit with.
func runCLI(t *testing.T, args ...string) (stdout, stderr, line string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), args, &out, &errb)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return out.String(), errb.String(), "", 0
	}
	return out.String(), errb.String(), errorLine(err), 1
}

// TestHelpExitsZeroEverywhere asks every command, benchmark and rollup verb
// for --help (and -h): each prints its usage and exits 0, sending nothing
// anywhere.
func TestHelpExitsZeroEverywhere(t *testing.T) {
	var cases [][]string
	for _, c := range commands() {
		cases = append(cases, []string{c.name})
	}
	for _, b := range []string{"cache", "sqs", "sns", "ws", "rollups"} {
		cases = append(cases, []string{"bench", b})
	}
	for _, v := range []string{"put", "get", "list", "delete", "send", "backfill", "series", "totals", "top"} {
		cases = append(cases, []string{"rollup", v})
	}
	cases = append(cases, nil) // herald --help
	for _, prefix := range cases {
		for _, help := range []string{"--help", "-h"} {
			args := append(append([]string{}, prefix...), help)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				out, errOut, line, code := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, line)
				}
				if !strings.Contains(out+errOut, "sage") {
					t.Errorf("printed no usage: stdout %q stderr %q", out, errOut)
				}
			})
		}
	}
}

// TestMistakesAreOneLine: a mistake on the command line is one line that
// starts "herald CMD:" and ends with where to get help; the usage is not
// printed.
func TestMistakesAreOneLine(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"put", "--pth", "a.b"}, "herald put: unknown flag --pth; did you mean --path? (herald put --help)"},
		{[]string{"get", "--sever", "http://x", "ID"}, "herald get: unknown flag --sever; did you mean --server? (herald get --help)"},
		{[]string{"latest", "--zzzzzz", "a"}, "herald latest: unknown flag --zzzzzz (herald latest --help)"},
		{[]string{"serve", "--lisen", "x"}, "herald serve: unknown flag --lisen; did you mean --listen? (herald serve --help)"},
		{[]string{"bench", "cache", "--concurency", "2"}, "herald bench cache: unknown flag --concurency; did you mean --concurrency? (herald bench cache --help)"},
		{[]string{"peek", "q", "--limt", "2"}, "herald peek: unknown flag --limt; did you mean --limit? (herald peek --help)"},
		{[]string{"put", "--ttl", "soon", "--path", "a"}, `herald put: invalid value "soon" for flag --ttl: want seconds (3600) or a duration (1h, 90m, 30s) (herald put --help)`},
		{[]string{"put", "--path"}, "herald put: flag needs an argument: --path (herald put --help)"},
		{[]string{"queues", "--output", "yaml"}, `herald queues: invalid value "yaml" for flag --output: the formats are text and json (herald queues --help)`},
		{[]string{"gte", "x"}, `herald: unknown command "gte"; did you mean get? (herald --help lists the commands)`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, line, code := runCLI(t, tc.args...)
			if code != 1 || line != tc.want {
				t.Errorf("exit %d, printed %q; want %q", code, line, tc.want)
			}
			if out != "" || errOut != "" {
				t.Errorf("printed more than the error: stdout %q stderr %q", out, errOut)
			}
		})
	}
}

// TestRequiredArgumentsAreCheckedBeforeAnyRequest: a command missing what
// it needs fails without sending a request.
func TestRequiredArgumentsAreCheckedBeforeAnyRequest(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "unexpected", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"put", "--body", "hi"}, "needs a path"},
		{[]string{"put", "--metadata", "[1]", "--path", "a"}, "--metadata must be a JSON object"},
		{[]string{"put", "--path", "a", "--body", "x", "--body-file", "f"}, "give one"},
		{[]string{"get"}, "needs exactly one message_uuid"},
		{[]string{"all", "a", "b"}, "needs exactly one path"},
		{[]string{"journal", "--from", "yesterday"}, "--from"},
		{[]string{"journal", "--from", "-1h", "--to", "-2h"}, "must come before"},
		{[]string{"peek"}, "needs exactly one queue name"},
		{[]string{"peek", "q", "--limit", "101"}, "1 to 100"},
		{[]string{"queues", "extra"}, "takes no arguments"},
		{[]string{"rollup", "top", "--from", "last week", "r"}, "--from"},
		{[]string{"rollup", "frobnicate"}, "unknown rollup verb"},
		{[]string{"bench", "cache", "--ttl", "0"}, "--ttl"},
		{[]string{"bench", "nosuch"}, "unknown benchmark"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, _, line, code := runCLI(t, append(tc.args, "--server", srv.URL)...)
			if code != 1 || !strings.Contains(line, tc.want) || strings.Count(line, "herald") != 1+strings.Count(line, "(herald ") {
				t.Errorf("exit %d, printed %q; want an error saying %q with one herald prefix", code, line, tc.want)
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

func TestErrorLineHasOneHeraldPrefix(t *testing.T) {
	server := &client.Error{Status: 404, ErrorBody: api.ErrorBody{Code: "not_found", Message: "no message x"}}
	cases := []struct {
		err  error
		want string
	}{
		{server, "herald: 404 not_found: no message x"},
		{fmt.Errorf("preparing data: %w", server), "herald: preparing data: 404 not_found: no message x"},
		{errors.New("herald: herald: twice"), "herald: twice"},
		{errors.New("plain"), "herald: plain"},
	}
	for _, tc := range cases {
		if got := errorLine(tc.err); got != tc.want {
			t.Errorf("errorLine(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestParseTTL(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"3600", 3600, true},
		{"0", 0, true},
		{"1h", 3600, true},
		{"90m", 5400, true},
		{"1h30m15s", 5415, true},
		{"-5", 0, false},
		{"1.5s", 0, false},
		{"500ms", 0, false},
		{"-1h", 0, false},
		{"soon", 0, false},
	}
	for _, tc := range cases {
		got, err := parseTTL(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseTTL(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"now", now, true},
		{"-1h", now.Add(-time.Hour), true},
		{"-30m", now.Add(-30 * time.Minute), true},
		{"+5m", now.Add(5 * time.Minute), true},
		{"-1h30m", now.Add(-90 * time.Minute), true},
		{"2026-01-02T15:04:05Z", time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC), true},
		{"2026-01-02T15:04:05.5+01:00", time.Date(2026, 1, 2, 14, 4, 5, 5e8, time.UTC), true},
		{"1h", time.Time{}, false}, // ago or ahead? a sign is required
		{"-1d", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"2026-01-02", time.Time{}, false},
	}
	for _, tc := range cases {
		got, err := parseTime(tc.in, now)
		if (err == nil) != tc.ok || !got.Equal(tc.want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// fakeServer answers the given paths with the given JSON documents and
// records the query of every request.
func fakeServer(t *testing.T, answers map[string]any) (url string, queries *[]string) {
	t.Helper()
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path+"?"+r.URL.RawQuery)
		v, ok := answers[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(api.ErrorResponse{Error: api.ErrorBody{Code: "not_found", Message: "no " + r.URL.Path}})
			return
		}
		json.NewEncoder(w).Encode(v)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &seen
}

// TestOutputDecodesBodies: messages print their body as text when it is
// UTF-8, else as base64 said so, in text and in JSON.
func TestOutputDecodesBodies(t *testing.T) {
	text := api.Message{MessageUUID: "u1", Metadata: json.RawMessage(`{"paths": ["a.b"], "k": 1}`), Body: []byte("héllo"), ReceivedAt: "r", ExpiresAt: "e"}
	binary := api.Message{MessageUUID: "u2", Metadata: json.RawMessage(`{"paths":["a.c"]}`), Body: []byte{0xff, 0x00, 0x01}}
	url, _ := fakeServer(t, map[string]any{
		"/v1/messages/u1": text,
		"/v1/all":         api.MessagesResponse{Messages: []api.Message{text, binary}, NextCursor: "next"},
		"/v1/latest":      api.LatestResponse{Items: []api.LatestItem{{Path: "a.c", Message: binary}}},
		"/v1/paths":       api.PathsResponse{Paths: []string{"a.b", "a.c"}},
	})
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"get", "u1"}, []string{"message_uuid: u1", `metadata:     {"paths":["a.b"],"k":1}`, "body:         héllo"}},
		{[]string{"get", "u1", "--output", "json"}, []string{`"body": "héllo"`, `"body_encoding": "text"`, `"message_uuid": "u1"`}},
		{[]string{"all", "a.b"}, []string{"body:         héllo", "body (base64, not UTF-8): /wAB", "--cursor next"}},
		{[]string{"all", "a.b", "--output", "json"}, []string{`"body": "/wAB"`, `"body_encoding": "base64"`, `"next_cursor": "next"`}},
		{[]string{"latest", "a.#"}, []string{"path:         a.c", "body (base64, not UTF-8): /wAB"}},
		{[]string{"latest", "a.#", "--output", "json"}, []string{`"path": "a.c"`, `"body_encoding": "base64"`}},
		{[]string{"paths", "a"}, []string{"a.b\na.c\n"}},
		{[]string{"paths", "a", "--output", "json"}, []string{`"paths": [`}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, _, line, code := runCLI(t, append(tc.args, "--server", url)...)
			if code != 0 {
				t.Fatal(line)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(tc.args[len(tc.args)-1], "json") && !json.Valid([]byte(out)) {
				t.Errorf("--output json printed invalid JSON:\n%s", out)
			}
		})
	}
}

// TestAdminCommands: queues, topics, peek and sqs-reindex call the admin API and print
// tables (text) or its JSON.
func TestAdminCommands(t *testing.T) {
	now := time.Now().UTC()
	url, queries := fakeServer(t, map[string]any{
		"/v1/admin/queues": client.QueuesResponse{Queues: []client.Queue{
			{Name: "jobs", FIFO: false, Visible: 3, InFlight: 2, Delayed: 1, DeadLetterTarget: "arn:aws:sqs:us-east-1:000000000000:jobs-dlq"},
			{Name: "orders.fifo", FIFO: true},
		}},
		"/v1/admin/topics": client.TopicsResponse{Topics: []client.Topic{
			{Name: "alerts", ARN: "arn:aws:sns:us-east-1:000000000000:alerts", Subscriptions: []client.Subscription{
				{SubscriptionARN: "arn:aws:sns:us-east-1:000000000000:alerts:1", Protocol: "sqs", Endpoint: "arn:aws:sqs:us-east-1:000000000000:jobs"},
				{SubscriptionARN: "PendingConfirmation", Protocol: "http", Endpoint: "http://example.test/hook"},
			}},
			{Name: "quiet", ARN: "arn:aws:sns:us-east-1:000000000000:quiet"},
		}},
		"/v1/admin/queues/jobs/peek": client.PeekResponse{Messages: []client.PeekedMessage{
			{MessageID: "m1", Body: "first job", BodyEncoding: "text", SentAt: now, ReceiveCount: 2, VisibleAt: now.Add(time.Hour)},
			{MessageID: "m2", Body: "/wAB", BodyEncoding: "base64", SentAt: now, GroupID: "g"},
		}},
		"/v1/admin/sqs/reindex": client.ReindexResult{Epoch: 1800000000000},
	})
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"queues"}, []string{"NAME", "IN FLIGHT", "jobs         standard  3        2          1        jobs-dlq", "orders.fifo  fifo"}},
		{[]string{"queues", "--output", "json"}, []string{`"name": "jobs"`, `"in_flight": 2`, `"delayed": 1`}},
		{[]string{"topics"}, []string{"alerts  (arn:aws:sns:us-east-1:000000000000:alerts)", "sqs       confirmed  arn:aws:sqs:us-east-1:000000000000:jobs", "http      pending    http://example.test/hook", "quiet", "(no subscriptions)"}},
		{[]string{"topics", "--output", "json"}, []string{`"Protocol": "http"`, `"SubscriptionARN": "PendingConfirmation"`}},
		{[]string{"peek", "jobs", "--limit", "2"}, []string{"message_id:   m1", "receives:     2", "hidden until:", "body:         first job", "group:        g", "body (base64, not UTF-8): /wAB"}},
		{[]string{"peek", "jobs", "--output", "json"}, []string{`"body_encoding": "base64"`, `"receive_count": 2`}},
		{[]string{"sqs-reindex"}, []string{"index epoch of http://127.0.0.1:", "is now 1800000000000", "rebuild each queue's Redis state"}},
		{[]string{"sqs-reindex", "--output", "json"}, []string{`"epoch": 1800000000000`}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, _, line, code := runCLI(t, append(tc.args, "--server", url)...)
			if code != 0 {
				t.Fatal(line)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	if got := strings.Join(*queries, " "); !strings.Contains(got, "/v1/admin/queues/jobs/peek?limit=2") || !strings.Contains(got, "/v1/admin/queues/jobs/peek?limit=10") {
		t.Errorf("peek asked %s, want limit=2 then the default 10", got)
	}
	_, _, line, code := runCLI(t, "peek", "nosuch", "--server", url)
	if code != 1 || line != "herald: 404 not_found: no /v1/admin/queues/nosuch/peek" {
		t.Errorf("peek of a missing queue: exit %d %q", code, line)
	}
}

// TestBenchCacheDefaultsSuitALaptop: small, short runs by default, and what
// it writes expires.
func TestBenchCacheWritesExpireAndDefaultsAreSmall(t *testing.T) {
	var puts []api.PutRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/messages":
			var p api.PutRequest
			json.NewDecoder(r.Body).Decode(&p)
			puts = append(puts, p)
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"message_uuid":"x","replica_uuid":"y"}`)
		default:
			http.Error(w, "unexpected", http.StatusTeapot)
		}
	}))
	t.Cleanup(srv.Close)
	var out, errb bytes.Buffer
	err := run(t.Context(), []string{"bench", "cache", "--server", srv.URL, "--ops", "put", "--duration", "200ms", "--concurrency", "1", "--ttl", "2m"}, &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if len(puts) == 0 {
		t.Fatal("no puts")
	}
	for _, p := range puts {
		if p.TTL == nil || *p.TTL != 120 {
			t.Fatalf("a put had TTL %v, want 120", p.TTL)
		}
	}
	if !strings.Contains(errb.String(), "TTL of 2m0s") || !strings.Contains(errb.String(), "expire") {
		t.Errorf("bench cache did not say where it writes and that it expires: %q", errb.String())
	}
	_, errText, _, _ := runCLI(t, "bench", "cache", "--help")
	for _, def := range []string{"(default 8)", "(default 5s)", "(default 1000)", "(default 600)"} {
		if !strings.Contains(errText, def) {
			t.Errorf("bench cache --help lacks %s", def)
		}
	}
}

// TestRollupBackfillCLI: `herald rollup backfill` posts the range (and
// start) to the rollup's backfill route and prints the answer; --from is
// required.
func TestRollupBackfillCLI(t *testing.T) {
	var got map[string]string
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.Method + " " + r.URL.Path
		json.NewDecoder(r.Body).Decode(&got)
		io.WriteString(w, `{"counted": 2, "parts": ["metrics.fouls"]}`)
	}))
	t.Cleanup(srv.Close)
	out, _, _, code := runCLI(t, "rollup", "backfill", "--server", srv.URL, "--from", "2026-12-06T00:00:00Z", "--to", "2026-12-07T00:00:00Z",
		"--start", "2026-12-06T12:00:10Z", "scores")
	if code != 0 || path != "POST /v1/rollups/scores/backfill" {
		t.Fatalf("exit %d, request %q", code, path)
	}
	want := map[string]string{"from": "2026-12-06T00:00:00Z", "to": "2026-12-07T00:00:00Z", "start": "2026-12-06T12:00:10Z"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("body %v, want %v", got, want)
	}
	if !strings.Contains(out, `"counted": 2`) {
		t.Errorf("output %q", out)
	}
	if _, _, line, code := runCLI(t, "rollup", "backfill", "--server", srv.URL, "scores"); code == 0 || !strings.Contains(line, "--from is required") {
		t.Errorf("without --from: exit %d, %q", code, line)
	}
}
