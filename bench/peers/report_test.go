package main

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		xs   []float64
		want string
	}{
		{nil, "–"},
		{[]float64{2}, "2.00"},
		{[]float64{3, 1, 2}, "2.00 (1.00–3.00)"},
		{[]float64{4, 1, 2, 3}, "2.50 (1.00–4.00)"},
		{[]float64{5, 5}, "5.00"},
	}
	for _, tt := range tests {
		if got := summarize(tt.xs).format(2); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.xs, got, tt.want)
		}
	}
}

// testReport is two rounds of a ceiling, Herald and Herald on Cassandra,
// one failed run, and a fan-out.
func testReport() report {
	sq := func(system, scenario string, round int, calls, msgs, cpu float64) sqsSample {
		return sqsSample{System: system, Scenario: scenario, Round: round, CallsPerSec: calls, MessagesPerSec: msgs,
			Calls: int(calls * 10), Elapsed: 10, Seconds: 10, P50ms: 1, P99ms: 5, ServerCPU: cpu, ClientCPU: cpu / 2,
			Memory: memory{RSS: 100 << 20, HWM: 120 << 20}}
	}
	cass := sq(sysHeraldCassandra, scenarioMix, 1, 1000, 333, 3)
	cass.ServiceCPU = map[string]float64{"Cassandra": 4, "Redis": 1}
	return report{
		Date: "2026-12-02 12:00 UTC", Command: "go run ./bench/peers --rounds 2",
		Machine:  machine{CPUs: 2, CPUModel: "Test CPU", MemoryGiB: 24, Kernel: "6.0"},
		Versions: []version{{"Herald", "abc"}},
		Settings: settings{Rounds: 2, Duration: "10s", Warmup: "1m0s", WarmupShort: "5s", Concurrency: 64, MessageSize: 1024,
			WSConnections: []int{2000}, WSMessages: 20, WSRate: 2, Rotate: true},
		SQS: []sqsSample{
			sq(sysCeiling, scenarioMix, 1, 20000, 6667, 5.6),
			sq(sysHerald, scenarioMix, 1, 10000, 3333, 5),
			sq(sysCeiling, scenarioMix, 2, 25000, 8333, 7),
			sq(sysHerald, scenarioMix, 2, 10000, 3333, 6),
			sq(sysCeiling, scenarioBatch10, 1, 8000, 26000, 2),
			sq(sysHerald, scenarioBatch10, 1, 5000, 13000, 2.6),
			cass,
			{System: sysHeraldCassandra, Scenario: scenarioMix, Round: 2, Failed: "exit status 1: boom"},
		},
		WS: []wsSample{
			{System: sysTCPFloor, Round: 1, Connections: 2000, Expected: 40000, Delivered: 40000, P50ms: 10, P99ms: 40},
			{System: sysHerald, Round: 1, Connections: 2000, Expected: 40000, Delivered: 39990, Lost: 10, P50ms: 20, P99ms: 60,
				ResidentPerConn: 21 * 1024, HeapPerConn: 10 * 1024, ServerCPU: 3},
		},
	}
}

func TestReportMarkdown(t *testing.T) {
	var b strings.Builder
	testReport().markdown(&b)
	md := b.String()
	for _, want := range []string{
		"- Command: `go run ./bench/peers --rounds 2`",
		"- Machine: 2 CPUs (`nproc`), Test CPU, 24.0 GiB of memory, Linux 6.0",
		// Herald: 0.5 of the ceiling in round 1, 0.4 in round 2; 5 and 6
		// CPU-s over 100,000 calls.
		"| Herald embedded | 10000 | 0.450 (0.400–0.500) | 1.00 | 5.00 | 0 | 0.055 (0.050–0.060) | 0.028 (0.025–0.030) | 120 / 100 |",
		"| ceiling (trivial Go net/http) | 22500 (20000–25000) | 1 |",
		// Batches: the ratio is of messages, 13000 over 26000.
		"| Herald embedded | 13000 | 0.500 | 5000 |",
		"| Herald on Cassandra + Redis | 1000 | 0.050 | 1.00 | 5.00 | 0 (1 runs failed) | 0.300; + Cassandra 0.400, Redis 0.100 |",
		"| Herald embedded | 2000 | 20.00 | 60.00 | 1.50 | 39990 / 40000 | 10 | 21.0 | 10.0 | 3.00 |",
		"| plain TCP floor (bench/tcpfloor) | 2000 | 10.00 | 40.00 | 1 | 40000 / 40000 | 0 | – | – | – |",
		"| 2 | herald-cassandra | mix | failed: exit status 1: boom |",
		"Herald embedded is durable",
		"Herald on Cassandra + Redis stores messages in Cassandra",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	for _, absent := range []string{"fauxqs", "moto is", "ElasticMQ runs"} {
		if strings.Contains(md, absent) {
			t.Errorf("%q in a report without it:\n%s", absent, md)
		}
	}
}

func TestParseTCPFloor(t *testing.T) {
	out := "2000 connections, 20 rounds of 400 bytes, writes: goroutines\n" +
		"deliveries 40000: p50 12.34ms, p90 20ms, p99 41.5ms, max 60.01ms (round start → message read)\n"
	d, p50, p99, err := parseTCPFloor(out)
	if err != nil || d != 40000 || p50 != 12.34 || p99 != 41.5 {
		t.Fatalf("%d %v %v %v", d, p50, p99, err)
	}
	if _, _, _, err := parseTCPFloor("nothing"); err == nil {
		t.Fatal("no deliveries line accepted")
	}
}

func TestParseExports(t *testing.T) {
	env := parseExports("export HERALD_TEST_CASSANDRA=127.0.0.1:9042\nexport HERALD_TEST_REDIS='127.0.0.1:6379'\n\nnoise\n")
	if env["HERALD_TEST_CASSANDRA"] != "127.0.0.1:9042" || env["HERALD_TEST_REDIS"] != "127.0.0.1:6379" || len(env) != 2 {
		t.Fatalf("%v", env)
	}
}

func TestMachineInfo(t *testing.T) {
	if got := cpuModel("processor\t: 0\nvendor_id\t: X\nmodel name\t: Some CPU @ 2GHz\n\nprocessor\t: 1\nmodel name\t: Some CPU @ 2GHz\n"); got != "Some CPU @ 2GHz" {
		t.Fatal(got)
	}
	if got := redisVersion("Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64"); got != "7.0.15" {
		t.Fatal(got)
	}
	if got := memTotalKiB("MemTotal:       24576000 kB\nMemFree: 1 kB\n"); got != 24576000 {
		t.Fatal(got)
	}
}
