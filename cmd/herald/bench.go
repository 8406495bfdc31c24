package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
	"github.com/heraldmq/herald/load/loadgen"
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "sqs" {
		return runBenchSQS(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "sns" {
		return runBenchSNS(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "ws" {
		return runBenchWS(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "rollups" {
		return runBenchRollups(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "alert" {
		return runBenchAlert(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "tenants" {
		return runBenchTenants(ctx, args[1:], stdout, stderr)
	}
	const usage = "usage: herald bench cache|sqs|sns|ws|rollups|alert|tenants [flags]; 'herald bench KIND --help' lists a benchmark's flags"
	switch {
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprintln(stdout, usage)
		return flag.ErrHelp
	case len(args) == 0:
		return errors.New("bench needs a benchmark: cache, sqs, sns, ws, rollups, alert or tenants (herald bench --help)")
	case args[0] != "cache":
		return fmt.Errorf("unknown benchmark %q: the benchmarks are cache, sqs, sns, ws, rollups, alert and tenants (herald bench --help)", args[0])
	}
	return runBenchCache(ctx, args[1:], stdout, stderr)
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// benchCacheConfig is what 'herald bench cache' is told.
type benchCacheConfig struct {
	server      string
	concurrency int
	duration    time.Duration
	bodyBytes   int
	ops         string
	subtree     int
	pageLimit   int
	ttl         int64 // seconds: what the benchmark writes expires by itself
	jsonOut     bool
}

func runBenchCache(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg benchCacheConfig
	fs := newFlagSet("bench cache", "bench cache [flags]   load a running server's cache API", stderr)
	fs.StringVar(&cfg.server, "server", "http://127.0.0.1:4566", "Herald server to load (only ever this address)")
	fs.IntVar(&cfg.concurrency, "concurrency", 8, "concurrent clients, each with its own connection (64 for the figures of BENCHMARKS.md)")
	fs.DurationVar(&cfg.duration, "duration", 5*time.Second, "how long each operation is run")
	fs.IntVar(&cfg.bodyBytes, "body-bytes", 1024, "body size of put messages")
	fs.StringVar(&cfg.ops, "ops", "put,latest,all", "operations to run, in order: put, latest, all")
	fs.IntVar(&cfg.subtree, "subtree-paths", 1000, "paths in the subtree the latest operation queries")
	fs.IntVar(&cfg.pageLimit, "page-limit", 1000, "page size of the latest and all operations")
	cfg.ttl = 600
	fs.Var(ttlValue{&cfg.ttl}, "ttl", "TTL of every message the benchmark writes (seconds or a duration): they are left to expire, under the prefix bench-<random word>")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print results as JSON instead of text")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	case cfg.concurrency < 1, cfg.subtree < 1, cfg.pageLimit < 1, cfg.bodyBytes < 0:
		return usageErrorf(fs, "--concurrency, --subtree-paths and --page-limit must be at least 1")
	case cfg.duration <= 0:
		return usageErrorf(fs, "--duration must be positive")
	case cfg.ttl < 1:
		return usageErrorf(fs, "--ttl must be at least 1s: the benchmark's messages are left to expire")
	}
	transport := &http.Transport{MaxIdleConns: cfg.concurrency * 2, MaxIdleConnsPerHost: cfg.concurrency * 2, IdleConnTimeout: time.Minute}
	b := &cacheBench{cfg: cfg, c: client.New(cfg.server, &http.Client{Transport: transport, Timeout: time.Minute}),
		run: "bench-" + uuid.NewString()[:8], body: make([]byte, cfg.bodyBytes)}
	// The cache has no delete: what the run writes stays readable under its
	// own prefix until its TTL ends. Say so, on stderr (stdout is the report).
	fmt.Fprintf(stderr, "bench cache: writing under %s.* with a TTL of %s; the messages expire by themselves\n", b.run, time.Duration(cfg.ttl)*time.Second)
	var results []loadgen.Result
	for _, op := range strings.Split(cfg.ops, ",") {
		r, err := b.runOp(ctx, strings.TrimSpace(op), stderr)
		if err != nil {
			return err
		}
		results = append(results, r)
		if !cfg.jsonOut {
			fmt.Fprintln(stdout, r)
		}
	}
	if cfg.jsonOut {
		return json.NewEncoder(stdout).Encode(results)
	}
	return nil
}

// cacheBench holds one benchmark run's client and data.
type cacheBench struct {
	cfg  benchCacheConfig
	c    *client.Client
	run  string // a word unique to this run, so runs never see each other's data
	body []byte
}

func (b *cacheBench) load(ctx context.Context, name string, progress io.Writer, op loadgen.Op) loadgen.Result {
	lc := loadgen.Config{Concurrency: b.cfg.concurrency, Duration: b.cfg.duration}
	if f, ok := progress.(*os.File); ok && isTerminal(f) {
		lc.Progress = progress
	}
	return loadgen.Run(ctx, name, lc, op)
}

func (b *cacheBench) runOp(ctx context.Context, op string, progress io.Writer) (loadgen.Result, error) {
	switch op {
	case "put":
		// The body is encoded once: the load generator should spend its CPU
		// on requests, not on base64.
		body64 := base64.StdEncoding.EncodeToString(b.body)
		ttl := strconv.FormatInt(b.cfg.ttl, 10)
		return b.load(ctx, "put", progress, func(ctx context.Context, w, seq int) (int, error) {
			doc := `{"metadata":{"paths":["` + b.run + ".put.w" + strconv.Itoa(w) + ".m" + strconv.Itoa(seq%1000) + `"]},"body":"` + body64 + `","ttl":` + ttl + `}`
			_, _, err := b.c.PutJSON(ctx, []byte(doc))
			return 1, err
		}), nil
	case "latest":
		cursors, err := b.fillSubtree(ctx)
		if err != nil {
			return loadgen.Result{}, err
		}
		pattern := b.run + ".latest.#"
		return b.load(ctx, fmt.Sprintf("latest-%d", b.cfg.pageLimit), progress, func(ctx context.Context, w, seq int) (int, error) {
			page := client.PageOptions{Limit: b.cfg.pageLimit, Cursor: cursors[(w+seq)%len(cursors)]}
			resp, err := b.c.Latest(ctx, pattern, page)
			return len(resp.Items), err
		}), nil
	case "all":
		path := b.run + ".all.path"
		if err := b.putMany(ctx, 1000, func(int) string { return path }); err != nil {
			return loadgen.Result{}, err
		}
		return b.load(ctx, fmt.Sprintf("all-first-%d", b.cfg.pageLimit), progress, func(ctx context.Context, w, seq int) (int, error) {
			resp, err := b.c.All(ctx, path, client.PageOptions{Limit: b.cfg.pageLimit})
			return len(resp.Messages), err
		}), nil
	}
	return loadgen.Result{}, fmt.Errorf("unknown operation %q (put, latest, all)", op)
}

// fillSubtree stores one message in each of cfg.subtree paths and returns
// the cursors of the subtree's pages.
func (b *cacheBench) fillSubtree(ctx context.Context) ([]string, error) {
	err := b.putMany(ctx, b.cfg.subtree, func(i int) string {
		return fmt.Sprintf("%s.latest.c%d.k%d", b.run, i%10, i)
	})
	if err != nil {
		return nil, err
	}
	cursors := []string{""}
	for {
		resp, err := b.c.Latest(ctx, b.run+".latest.#", client.PageOptions{Limit: b.cfg.pageLimit, Cursor: cursors[len(cursors)-1]})
		if err != nil {
			return nil, err
		}
		if resp.NextCursor == "" {
			return cursors, nil
		}
		cursors = append(cursors, resp.NextCursor)
	}
}

// putMany stores n messages in batches of 100, the i-th under path(i).
func (b *cacheBench) putMany(ctx context.Context, n int, path func(int) string) error {
	for start := 0; start < n; start += 100 {
		var batch []api.PutRequest
		for i := start; i < min(n, start+100); i++ {
			batch = append(batch, api.PutRequest{Metadata: pathsMetadata(path(i)), Body: b.body, TTL: &b.cfg.ttl})
		}
		resp, err := b.c.PutBatch(ctx, batch)
		if err != nil {
			return fmt.Errorf("preparing data: %w", err)
		}
		for _, r := range resp.Results {
			if r.Error != nil {
				return fmt.Errorf("preparing data: %s", r.Error.Message)
			}
		}
	}
	return nil
}

func pathsMetadata(path string) json.RawMessage {
	return json.RawMessage(`{"paths":["` + path + `"]}`)
}

func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
