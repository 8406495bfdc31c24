package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
)

// dataCenter is one data center of the two-DC rig `scripts/dcs` runs: its
// network namespace and its services, as `scripts/dcs env` prints them.
type dataCenter struct {
	name      string // Cassandra's name of it: dc1, dc2
	netns     string
	host      string // the address its services, and its Herald nodes, listen on
	cassandra string
	redis     string
	amqp      string
}

// twoDCs is the rig of one test: both data centers and a keyspace and
// exchange names of the test's own.
type twoDCs struct {
	dc1, dc2 dataCenter
	keyspace string
	events   string // the events exchange, federated between the DCs (herald.events.*)
}

// requireTwoDCs returns the rig started by `scripts/dcs start`, with a
// fresh keyspace (left in the rig when the test ends). Without the rig the test is
// skipped locally and fails in CI (CI=true). A rig whose Cassandras do not
// take writes through each DC is mended first (ensureRig); in CI that
// includes a Cassandra found down.
func requireTwoDCs(t *testing.T) *twoDCs {
	t.Helper()
	r := &twoDCs{
		keyspace: "herald_dcs_" + strings.ReplaceAll(uuid.NewString()[:8], "-", ""),
		events:   "herald.events.t" + uuid.NewString()[:8],
	}
	for i, dc := range []*dataCenter{&r.dc1, &r.dc2} {
		n := i + 1
		*dc = dataCenter{
			name:      fmt.Sprintf("dc%d", n),
			netns:     os.Getenv(fmt.Sprintf("HERALD_DCS_NETNS%d", n)),
			cassandra: os.Getenv(fmt.Sprintf("HERALD_DC%d_CASSANDRA", n)),
			redis:     os.Getenv(fmt.Sprintf("HERALD_DC%d_REDIS", n)),
			amqp:      os.Getenv(fmt.Sprintf("HERALD_DC%d_AMQP", n)),
		}
		dc.host, _, _ = net.SplitHostPort(dc.cassandra)
		problem := ""
		if dc.netns == "" || dc.cassandra == "" {
			problem = "HERALD_DCS_NETNS* and HERALD_DC*_* are not set: start the rig with `scripts/dcs start` and `eval \"$(scripts/dcs env)\"`"
		} else if c, err := net.DialTimeout("tcp", dc.cassandra, 3*time.Second); err != nil {
			if os.Getenv("CI") == "true" {
				continue // a Cassandra down after a kill: ensureRig restarts it
			}
			problem = fmt.Sprintf("%s's Cassandra at %s does not answer (%v); `scripts/dcs start`", dc.name, dc.cassandra, err)
		} else {
			c.Close()
		}
		if problem != "" {
			if os.Getenv("CI") == "true" {
				t.Fatal(problem)
			}
			t.Skip(problem)
		}
	}
	r.ensureRig(t)
	// The keyspace stays: dropping one while a Cassandra's commit log
	// still holds writes of its tables stopped that node (5.0.9, with the
	// rig's cassandra.unsafesystem: "Unknown CF" in the commit-log
	// allocator, whose failure policy stops the node), and the next test
	// found its DC dead. The rig's state goes with `scripts/dcs clean`.
	t.Cleanup(func() { t.Logf("keyspace %s left in the rig", r.keyspace) })
	return r
}

// start runs a Herald node in dc, in its namespace, on the rig's
// Cassandra (this test's keyspace, replicated to both DCs), dc's Redis
// and RabbitMQ; extra flags come last.
func (r *twoDCs) start(t *testing.T, dc dataCenter, extra ...string) *server {
	t.Helper()
	args := []string{"serve", "--listen", dc.host + ":0", "--data-dir", t.TempDir(),
		"--store", "cassandra", "--cassandra-hosts", dc.cassandra, "--cassandra-keyspace", r.keyspace,
		"--cassandra-replication", "dc1:1,dc2:1", "--cassandra-local-dc", dc.name,
		"--redis-addr", dc.redis, "--amqp-url", dc.amqp, "--amqp-events-exchange", r.events}
	args = append(args, extra...)
	s := launch(t, exec.Command("ip", append([]string{"netns", "exec", dc.netns, heraldBin}, args...)...), "", false)
	// The first node creates the keyspace's tables, each agreed on by both
	// DCs' nodes: about half a second a table on an idle machine (27
	// tables, 15 s), several times that while other test packages load
	// both cores. So the wait is for progress: it fails after 90 s in
	// which no table was created, not at a fixed time after the start.
	if err := r.healthyWhileCreating(s, 90*time.Second); err != nil {
		t.Fatalf("%s node: %v\n%s\nits log's tail:\n%s", dc.name, err, r.state(), tail(s.logs(), 40))
	}
	return s
}

// healthyWhileCreating polls s's /healthz until it answers 200, in rounds
// of quiet, and fails after a round in which s logged creating no table.
func (r *twoDCs) healthyWhileCreating(s *server, quiet time.Duration) error {
	created := 0
	for {
		err := healthyWithin(http.DefaultClient, s.URL, quiet)
		if err == nil {
			return nil
		}
		n := strings.Count(s.logs(), "cassandra: created table")
		if n == created {
			return fmt.Errorf("%w (no table created in that time; %d in all)", err, n)
		}
		created = n
	}
}

// state is what the rig's Cassandras say of the ring, for a failure's
// report: each DC's `nodetool status`, or why it could not be had.
func (r *twoDCs) state() string {
	var b strings.Builder
	for _, dc := range []dataCenter{r.dc1, r.dc2} {
		out, err := exec.Command("../scripts/dcs", "nodetool", dc.name, "status").CombinedOutput()
		fmt.Fprintf(&b, "nodetool status through %s (err %v):\n%s\n", dc.name, err, tail(string(out), 12))
	}
	return b.String()
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// dcs runs scripts/dcs with args (cut, heal, kill DC, revive DC).
func dcs(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("../scripts/dcs", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/dcs %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// cutLink cuts the link between the DCs until the test ends or the
// returned heal is called.
func cutLink(t *testing.T) (heal func()) {
	t.Helper()
	dcs(t, "cut")
	healed := false
	heal = func() {
		if !healed {
			healed = true
			dcs(t, "heal")
		}
	}
	t.Cleanup(heal)
	return heal
}

// killDC kills every process of dc (its Cassandra, Redis, RabbitMQ and
// Herald nodes); when the test ends the DC's services are started again,
// and awaited, for the tests after it.
func (r *twoDCs) killDC(t *testing.T, dc dataCenter) {
	t.Helper()
	dcs(t, "kill", dc.name)
	t.Cleanup(func() {
		dcs(t, "revive", dc.name)
		r.awaitEachQuorum(t, dc)
	})
}

// awaitEachQuorum waits until a write through dc at EACH_QUORUM succeeds:
// a revived Cassandra node takes some seconds of gossip to see the other
// DC's node up, and until then the default writes of Herald fail. If it
// does not within 45 s, the rig is mended (ensureRig).
func (r *twoDCs) awaitEachQuorum(t *testing.T, dc dataCenter) {
	t.Helper()
	if r.eachQuorumWithin(dc, 45*time.Second) == nil {
		return
	}
	r.ensureRig(t)
}

// ensureRig makes sure each DC's Cassandra takes a write at EACH_QUORUM
// through it, and mends the rig when one does not: the test after a kill
// must start on two working data centers, or it fails for the rig's sake,
// not Herald's. A DC whose Cassandra does not answer a local read (down,
// or stuck in its own collections) has its Cassandra restarted; a DC that
// answers locally but cannot reach the other's has the other's restarted,
// whose connections to it are stuck for minutes after kills ("no-channel"
// in its log; BENCHMARKS.md). Every mend is logged with the sick node's
// last errors, and a rig still broken after one round fails the test.
func (r *twoDCs) ensureRig(t *testing.T) {
	t.Helper()
	both := []dataCenter{r.dc1, r.dc2}
	for round := 0; ; round++ {
		wait := 20 * time.Second
		if round > 0 {
			wait = 2 * time.Minute
		}
		var failing []int
		var problems []string
		for i, dc := range both {
			if err := r.eachQuorumWithin(dc, wait); err != nil {
				failing = append(failing, i)
				problems = append(problems, fmt.Sprintf("%s takes no EACH_QUORUM write: %v", dc.name, err))
			}
		}
		if len(failing) == 0 {
			return
		}
		if round > 0 {
			t.Fatalf("the two-DC rig is still broken after a restart: %s\n%s", strings.Join(problems, "; "), r.state())
		}
		// A Cassandra that answers no local read explains both DCs'
		// failures; only when both answer are connections stuck.
		var restart []dataCenter
		for _, dc := range both {
			if err := localRead(dc); err != nil {
				restart = append(restart, dc)
				problems = append(problems, fmt.Sprintf("%s's Cassandra answers no local read: %v", dc.name, err))
			}
		}
		if len(restart) == 0 {
			for _, i := range failing {
				restart = append(restart, both[1-i])
			}
		}
		for _, dc := range restart {
			t.Logf("mending the two-DC rig (%s): restarting %s's Cassandra; its last errors:\n%s", strings.Join(problems, "; "), dc.name, cassandraErrors(dc))
			dcs(t, "restart", dc.name, "cassandra")
		}
	}
}

// eachQuorumWithin tries an EACH_QUORUM write through dc until one
// succeeds or d has passed. It writes to a keyspace of the rig's own,
// replicated to both DCs, so that it needs no test's keyspace.
func (r *twoDCs) eachQuorumWithin(dc dataCenter, d time.Duration) error {
	cluster := probeCluster(dc)
	deadline := time.Now().Add(d)
	var err error
	for time.Now().Before(deadline) {
		var session *gocql.Session
		if session, err = cluster.CreateSession(); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			for _, stmt := range []string{
				"CREATE KEYSPACE IF NOT EXISTS herald_rig WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}",
				// A fixed table id: a node that lost its schema (the rig
				// runs with cassandra.unsafesystem, and a Cassandra killed
				// or stuck loses what was not flushed) would otherwise
				// create the table anew with an id of its own, and the
				// two DCs would refuse each other's writes for good
				// (INCOMPATIBLE_SCHEMA; CI failed so once).
				"CREATE TABLE IF NOT EXISTS herald_rig.probe (k int PRIMARY KEY) WITH id = '" + rigProbeTableID + "'",
			} {
				if err = session.Query(stmt).WithContext(ctx).Exec(); err != nil {
					break
				}
			}
			if err == nil {
				err = session.Query("INSERT INTO herald_rig.probe (k) VALUES (1)").Consistency(gocql.EachQuorum).WithContext(ctx).Exec()
			}
			cancel()
			session.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(time.Second)
	}
	return err
}

// rigProbeTableID is the id of herald_rig.probe on every node (see
// eachQuorumWithin).
const rigProbeTableID = "a1d5c0de-0000-4000-8000-000000000001"

// probeCluster is the rig's checks' way into dc's Cassandra: short
// timeouts, dc's node first.
func probeCluster(dc dataCenter) *gocql.ClusterConfig {
	cluster := gocql.NewCluster(dc.cassandra)
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 5 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = gocql.DCAwareRoundRobinPolicy(dc.name)
	return cluster
}

// localRead reads dc's Cassandra's own row of system.local, which needs
// no other node: it fails when that Cassandra is down or not answering.
func localRead(dc dataCenter) error {
	session, err := probeCluster(dc).CreateSession()
	if err != nil {
		return err
	}
	defer session.Close()
	var version string
	return session.Query("SELECT release_version FROM system.local").Consistency(gocql.LocalOne).Scan(&version)
}

// cassandraErrors is the last ERROR lines of dc's Cassandra log, and the
// heap dumps it left (it exits on running out of memory, dumping it first),
// for a mend's report.
func cassandraErrors(dc dataCenter) string {
	dir := os.Getenv("HERALD_DCS_DIR")
	if dir == "" {
		dir = "../.state/dcs"
	}
	logs := filepath.Join(dir, dc.name, "cassandra", "logs")
	var errs []string
	if b, err := os.ReadFile(filepath.Join(logs, "system.log")); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.HasPrefix(line, "ERROR") || strings.Contains(line, "java.lang.OutOfMemoryError") {
				errs = append(errs, line[:min(len(line), 300)])
			}
		}
	}
	dumps, _ := filepath.Glob(filepath.Join(logs, "*.hprof"))
	return fmt.Sprintf("%s\nheap dumps: %v", strings.Join(errs[max(0, len(errs)-8):], "\n"), dumps)
}
