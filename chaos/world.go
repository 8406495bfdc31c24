package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
)

var keyspaceRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,47}$`)

// world is what the drill runs around Herald: its work directory, the
// private redis-server, the proxies on Herald's links, the keyspace, and
// the Herald process of the scenario under way. It injects the faults.
type world struct {
	cfg  Config
	dir  string
	temp bool   // dir was made by the drill
	run  string // a word unique to this drill: in names of queues, topics, paths, keyspace

	keyspace        string
	createdKeyspace bool
	redis           *redisProc
	redisProxy      *proxy
	cassProxies     []*proxy
	amqpProxy       *proxy

	herald *heraldProc // the scenario under way's
	logf   func(format string, args ...any)
}

// newWorld prepares the setup: the work directory and, as the setup and
// scenarios need them, redis-server and the proxies.
func newWorld(ctx context.Context, cfg Config, names []string) (*world, error) {
	w := &world{cfg: cfg, run: strings.ReplaceAll(uuid.NewString()[:8], "-", "")}
	w.logf = func(format string, args ...any) {
		fmt.Fprintf(cfg.Log, "chaos %s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
	}
	var err error
	if cfg.WorkDir != "" {
		w.dir = cfg.WorkDir
		err = os.MkdirAll(w.dir, 0o755)
	} else {
		w.dir, err = os.MkdirTemp("", "herald-chaos-")
		w.temp = true
	}
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*world, error) {
		w.close(false)
		return nil, err
	}
	if cfg.Store == StoreCassandra {
		w.keyspace = cfg.CassandraKeyspace
		if w.keyspace == "" {
			w.keyspace = "herald_chaos_" + w.run
			w.createdKeyspace = true
		}
		redisDir := filepath.Join(w.dir, "redis")
		if err := os.MkdirAll(redisDir, 0o755); err != nil {
			return fail(err)
		}
		if w.redis, err = startRedis(ctx, cfg.RedisServer, redisDir); err != nil {
			return fail(err)
		}
		if w.redisProxy, err = newProxy("redis", w.redis.addr()); err != nil {
			return fail(err)
		}
		for _, h := range cfg.CassandraHosts {
			p, err := newProxy("cassandra", h)
			if err != nil {
				return fail(err)
			}
			w.cassProxies = append(w.cassProxies, p)
		}
	}
	for _, n := range names {
		if newScenario(n, &cfg).uses().amqp {
			u, _ := url.Parse(cfg.AMQPURL)
			host := u.Host
			if u.Port() == "" {
				host += ":5672"
			}
			if w.amqpProxy, err = newProxy("amqp", host); err != nil {
				return fail(err)
			}
			break
		}
	}
	return w, nil
}

// close stops everything the world started. The work directory and a
// keyspace the drill created are removed unless keep (a failed drill
// keeps its evidence).
func (w *world) close(keep bool) {
	if w.herald != nil {
		w.herald.stop()
	}
	for _, p := range append([]*proxy{w.redisProxy, w.amqpProxy}, w.cassProxies...) {
		if p != nil {
			p.close()
		}
	}
	if w.redis != nil {
		w.redis.kill()
	}
	if w.createdKeyspace && !keep {
		if err := w.dropKeyspace(); err != nil {
			w.logf("cannot drop keyspace %s: %v", w.keyspace, err)
		}
	}
	if w.temp && !keep && !w.cfg.KeepWorkDir {
		os.RemoveAll(w.dir)
	}
}

// dropKeyspace drops the keyspace the drill created, connecting to
// Cassandra directly.
func (w *world) dropKeyspace() error {
	cluster := gocql.NewCluster(w.cfg.CassandraHosts...)
	cluster.Timeout = 60 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		return err
	}
	defer session.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	return session.Query("DROP KEYSPACE IF EXISTS " + w.keyspace).WithContext(ctx).Exec()
}

// amqpNames are the exchanges and queue of this drill's AMQP ingest, so
// that it shares RabbitMQ with nothing else.
func (w *world) amqpNames() (ingest, queue, dlx, events string) {
	p := "chaos." + w.run
	return p + ".ingest", p + ".ingest", p + ".dlx", p + ".events"
}

// heraldArgs are the flags of `herald serve` (but --listen) for a
// scenario with uses u whose data lives in dataDir.
func (w *world) heraldArgs(u uses, dataDir string) []string {
	args := []string{"--data-dir", dataDir, "--log-level", "info"}
	if w.cfg.Store == StoreCassandra {
		hosts := make([]string, len(w.cassProxies))
		for i, p := range w.cassProxies {
			hosts[i] = p.addr()
		}
		args = append(args, "--store", "cassandra", "--cassandra-hosts", strings.Join(hosts, ","),
			"--cassandra-keyspace", w.keyspace, "--redis-addr", w.redisProxy.addr())
	}
	if u.amqp {
		pu, _ := url.Parse(w.cfg.AMQPURL)
		pu.Host = w.amqpProxy.addr()
		ingest, queue, dlx, events := w.amqpNames()
		args = append(args, "--amqp-url", pu.String(), "--amqp-ingest-exchange", ingest, "--amqp-ingest-queue", queue,
			"--amqp-dlx", dlx, "--amqp-events-exchange", events)
	}
	return args
}

// healthy reports whether the running Herald's /healthz answers 200 with
// every component "ok" (Redis not degraded).
func (w *world) healthy(ctx context.Context) bool {
	h := w.herald
	if h == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := healthClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var doc map[string]string
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&doc) != nil {
		return false
	}
	for _, v := range doc {
		if v != "ok" {
			return false
		}
	}
	return true
}

var healthClient = &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 2}}

// inject carries out one fault and returns when it ended: the moment the
// killed process was started again, or the cut link healed.
func (w *world) inject(ctx context.Context, k FaultKind) (time.Time, error) {
	pause := func(d time.Duration) error {
		if !herald.Sleep(ctx, d) {
			return ctx.Err()
		}
		return nil
	}
	cut := func(ps ...*proxy) (time.Time, error) {
		for _, p := range ps {
			p.cutLinks()
		}
		err := pause(w.cfg.CutFor)
		for _, p := range ps {
			p.heal()
		}
		return time.Now(), err
	}
	switch k {
	case HeraldKill:
		w.herald.kill()
		if err := pause(w.cfg.DownFor); err != nil {
			return time.Now(), err
		}
		end := time.Now()
		return end, w.herald.start(ctx)
	case RedisRestart:
		w.redis.kill()
		if err := pause(w.cfg.DownFor); err != nil {
			return time.Now(), err
		}
		end := time.Now()
		return end, w.redis.start(ctx)
	case RedisCut:
		return cut(w.redisProxy)
	case CassandraCut:
		return cut(w.cassProxies...)
	case AMQPCut:
		return cut(w.amqpProxy)
	case CassandraRestart, RabbitMQRestart:
		service := "cassandra"
		if k == RabbitMQRestart {
			service = "rabbitmq"
		}
		if err := runServices(ctx, w.cfg.ServicesScript, "stop", service); err != nil {
			return time.Now(), err
		}
		err := runServices(ctx, w.cfg.ServicesScript, "start", service)
		return time.Now(), err
	}
	return time.Now(), fmt.Errorf("unknown fault %q", k)
}
