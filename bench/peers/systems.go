package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// The systems, as --only names them. The ceiling (SQS) and tcpfloor
// (WebSocket) are the references every round has.
const (
	sysCeiling         = "ceiling"
	sysHerald          = "herald"
	sysHeraldCassandra = "herald-cassandra"
	sysFauxqs          = "fauxqs"
	sysElasticMQ       = "elasticmq"
	sysMoto            = "moto"
	sysCentrifugo      = "centrifugo"
	sysTCPFloor        = "tcpfloor"
)

// sqsSystems and wsSystems are the systems of each benchmark in the order
// of a first round.
var (
	sqsSystems = []string{sysCeiling, sysHerald, sysHeraldCassandra, sysFauxqs, sysElasticMQ, sysMoto}
	wsSystems  = []string{sysTCPFloor, sysHerald, sysCentrifugo}
)

// labels name the systems in the table.
var labels = map[string]string{
	sysCeiling:         "ceiling (trivial Go net/http)",
	sysHerald:          "Herald embedded",
	sysHeraldCassandra: "Herald on Cassandra + Redis",
	sysFauxqs:          "fauxqs " + pins.Fauxqs,
	sysElasticMQ:       "ElasticMQ " + pins.ElasticMQ,
	sysMoto:            "moto " + pins.Moto,
	sysCentrifugo:      "Centrifugo " + pins.Centrifugo,
	sysTCPFloor:        "plain TCP floor (bench/tcpfloor)",
}

// Centrifugo's secrets in the benchmark: its server API key and the HMAC
// key of connection tokens. They guard nothing but a loopback port.
const (
	centrifugoAPIKey      = "herald-bench-api-key"
	centrifugoTokenSecret = "herald-bench-token-secret"
)

// launcher builds the launch of each system; runDir holds configuration
// files and data, cache the installs, bin the herald build.
type launcher struct {
	runDir, bin string
	in          installer
	messageSize int
	cassandra   *cassandraServices // nil without --cassandra
}

func (l launcher) launch(name string, port int) (launch, error) {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	switch name {
	case sysCeiling:
		self, err := os.Executable()
		if err != nil {
			return launch{}, err
		}
		return launch{argv: []string{self, "--serve-ceiling", addr, "--message-size", strconv.Itoa(l.messageSize)}}, nil
	case sysHerald:
		return launch{argv: []string{filepath.Join(l.bin, "herald"), "serve", "--listen", addr,
			"--data-dir", filepath.Join(l.runDir, "herald-data"), "--log-level", "warn"}}, nil
	case sysHeraldCassandra:
		c := l.cassandra
		return launch{argv: []string{filepath.Join(l.bin, "herald"), "serve", "--listen", addr,
			"--data-dir", filepath.Join(l.runDir, "herald-cassandra-data"), "--log-level", "warn",
			"--store", "cassandra", "--cassandra-hosts", c.cassandra, "--cassandra-keyspace", c.keyspace, "--redis-addr", c.redis}}, nil
	case sysFauxqs:
		return launch{argv: []string{l.in.path(nodeBin), l.in.path(fauxqsLauncher), strconv.Itoa(port)}, dir: l.in.path("fauxqs")}, nil
	case sysElasticMQ:
		conf := filepath.Join(l.runDir, "elasticmq.conf")
		text := fmt.Sprintf(`include classpath("application.conf")
node-address { protocol = http, host = 127.0.0.1, port = %d, context-path = "" }
rest-sqs { enabled = true, bind-port = %d, bind-hostname = "127.0.0.1", sqs-limits = strict }
rest-stats { enabled = false }
`, port, port)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return launch{}, err
		}
		return launch{argv: []string{"java", "-Dconfig.file=" + conf, "-cp", l.in.path(elasticmqLib) + "/*", "org.elasticmq.server.Main"}}, nil
	case sysMoto:
		// moto tells SQS from S3 by the signature's service: requests are
		// signed, with keys it accepts as any.
		return launch{argv: []string{l.in.path(motoPython), l.in.path(motoLauncher), strconv.Itoa(port)},
			benchArgs: []string{"--access-key", "bench", "--secret-key", "bench"}}, nil
	case sysCentrifugo:
		conf := filepath.Join(l.runDir, "centrifugo.json")
		b, err := json.MarshalIndent(centrifugoConfig(port), "", "  ")
		if err != nil {
			return launch{}, err
		}
		if err := os.WriteFile(conf, b, 0o644); err != nil {
			return launch{}, err
		}
		return launch{argv: []string{l.in.path(centrifugoBin), "--config", conf},
			benchArgs: []string{"--protocol", "centrifugo", "--centrifugo-api-key", centrifugoAPIKey, "--centrifugo-token-secret", centrifugoTokenSecret}}, nil
	}
	return launch{}, fmt.Errorf("no server to start for %q", name)
}

// centrifugoConfig is Centrifugo's configuration for the benchmark: on
// loopback, connections authenticated by HS256 tokens, any of them allowed
// to subscribe to channels without a namespace, the server API behind a
// key, Prometheus metrics on (the benchmark reads its memory there), no
// usage statistics sent anywhere.
func centrifugoConfig(port int) map[string]any {
	return map[string]any{
		"http_server": map[string]any{"address": "127.0.0.1", "port": port},
		"log":         map[string]any{"level": "warn"},
		"client":      map[string]any{"token": map[string]any{"hmac_secret_key": centrifugoTokenSecret}},
		"channel":     map[string]any{"without_namespace": map[string]any{"allow_subscribe_for_client": true}},
		"http_api":    map[string]any{"key": centrifugoAPIKey},
		"prometheus":  map[string]any{"enabled": true},
		"usage_stats": map[string]any{"disabled": true},
	}
}

// cassandraServices are the Cassandra and Redis `scripts/services` runs,
// which Herald on Cassandra uses with a keyspace of its own.
type cassandraServices struct {
	repo             string
	cassandra, redis string // host:port
	keyspace         string
}

// startCassandra starts (or finds running) the repository's Cassandra and
// Redis with scripts/services and reads their addresses from its env
// command.
func startCassandra(ctx context.Context, repo string, log *os.File) (*cassandraServices, error) {
	script := filepath.Join(repo, "scripts", "services")
	start := exec.CommandContext(ctx, script, "start", "cassandra", "redis")
	start.Dir, start.Stdout, start.Stderr = repo, log, log
	if err := start.Run(); err != nil {
		return nil, fmt.Errorf("scripts/services start cassandra redis: %w (see %s)", err, log.Name())
	}
	out, err := exec.CommandContext(ctx, script, "env").Output()
	if err != nil {
		return nil, fmt.Errorf("scripts/services env: %w", err)
	}
	env := parseExports(string(out))
	c := &cassandraServices{repo: repo, cassandra: env["HERALD_TEST_CASSANDRA"], redis: env["HERALD_TEST_REDIS"],
		keyspace: "herald_peers_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")}
	if c.cassandra == "" || c.redis == "" {
		return nil, fmt.Errorf("scripts/services env named no Cassandra or Redis address:\n%s", out)
	}
	return c, nil
}

// pids finds the Cassandra and Redis processes by the ports they listen on.
func (c *cassandraServices) pids() (map[string]int, error) {
	pids := map[string]int{}
	for name, addr := range map[string]string{"Cassandra": c.cassandra, "Redis": c.redis} {
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		port, _ := strconv.Atoi(p)
		pid, err := listeningPID(port)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pids[name] = pid
	}
	return pids, nil
}

// dropKeyspace removes the benchmark's keyspace.
func (c *cassandraServices) dropKeyspace(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.repo, "scripts", "services"), "cql", "DROP KEYSPACE IF EXISTS "+c.keyspace)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("dropping keyspace %s: %w: %s", c.keyspace, err, out)
	}
	return nil
}

// parseExports reads `export NAME=VALUE` lines.
func parseExports(text string) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "export "), "=")
		if ok {
			env[name] = strings.Trim(value, `"'`)
		}
	}
	return env
}
