package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
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
// fresh keyspace dropped when the test ends. Without the rig the test is
// skipped locally and fails in CI (CI=true).
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
	t.Cleanup(func() { r.dropKeyspace(t) })
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
	// DCs' nodes: about half a second a table.
	waitHealthyWithin(t, http.DefaultClient, s.URL, 90*time.Second)
	return s
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
// DC's node up, and until then the default writes of Herald fail. The
// other DC's Cassandra sometimes keeps its connection for mutations to the
// revived node closed for minutes ("no-channel" in its log, seen after
// kills with writes during the outage; BENCHMARKS.md): if the write still
// fails after 45 s, that node is restarted, and the wait goes on.
func (r *twoDCs) awaitEachQuorum(t *testing.T, dc dataCenter) {
	t.Helper()
	if r.eachQuorumWithin(dc, 45*time.Second) == nil {
		return
	}
	other := r.dc1
	if dc.name == r.dc1.name {
		other = r.dc2
	}
	t.Logf("%s takes no EACH_QUORUM write 45 s after its revival: restarting %s's Cassandra, whose connections to it are stuck", dc.name, other.name)
	dcs(t, "restart", other.name, "cassandra")
	if err := r.eachQuorumWithin(dc, 2*time.Minute); err != nil {
		t.Errorf("%s did not take EACH_QUORUM writes within 2 minutes of %s's restart: %v", dc.name, other.name, err)
	}
}

// eachQuorumWithin tries an EACH_QUORUM write through dc until one
// succeeds or d has passed.
func (r *twoDCs) eachQuorumWithin(dc dataCenter, d time.Duration) error {
	cluster := gocql.NewCluster(dc.cassandra)
	cluster.Timeout = 10 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = gocql.DCAwareRoundRobinPolicy(dc.name)
	deadline := time.Now().Add(d)
	var err error
	for time.Now().Before(deadline) {
		var session *gocql.Session
		if session, err = cluster.CreateSession(); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err = session.Query("CREATE TABLE IF NOT EXISTS " + r.keyspace + ".rig_probe (k int PRIMARY KEY)").WithContext(ctx).Exec()
			if err == nil {
				err = session.Query("INSERT INTO " + r.keyspace + ".rig_probe (k) VALUES (1)").Consistency(gocql.EachQuorum).WithContext(ctx).Exec()
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

// dropKeyspace removes the test's keyspace through whichever DC answers.
func (r *twoDCs) dropKeyspace(t *testing.T) {
	t.Helper()
	for _, dc := range []dataCenter{r.dc1, r.dc2} {
		cluster := gocql.NewCluster(dc.cassandra)
		cluster.Timeout = 30 * time.Second
		cluster.PoolConfig.HostSelectionPolicy = gocql.DCAwareRoundRobinPolicy(dc.name)
		session, err := cluster.CreateSession()
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err = session.Query("DROP KEYSPACE IF EXISTS " + r.keyspace).WithContext(ctx).Exec()
		cancel()
		session.Close()
		if err == nil {
			return
		}
	}
	t.Logf("could not drop keyspace %s", r.keyspace)
}
