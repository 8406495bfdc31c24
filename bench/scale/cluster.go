package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupRoot is where scripts/cluster keeps its groups' CPU time
// (cgroup v1 cpuacct); the group names are scripts/cluster's.
const cgroupRoot = "/sys/fs/cgroup/cpuacct/herald-cluster"

// cluster is the miniature cluster of scripts/cluster: its service tier
// (Cassandra ring, Redis, RabbitMQ) and the Herald nodes this run starts.
type cluster struct {
	script string            // scripts/cluster
	herald string            // the herald binary
	env    map[string]string // scripts/cluster env
	log    io.Writer
	runDir string
	nodes  []*node
}

// node is one Herald node of the cluster.
type node struct {
	group string
	url   string
	pprof string // base URL of its profiler, when started with one
	cmd   *exec.Cmd
	logf  *os.File
	done  chan struct{} // closed when the process has exited
}

// newCluster starts (or finds) the service tier with at least `cassandra`
// ring nodes and reads its addresses.
func newCluster(ctx context.Context, repo, herald, runDir string, cassandra int, log io.Writer) (*cluster, error) {
	c := &cluster{script: filepath.Join(repo, "scripts", "cluster"), herald: herald, log: log, runDir: runDir}
	if err := c.do(ctx, "start", strconv.Itoa(cassandra)); err != nil {
		return nil, err
	}
	if err := c.readEnv(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// readEnv reads the cluster's addresses from `scripts/cluster env`.
func (c *cluster) readEnv(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, c.script, "env").Output()
	if err != nil {
		return fmt.Errorf("scripts/cluster env: %w", err)
	}
	c.env = map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if ok {
			c.env[k] = v
		}
	}
	for _, k := range []string{"HERALD_CLUSTER_CASSANDRA", "HERALD_CLUSTER_REDIS", "HERALD_CLUSTER_AMQP"} {
		if c.env[k] == "" {
			return fmt.Errorf("scripts/cluster env: no %s", k)
		}
	}
	return nil
}

// do runs scripts/cluster with args, its output to the log.
func (c *cluster) do(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, c.script, args...)
	cmd.Stdout, cmd.Stderr = c.log, c.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("scripts/cluster %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// cassandraNodes is how many ring nodes scripts/cluster env lists.
func (c *cluster) cassandraNodes() int {
	return len(strings.Split(c.env["HERALD_CLUSTER_CASSANDRA"], ","))
}

// grow adds ring nodes until there are m, and reads the addresses again.
func (c *cluster) grow(ctx context.Context, m int) error {
	if err := c.do(ctx, "grow", strconv.Itoa(m)); err != nil {
		return err
	}
	if err := c.readEnv(ctx); err != nil {
		return err
	}
	if n := c.cassandraNodes(); n != m {
		return fmt.Errorf("the ring has %d nodes after grow %d", n, m)
	}
	return nil
}

// quota caps a group at cores (0: no cap).
func (c *cluster) quota(ctx context.Context, group string, cores float64) error {
	return c.do(ctx, "quota", group, coresArg(cores))
}

// capRing caps every Cassandra node of the ring at cores (0: no cap).
func (c *cluster) capRing(ctx context.Context, cores float64) error {
	for i := 1; i <= c.cassandraNodes(); i++ {
		if err := c.quota(ctx, fmt.Sprintf("cassandra-%d", i), cores); err != nil {
			return err
		}
	}
	return nil
}

func coresArg(cores float64) string {
	if cores <= 0 {
		return "none"
	}
	return strconv.FormatFloat(cores, 'f', -1, 64)
}

// cpu reads every group's CPU time so far.
func (c *cluster) cpu() (map[string]time.Duration, error) {
	entries, err := os.ReadDir(cgroupRoot)
	if err != nil {
		return nil, fmt.Errorf("cgroups: %w", err)
	}
	out := map[string]time.Duration{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(cgroupRoot, e.Name(), "cpuacct.usage"))
		if err != nil {
			return nil, err
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cgroup %s: %w", e.Name(), err)
		}
		out[e.Name()] = time.Duration(ns)
	}
	return out, nil
}

// joinClient moves this process (the load client) into the group
// "client", uncapped, so that its CPU is counted as the others' are.
func (c *cluster) joinClient(ctx context.Context) error {
	if err := c.quota(ctx, "client", 0); err != nil {
		return err
	}
	pid := strconv.Itoa(os.Getpid())
	for _, ctl := range []string{"cpu", "cpuacct"} {
		if err := os.WriteFile(filepath.Join("/sys/fs/cgroup", ctl, "herald-cluster", "client", "cgroup.procs"), []byte(pid), 0o644); err != nil {
			return fmt.Errorf("joining the client group: %w", err)
		}
	}
	return nil
}

// heraldSetup is what every node of one step is started with.
type heraldSetup struct {
	keyspace    string
	replication string
	redis       string // --redis-addr
	redisPrefix string
	cores       float64 // each node's quota (0: none)
	pprof       bool    // serve Go's profiler on a port of its own
	extra       []string
}

// gomaxprocs is the Go scheduler's processors for a node of this setup:
// its quota rounded up, as a deployment sizes a node to the cores it is
// given (Go's own default counts the machine's cores, at least 2, and two
// processors under a quota of a fraction of a core contend for it:
// docs/operations.md, "Sizing a cluster"); uncapped, the machine's cores.
func (s heraldSetup) gomaxprocs() int {
	if s.cores <= 0 {
		return runtime.NumCPU()
	}
	return max(1, int(math.Ceil(s.cores)))
}

// startNodes starts n Herald nodes herald-1..herald-n under their quotas
// and waits until each is ready.
func (c *cluster) startNodes(ctx context.Context, n int, s heraldSetup) error {
	for k := 1; k <= n; k++ {
		addr, err := freeAddr()
		if err != nil {
			return err
		}
		group := fmt.Sprintf("herald-%d", k)
		dir := filepath.Join(c.runDir, group)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		logf, err := os.Create(filepath.Join(c.runDir, group+".log"))
		if err != nil {
			return err
		}
		args := append([]string{"run", group, coresArg(s.cores), c.herald, "serve",
			"--listen", addr, "--data-dir", dir, "--log-level", "warn",
			"--store", "cassandra", "--cassandra-hosts", c.env["HERALD_CLUSTER_CASSANDRA"],
			"--cassandra-keyspace", s.keyspace, "--cassandra-replication", s.replication,
			"--redis-addr", s.redis, "--redis-key-prefix", s.redisPrefix,
			"--amqp-url", c.env["HERALD_CLUSTER_AMQP"], "--sqs-receipt-secret", "bench-scale",
			// ws-fanout's connections subscribe without a token, as the
			// other workloads call the HTTP API without credentials.
			"--ws-anonymous", "true"}, s.extra...)
		var pprofURL string
		if s.pprof {
			pa, err := freeAddr()
			if err != nil {
				logf.Close()
				return err
			}
			args = append(args, "--pprof-listen", pa)
			pprofURL = "http://" + pa
		}
		cmd := exec.Command(c.script, args...)
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(s.gomaxprocs()))
		if err := cmd.Start(); err != nil {
			logf.Close()
			return err
		}
		nd := &node{group: group, url: "http://" + addr, pprof: pprofURL, cmd: cmd, logf: logf, done: make(chan struct{})}
		go func() { _ = cmd.Wait(); close(nd.done) }()
		c.nodes = append(c.nodes, nd)
		// The first node creates the keyspace and its tables; the others
		// start after it so that none races it.
		if err := nd.waitReady(ctx, 3*time.Minute); err != nil {
			return fmt.Errorf("%s: %w (log: %s)", group, err, logf.Name())
		}
	}
	return nil
}

// settle waits until the Cassandra tier is quiet: its CPU over a 2 s
// window below quiet cores a ring node. A keyspace Herald has just
// created keeps Cassandra busy for a while (schema, flushes, compactions
// of the new tables), which would be counted against the first step's
// calls. It reports how long the wait took; a tier that never settles
// within limit is measured anyway, and the log says so.
func (c *cluster) settle(ctx context.Context, quiet float64, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	const window = 2 * time.Second
	var last float64
	err := checkFor(ctx, limit, 0, func() error {
		before, err := c.cpu()
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(window):
		}
		after, err := c.cpu()
		if err != nil {
			return err
		}
		var used time.Duration
		for g, t := range after {
			if component(g) == "cassandra" {
				used += t - before[g]
			}
		}
		last = used.Seconds() / window.Seconds()
		if last > quiet*float64(c.cassandraNodes()) {
			return fmt.Errorf("Cassandra still uses %.2f cores", last)
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(c.log, "scale: the Cassandra tier did not settle (%v); measuring anyway\n", err)
		err = nil
	}
	return time.Since(start), err
}

// urls are the running nodes' base URLs.
func (c *cluster) urls() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.url
	}
	return out
}

// stopNodes stops every Herald node: SIGTERM, then SIGKILL after 20 s.
func (c *cluster) stopNodes() {
	for _, n := range c.nodes {
		_ = n.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, n := range c.nodes {
		select {
		case <-n.done:
		case <-time.After(20 * time.Second):
			_ = n.cmd.Process.Kill()
			<-n.done
		}
		n.logf.Close()
	}
	c.nodes = nil
}

// waitReady polls the node's /readyz until it answers 200.
func (n *node) waitReady(ctx context.Context, limit time.Duration) error {
	return checkFor(ctx, limit, 200*time.Millisecond, func() error {
		select {
		case <-n.done:
			return errExited
		default:
		}
		resp, err := http.Get(n.url + "/readyz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %s", resp.Status)
		}
		return nil
	})
}

var errExited = errors.New("the node exited")

// checkFor polls f every interval until it returns nil or limit passes.
func checkFor(ctx context.Context, limit, interval time.Duration, f func() error) error {
	deadline := time.Now().Add(limit)
	for {
		err := f()
		if err == nil || errors.Is(err, errExited) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready within %s: %w", limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
