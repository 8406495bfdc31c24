package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machine describes where the run happened.
type machine struct {
	CPUs      int     `json:"cpus"`
	CPUModel  string  `json:"cpu_model"`
	MemoryGiB float64 `json:"memory_gib"`
	Kernel    string  `json:"kernel"`
}

func describeMachine() machine {
	m := machine{CPUs: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemoryGiB = float64(memTotalKiB(string(b))) / (1 << 20)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// cpuModel is the first "model name" of a /proc/cpuinfo.
func cpuModel(cpuinfo string) string {
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	for sc.Scan() {
		if key, value, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown"
}

// memTotalKiB is MemTotal of a /proc/meminfo.
func memTotalKiB(meminfo string) int64 {
	sc := bufio.NewScanner(strings.NewReader(meminfo))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// version is one component's version as the run found it.
type version struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// versions asks each component the run used for its version.
func (r *runner) versions() []version {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := func(name string, args ...string) string {
		out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
		line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if err != nil && line == "" {
			return "unknown (" + err.Error() + ")"
		}
		return line
	}
	vs := []version{
		{"Herald", first("git", "-C", r.repo, "describe", "--always", "--dirty", "--abbrev=12")},
		{"Go", runtime.Version()},
	}
	o := r.opts
	if o.sqs && o.measures(sysFauxqs) {
		var pkg struct{ Version string }
		if b, err := os.ReadFile(r.in.path("fauxqs/node_modules/fauxqs/package.json")); err == nil {
			json.Unmarshal(b, &pkg)
		}
		vs = append(vs, version{"fauxqs", pkg.Version + " on Node " + first(r.in.path(nodeBin), "--version")})
	}
	if o.sqs && o.measures(sysElasticMQ) {
		vs = append(vs, version{"ElasticMQ", "elasticmq-server_2.13 " + pins.ElasticMQ + " on " + first("java", "-version")})
	}
	if o.sqs && o.measures(sysMoto) {
		vs = append(vs, version{"moto", first(r.in.path(motoPython), "-c", "import moto, sys; print(moto.__version__, 'on Python', sys.version.split()[0])")})
	}
	if o.ws && o.measures(sysCentrifugo) {
		vs = append(vs, version{"Centrifugo", strings.TrimPrefix(first(r.in.path(centrifugoBin), "version"), "Centrifugo ")})
	}
	if o.sqs && o.measures(sysHeraldCassandra) {
		vs = append(vs, version{"Cassandra", first(r.repo+"/scripts/services", "cql")},
			version{"Redis", redisVersion(first("redis-server", "--version"))})
	}
	return vs
}

func (v version) String() string { return fmt.Sprintf("%s %s", v.Name, v.Version) }

// redisVersion picks the version out of `redis-server --version`
// ("Redis server v=7.0.15 sha=... malloc=..."), or returns all of it.
func redisVersion(line string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "v="); ok {
			return v
		}
	}
	return line
}
