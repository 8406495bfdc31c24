package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/load/loadgen"
)

// run measures every tier and step o asks for and reports them.
func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if o.fromJSON != "" {
		return report(o, stdout)
	}
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	release, err := loadgen.TakeLock(ctx, loadgen.LockPath, stderr)
	if err != nil {
		return err
	}
	defer release()
	runDir, err := os.MkdirTemp("", "herald-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(runDir)
	bin := filepath.Join(runDir, "herald")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/herald")
	build.Dir, build.Stdout, build.Stderr = repo, stderr, stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building herald: %w", err)
	}

	firstRing := 1
	if len(o.cassandraNodes) > 0 {
		firstRing = o.cassandraNodes[0]
	}
	c, err := newCluster(ctx, repo, bin, runDir, firstRing, stderr)
	if err != nil {
		return err
	}
	if n := c.cassandraNodes(); len(o.cassandraNodes) > 0 && n > firstRing {
		return fmt.Errorf("the cluster's ring has %d Cassandra nodes and the Cassandra tier starts at %d: `scripts/cluster clean` first", n, firstRing)
	}
	if err := c.joinClient(ctx); err != nil {
		return err
	}
	tag := randomTag()
	ks := "herald_scale_" + tag
	redisAddr := c.env["HERALD_CLUSTER_REDIS"]
	if o.redisCluster {
		redisAddr = c.env["HERALD_CLUSTER_REDIS_CLUSTER"]
	}
	setup := heraldSetup{keyspace: ks, replication: "1", redis: redisAddr, redisPrefix: "herald:scale:" + tag + ":", pprof: o.pprofDir != "",
		extra: strings.Fields(o.heraldArgs)}
	if o.pprofDir != "" {
		if err := os.MkdirAll(o.pprofDir, 0o755); err != nil {
			return err
		}
	}
	keyspaces := []string{ks}
	defer func() {
		c.stopNodes()
		// The caps go, so that the cluster is left as it was started.
		_ = c.capRing(context.WithoutCancel(ctx), 0)
		if !o.keep {
			c.cleanup(context.WithoutCancel(ctx), keyspaces, setup.redisPrefix, redisAddr)
		}
	}()

	m := &measurer{c: c, opts: o, log: stderr}
	results := map[string]*tierResult{}
	for _, name := range o.workloads {
		results[name] = &tierResult{}
	}
	started := time.Now()

	if len(o.heraldNodes) > 0 {
		if err := warmCluster(ctx, m, c, setup, o.workloads, o.clusterWarmup); err != nil {
			return err
		}
		s := setup
		s.cores = o.heraldCores
		m.tier = "herald"
		for _, n := range o.heraldNodes {
			step, err := measureStep(ctx, m, c, s, n, n, o.workloads)
			if err != nil {
				return err
			}
			for w, p := range step {
				setPoint(&results[w].HeraldNodes, p)
			}
			stepDone(o, results, stderr)
		}
	}
	if o.oneNode {
		// On the ring as the Herald tier left it, nothing capped.
		if err := c.capRing(ctx, 0); err != nil {
			return err
		}
		m.tier = "one"
		step, err := measureStep(ctx, m, c, setup, 1, 1, o.workloads)
		if err != nil {
			return err
		}
		for w, p := range step {
			results[w].OneNode = p
		}
		stepDone(o, results, stderr)
	}
	if len(o.cassandraNodes) > 0 {
		s := setup
		s.cores = o.cassTierHeraldCores
		m.tier = "cassandra"
		for _, mNodes := range o.cassandraNodes {
			warm := o.clusterWarmup
			if mNodes > c.cassandraNodes() {
				warm = o.joinWarmup
			}
			if err := c.grow(ctx, mNodes); err != nil {
				return err
			}
			if err := warmCluster(ctx, m, c, s, o.workloads, warm); err != nil {
				return err
			}
			if err := c.capRing(ctx, o.cassandraCores); err != nil {
				return err
			}
			step, err := measureStep(ctx, m, c, s, o.cassTierHerald, mNodes, o.workloads)
			if err != nil {
				return err
			}
			for w, p := range step {
				setPoint(&results[w].CassandraNodes, p)
			}
			stepDone(o, results, stderr)
		}
		if last := o.cassandraNodes[len(o.cassandraNodes)-1]; o.rf3 && last == 3 {
			s.keyspace, s.replication, m.tier = ks+"_rf3", "3", "rf3"
			keyspaces = append(keyspaces, s.keyspace)
			step, err := measureStep(ctx, m, c, s, o.cassTierHerald, 3, o.workloads)
			if err != nil {
				return err
			}
			for w, p := range step {
				results[w].CassandraRF3 = p
			}
		}
	}
	finish(results)
	fmt.Fprintf(stdout, "bench/scale: %s, %s; Herald tier: each node capped at %g cores, Cassandra uncapped; Cassandra tier: each node capped at %g cores, %d Herald node(s) capped at %s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), time.Since(started).Round(time.Second), o.heraldCores, o.cassandraCores, o.cassTierHerald, coresArg(o.cassTierHeraldCores))
	writeTable(stdout, o.workloads, results)
	if err := writeOutputs(o, results); err != nil {
		return err
	}
	return checkEfficiency(o, results)
}

// report prints the tables of a saved run and draws its plot.
func report(o options, stdout io.Writer) error {
	b, err := os.ReadFile(o.fromJSON)
	if err != nil {
		return err
	}
	var results map[string]*tierResult
	if err := json.Unmarshal(b, &results); err != nil {
		return fmt.Errorf("%s: %w", o.fromJSON, err)
	}
	var names []string
	for _, w := range o.workloads {
		if results[w] != nil {
			names = append(names, w)
		}
	}
	writeTable(stdout, names, results)
	if o.plotPath != "" {
		return drawPlot(o.plotPath, names, results)
	}
	return nil
}

// finish computes the efficiencies of every tier from its points.
func finish(results map[string]*tierResult) {
	for _, r := range results {
		efficiencies(r.HeraldNodes)
		efficiencies(r.CassandraNodes)
		if r.OneNode != nil {
			r.OneNode.Efficiency = 1
		}
		if r.CassandraRF3 != nil && r.CassandraNodes["3"] != nil && r.CassandraNodes["3"].PerS > 0 {
			// Against the same ring at RF 1.
			r.CassandraRF3.Efficiency = r.CassandraRF3.PerS / r.CassandraNodes["3"].PerS
		}
	}
}

// writeOutputs writes the JSON file and the plot, when asked for; after
// every step too, so that an interrupted run leaves what it measured.
func writeOutputs(o options, results map[string]*tierResult) error {
	if o.jsonPath != "" {
		b, err := json.MarshalIndent(results, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.jsonPath, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if o.plotPath != "" {
		if err := drawPlot(o.plotPath, o.workloads, results); err != nil {
			return fmt.Errorf("plot: %w", err)
		}
	}
	return nil
}

// warmCluster runs every workload flat out for d in all through uncapped
// nodes, with the Cassandra tier uncapped: a Cassandra node just started
// (or just joined) compiles its hot paths first, and under a cap of a
// fraction of a core that compilation would be measured as the node's
// capacity (the first try measured a two-node ring at a tenth of one).
func warmCluster(ctx context.Context, m *measurer, c *cluster, s heraldSetup, names []string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if err := c.capRing(ctx, 0); err != nil {
		return err
	}
	s.cores = 0
	if err := c.startNodes(ctx, 2, s); err != nil {
		c.stopNodes()
		return err
	}
	defer c.stopNodes()
	fmt.Fprintf(c.log, "scale: warming the cluster (%d Cassandra node(s)) for %s\n", c.cassandraNodes(), d)
	each := d / time.Duration(len(names))
	for _, name := range names {
		w, _ := workloadByName(name)
		m.sequence++
		l := load{servers: c.urls(), concurrency: m.opts.perNode * 2, duration: each, prefix: fmt.Sprintf("warm%d", m.sequence)}
		if _, err := w.run(ctx, l); err != nil {
			return fmt.Errorf("warming with %s: %w", name, err)
		}
	}
	return nil
}

// measureStep starts nodes Herald nodes, measures every workload and
// stops them. It returns each workload's point, labelled with key (the
// tier's node count).
func measureStep(ctx context.Context, m *measurer, c *cluster, s heraldSetup, nodes, key int, names []string) (map[string]*point, error) {
	if err := c.startNodes(ctx, nodes, s); err != nil {
		c.stopNodes()
		return nil, err
	}
	defer c.stopNodes()
	took, err := c.settle(ctx, 0.3, 45*time.Second)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c.log, "scale: %d Herald node(s) up, the Cassandra tier quiet after %s\n", nodes, took.Round(100*time.Millisecond))
	out := map[string]*point{}
	for _, name := range names {
		w, _ := workloadByName(name)
		p, err := m.measure(ctx, w, key)
		if err != nil {
			return nil, err
		}
		out[name] = p
	}
	return out, nil
}

// setPoint files p in a tier's points under its node count.
func setPoint(points *map[string]*point, p *point) {
	if *points == nil {
		*points = map[string]*point{}
	}
	(*points)[strconv.Itoa(p.Nodes)] = p
}

// stepDone writes what the run measured so far.
func stepDone(o options, results map[string]*tierResult, log io.Writer) {
	finish(results)
	if err := writeOutputs(o, results); err != nil {
		fmt.Fprintf(log, "scale: writing the results so far: %v\n", err)
	}
}

// checkEfficiency fails the run when a workload's E(2) on the Herald tier
// is below --min-efficiency, or when a measured run had errors.
func checkEfficiency(o options, results map[string]*tierResult) error {
	var problems []string
	for _, name := range o.workloads {
		r := results[name]
		for _, ps := range []map[string]*point{r.HeraldNodes, r.CassandraNodes} {
			for _, p := range ps {
				if p.Errors > 0 || p.PerS <= 0 {
					problems = append(problems, fmt.Sprintf("%s at %d nodes: %d errors (first: %s), %.0f calls/s", name, p.Nodes, p.Errors, p.FirstError, p.PerS))
				}
			}
		}
		if p := r.HeraldNodes["2"]; o.minEfficiency > 0 && p != nil && p.Efficiency < o.minEfficiency {
			problems = append(problems, fmt.Sprintf("%s: E(2) on the Herald tier is %.2f, below %.2f", name, p.Efficiency, o.minEfficiency))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// cleanup drops the run's keyspaces and Redis keys.
func (c *cluster) cleanup(ctx context.Context, keyspaces []string, redisPrefix, redisAddr string) {
	for _, ks := range keyspaces {
		if err := c.do(ctx, "cql", "DROP KEYSPACE IF EXISTS "+ks); err != nil {
			fmt.Fprintf(c.log, "scale: dropping %s: %v\n", ks, err)
		}
	}
	rc := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: strings.Split(redisAddr, ",")})
	defer rc.Close()
	del := func(ctx context.Context, node *redis.Client) error {
		it := node.Scan(ctx, 0, redisPrefix+"*", 1000).Iterator()
		for it.Next(ctx) {
			if err := node.Del(ctx, it.Val()).Err(); err != nil {
				return err
			}
		}
		return it.Err()
	}
	var err error
	switch r := rc.(type) {
	case *redis.ClusterClient:
		err = r.ForEachMaster(ctx, del)
	case *redis.Client:
		err = del(ctx, r)
	}
	if err != nil {
		fmt.Fprintf(c.log, "scale: deleting Redis keys %s*: %v\n", redisPrefix, err)
	}
}

func randomTag() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// repoRoot is the module root above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "scripts", "cluster")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run bench/scale inside the Herald repository (no scripts/cluster above the working directory)")
		}
		dir = parent
	}
}
