package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/chaos"
)

// TestChaos runs the fault drill's short form (RELIABILITY.md) on both
// setups: real herald processes killed with SIGKILL, and on Cassandra a
// Redis restarted empty and Herald's links to Redis and Cassandra cut.
// Nothing acknowledged may be lost or stranded, no delivery corrupt.
func TestChaos(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		runDrill(t, chaos.Config{
			Store:       chaos.StoreEmbedded,
			Scenarios:   []string{"sqs", "cache", "sns-queues"},
			Faults:      []chaos.FaultKind{chaos.HeraldKill},
			FaultRounds: 2,
		}, 2)
	})
	t.Run("cassandra", func(t *testing.T) {
		requireCassandra(t)
		if _, err := exec.LookPath("redis-server"); err != nil {
			msg := "redis-server is not installed (the drill runs its own); scripts/services start redis installs it"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		runDrill(t, chaos.Config{
			Store:             chaos.StoreCassandra,
			CassandraHosts:    []string{cassandraAddr()},
			CassandraKeyspace: cassandraKeyspace, // dropped by TestMain
			Scenarios:         []string{"sqs", "sqs-fifo"},
			Faults:            []chaos.FaultKind{chaos.HeraldKill, chaos.RedisRestart, chaos.RedisCut, chaos.CassandraCut},
			FaultRounds:       1,
		}, 4)
	})
}

// runDrill runs a short drill: small, paced, quick faults. Each scenario
// must see faults faults injected and recovered from, acknowledge enough
// messages to show that the load ran, and lose, strand or corrupt none.
func runDrill(t *testing.T, cfg chaos.Config, faults int) {
	t.Helper()
	cfg.HeraldBin = heraldBin
	cfg.Messages = 1000
	cfg.Rate = 250
	cfg.Producers, cfg.Consumers = 2, 2
	cfg.Duration = time.Minute
	cfg.FaultEvery = 3 * time.Second
	cfg.CutFor = 3 * time.Second
	cfg.Visibility = 5 * time.Second
	cfg.DrainTimeout = 30 * time.Second
	cfg.Settle = 8 * time.Second
	cfg.WorkDir = t.TempDir()
	var progress strings.Builder
	cfg.Log = &progress
	start := time.Now()
	report, err := chaos.Run(testContext(t), cfg)
	var text strings.Builder
	if report != nil {
		report.WriteText(&text)
	}
	t.Logf("drill took %s\n%s", time.Since(start).Round(time.Second), text.String())
	if err != nil {
		t.Fatalf("the drill did not run: %v\n%s", err, progress.String())
	}
	if report.Failed() {
		t.Errorf("the drill failed; its progress:\n%s", progress.String())
	}
	for _, s := range report.Scenarios {
		if s.Error != "" {
			t.Errorf("%s: %s", s.Scenario, s.Error)
		}
		if s.Lost != 0 || s.Stranded != 0 || s.Corrupt != 0 {
			t.Errorf("%s: %d lost (e.g. %v), %d stranded (e.g. %v), %d corrupt (%v)", s.Scenario, s.Lost, s.LostIDs, s.Stranded, s.StrandedIDs, s.Corrupt, s.CorruptSample)
		}
		if min := int64(cfg.Messages * s.Subscribers); s.Acknowledged < min {
			t.Errorf("%s: only %d messages acknowledged, want at least %d: the load did not run", s.Scenario, s.Acknowledged, min)
		}
		if len(s.Faults) != faults {
			t.Errorf("%s: %d faults injected, want %d", s.Scenario, len(s.Faults), faults)
		}
		for _, f := range s.Faults {
			if f.Error != "" {
				t.Errorf("%s: fault %s failed: %s", s.Scenario, f.Kind, f.Error)
			} else if f.AckRecovery < 0 || f.RecvRecovery < 0 {
				t.Errorf("%s: no acknowledged send or no delivery after fault %s ended", s.Scenario, f.Kind)
			}
		}
	}
}
