package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
)

// loadServe runs the flag handling of 'herald serve' on args and a
// configuration file holding text ("" for none), as runServe does.
func loadServe(t *testing.T, text string, args ...string) (serveConfig, error) {
	t.Helper()
	cfg := serveConfig{cache: cache.DefaultConfig()}
	fs := newServeFlags(&cfg, io.Discard)
	if text != "" {
		path := filepath.Join(t.TempDir(), "herald.yaml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append([]string{"--config", path}, args...)
	}
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	if cfg.configPath != "" {
		fc, err := loadConfigFile(fs, cfg.configPath)
		if err != nil {
			return cfg, err
		}
		cfg.declared = fc
	}
	return cfg, nil
}

func TestConfigFileSetsFlags(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		check func(t *testing.T, c serveConfig)
	}{
		{"flat keys are flag names", "listen: 0.0.0.0:9999\naws-region: eu-west-1\nstore: cassandra\n", func(t *testing.T, c serveConfig) {
			if c.listen != "0.0.0.0:9999" || c.aws.region != "eu-west-1" || c.store.engine != "cassandra" {
				t.Errorf("listen %q, region %q, store %q", c.listen, c.aws.region, c.store.engine)
			}
		}},
		{"nested keys join the words of a flag name", "aws:\n  region: eu-west-1\ncassandra:\n  keyspace: ks\n  local:\n    dc: dc1\n", func(t *testing.T, c serveConfig) {
			if c.aws.region != "eu-west-1" || c.store.cassandraKeyspace != "ks" || c.store.cassandraLocalDC != "dc1" {
				t.Errorf("region %q, keyspace %q, local dc %q", c.aws.region, c.store.cassandraKeyspace, c.store.cassandraLocalDC)
			}
		}},
		{"typed values", "access-log: true\nreap-interval: 3s\nmax-batch: 7\nblock-cache-bytes: 1048576\n", func(t *testing.T, c serveConfig) {
			if !c.ops.accessLog || c.store.reapInterval != 3*time.Second || c.cache.MaxBatch != 7 || c.store.cacheBytes != 1<<20 {
				t.Errorf("access log %v, reap %v, max batch %d, cache bytes %d", c.ops.accessLog, c.store.reapInterval, c.cache.MaxBatch, c.store.cacheBytes)
			}
		}},
		{"tls keys, flat or grouped", "tls-cert: /etc/herald/tls.crt\ntls:\n  key: /etc/herald/tls.key\n", func(t *testing.T, c serveConfig) {
			if c.tls.certFile != "/etc/herald/tls.crt" || c.tls.keyFile != "/etc/herald/tls.key" {
				t.Errorf("tls cert %q, key %q", c.tls.certFile, c.tls.keyFile)
			}
		}},
		{"a list is joined with commas", "cassandra-hosts: [a:9042, b:9042]\n", func(t *testing.T, c serveConfig) {
			if c.store.cassandraHosts != "a:9042,b:9042" {
				t.Errorf("cassandra hosts %q", c.store.cassandraHosts)
			}
		}},
		{"a repeatable flag takes a mapping", "sqs-limit:\n  MaxMaximumMessageSize: 2097152\ncache-grants:\n  \"111111111111\": [\"a.#\", \"b.#\"]\n", func(t *testing.T, c serveConfig) {
			if c.aws.limits.MaxMaximumMessageSize != 2097152 {
				t.Errorf("MaxMaximumMessageSize %d", c.aws.limits.MaxMaximumMessageSize)
			}
			if got := strings.Join(c.auth.grants["111111111111"], " "); got != "a.# b.#" {
				t.Errorf("grants %q", got)
			}
		}},
		{"rate limits as a list and as a mapping", "limit: [sqs=500/s, \"123456789012/sqs=5000/s:10000\"]\nmax-in-flight: 64\n", func(t *testing.T, c serveConfig) {
			if got := c.limits.String(); got != "sqs=500/s 123456789012/sqs=5000/s:10000" || c.limits.maxInFlight != 64 {
				t.Errorf("limits %q, max in flight %d", got, c.limits.maxInFlight)
			}
		}},
		{"rate limits as a mapping", "limit:\n  sns: 20/s\n  path: 5/s:10\n", func(t *testing.T, c serveConfig) {
			if got := c.limits.String(); got != "sns=20/s path=5/s:10" && got != "path=5/s:10 sns=20/s" {
				t.Errorf("limits %q", got)
			}
		}},
		{"a repeatable flag takes a list", "sqs-limit: [MaxMaximumMessageSize=2097152]\n", func(t *testing.T, c serveConfig) {
			if c.aws.limits.MaxMaximumMessageSize != 2097152 {
				t.Errorf("MaxMaximumMessageSize %d", c.aws.limits.MaxMaximumMessageSize)
			}
		}},
		{"an empty file changes nothing", "# nothing\n", func(t *testing.T, c serveConfig) {
			if c.listen != "127.0.0.1:4566" {
				t.Errorf("listen %q", c.listen)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadServe(t, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// The command line wins over the environment, which wins over the file,
// which wins over the defaults.
func TestConfigPrecedence(t *testing.T) {
	const file = "aws-region: from-file\nlisten: 127.0.0.1:1\nlog-level: warn\n"
	t.Setenv("HERALD_LISTEN", "127.0.0.1:2")
	t.Setenv("HERALD_LOG_LEVEL", "error")
	c, err := loadServe(t, file, "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	if c.aws.region != "from-file" {
		t.Errorf("file over default: aws-region %q", c.aws.region)
	}
	if c.listen != "127.0.0.1:2" {
		t.Errorf("environment over file: listen %q", c.listen)
	}
	if c.logLevel != "debug" {
		t.Errorf("command line over environment and file: log-level %q", c.logLevel)
	}
}

func TestConfigFileFromEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "herald.yaml")
	if err := os.WriteFile(path, []byte("aws-account: \"123456789012\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HERALD_CONFIG", path)
	c, err := loadServe(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.aws.account != "123456789012" {
		t.Errorf("aws-account %q from the file HERALD_CONFIG names", c.aws.account)
	}
}

func TestConfigFileErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // each in the error
	}{
		{"unknown key names the closest flag", "listen: x\naws-regoin: eu-west-1\n", []string{"line 2", `"aws-regoin"`, "--aws-region"}},
		{"unknown nested key", "cassandra:\n  keyspce: x\n", []string{"line 2", "--cassandra-keyspace"}},
		{"unknown key of a queue", "queues:\n  - name: q\n    attribute: {}\n", []string{"line 3", `"attribute"`, "attributes"}},
		{"unknown key of a subscription", "topics:\n  - name: t\n    subscriptions:\n      - protocl: sqs\n", []string{"line 4", "protocol"}},
		{"a flag set twice", "aws-region: a\naws:\n  region: b\n", []string{"line 3", "aws-region is set twice", "line 1"}},
		{"a mapping for a plain flag", "listen:\n  host: x\n", []string{"listen takes a value"}},
		{"no value", "listen:\n", []string{"listen has no value"}},
		{"a bad value", "max-batch: many\n", []string{"max-batch", `"many"`}},
		{"a bad repeatable value", "sqs-limit: {NoSuchLimit: 1}\n", []string{"sqs-limit", "NoSuchLimit"}},
		{"no other file", "config: other.yaml\n", []string{"cannot name another"}},
		{"not a mapping", "- listen\n", []string{"want a mapping"}},
		{"not YAML", "listen: [\n", []string{"yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadServe(t, tt.text)
			if err == nil {
				t.Fatalf("no error for:\n%s", tt.text)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestConfigFileMissing(t *testing.T) {
	_, err := loadServe(t, "", "--config", filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "--config") {
		t.Fatalf("got %v, want an error naming --config", err)
	}
}

func TestConfigDeclarations(t *testing.T) {
	c, err := loadServe(t, `
queues:
  - name: orders
    attributes:
      VisibilityTimeout: 45
      Policy: {Version: "2012-10-17", Statement: []}
    dead_letter_queue: {name: orders-dlq, max_receive_count: 4}
    tags: {team: billing}
topics:
  - name: events
    region: eu-west-1
    subscriptions:
      - queue: orders
        attributes: {RawMessageDelivery: true}
`)
	if err != nil {
		t.Fatal(err)
	}
	q := c.declared.Queues
	if len(q) != 1 || q[0].Name != "orders" || q[0].Attributes["VisibilityTimeout"] != "45" || q[0].DLQ == nil ||
		q[0].DLQ.MaxReceiveCount != 4 || q[0].Tags["team"] != "billing" {
		t.Fatalf("queues %+v", q)
	}
	if got := q[0].Attributes["Policy"]; got != `{"Statement":[],"Version":"2012-10-17"}` {
		t.Errorf("a mapping attribute becomes JSON: %s", got)
	}
	tp := c.declared.Topics
	if len(tp) != 1 || tp[0].Region != "eu-west-1" || len(tp[0].Subscriptions) != 1 || tp[0].Subscriptions[0].Queue != "orders" ||
		tp[0].Subscriptions[0].Attributes["RawMessageDelivery"] != "true" {
		t.Fatalf("topics %+v", tp)
	}
}

// docs/configuration.md mentions every flag of 'herald serve', so that a new
// flag cannot go undocumented.
func TestEveryServeFlagIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	fs := newServeFlags(&serveConfig{cache: cache.DefaultConfig()}, io.Discard)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if !strings.Contains(string(doc), "`--"+f.Name+"`") {
			t.Errorf("docs/configuration.md does not mention `--%s`", f.Name)
		}
	})
	if n < 60 {
		t.Fatalf("only %d flags: is this the flag set of herald serve?", n)
	}
}

// The full example of docs/configuration.md is a valid configuration file.
func TestConfigurationDocExampleParses(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(doc), "```yaml\n")
	if !ok {
		t.Fatal("no yaml example in docs/configuration.md")
	}
	example, _, _ = strings.Cut(example, "```")
	c, err := loadServe(t, example)
	if err != nil {
		t.Fatalf("the example: %v", err)
	}
	if len(c.declared.Queues) != 4 || len(c.declared.Topics) != 1 || c.aws.limits.MaxMaximumMessageSize != 2097152 {
		t.Errorf("the example declares %d queues, %d topics; sqs limit %d", len(c.declared.Queues), len(c.declared.Topics), c.aws.limits.MaxMaximumMessageSize)
	}
	e := newDeclareEnv(t)
	e.aws = c.aws
	if err := declareResources(context.Background(), c.declared, e.queues, e.topics, c.aws, []string{"us-east-1", "eu-west-1"}, "http", "127.0.0.1:4566"); err != nil {
		t.Errorf("declaring the example: %v", err)
	}
}
