package redisindex

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqstest"
)

// startRedisCluster runs a Redis Cluster of three masters of the test's
// own (redis-server and redis-cli from the machine) and returns their
// addresses.
func startRedisCluster(t *testing.T) []string {
	t.Helper()
	requireRedisCommands(t, "redis-server", "redis-cli")
	var addrs []string
	for range 3 {
		addr, bus := deadAddr(t), deadAddr(t)
		port, busPort := addr[strings.LastIndexByte(addr, ':')+1:], bus[strings.LastIndexByte(bus, ':')+1:]
		dir := t.TempDir()
		cmd := exec.Command("redis-server", "--port", port, "--cluster-port", busPort, "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--save", "", "--appendonly", "no", "--dir", dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		waitFor(t, "redis-server on "+addr, pings(addr))
		addrs = append(addrs, addr)
	}
	out, err := exec.Command("redis-cli", append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, addr := range addrs {
		waitFor(t, "the cluster as seen from "+addr, func() bool {
			c := redis.NewClient(&redis.Options{Addr: addr})
			defer c.Close()
			info, err := c.ClusterInfo(context.Background()).Result()
			return err == nil && strings.Contains(info, "cluster_state:ok")
		})
	}
	return addrs
}

// The Index keeps every key of a queue under one hash tag, so that each
// queue lives on one shard of a Redis Cluster: the conformance suite and
// the cross-node notifier run against a cluster of three masters.
func TestRedisCluster(t *testing.T) {
	addrs := startRedisCluster(t)
	client := func(t *testing.T) redis.UniversalClient {
		c := redis.NewUniversalClient(ClientOptions(addrs...))
		if _, ok := c.(*redis.ClusterClient); !ok {
			t.Fatalf("client %T, want a cluster client", c)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	t.Run("IndexConformance", func(t *testing.T) {
		sqstest.RunIndex(t, func(t *testing.T) sqs.Index {
			c := client(t)
			return New(c, Options{Prefix: freshPrefix(t, c)})
		})
	})
	t.Run("IndexConformancePipelined", func(t *testing.T) {
		sqstest.RunIndex(t, func(t *testing.T) sqs.Index {
			c := client(t)
			return New(c, Options{Prefix: freshPrefix(t, c), AutoPipeline: true})
		})
	})
	t.Run("NotifierAcrossNodes", func(t *testing.T) {
		a, b := NewNotifier(client(t), Options{AutoPipeline: true}), NewNotifier(client(t), Options{})
		t.Cleanup(func() { a.Close(); b.Close() })
		id := uuid.New()
		ch, cancel := b.Wait(id)
		defer cancel()
		// b subscribes in the background: notify until it is woken.
		deadline := time.Now().Add(10 * time.Second)
		for !isClosed(ch, 100*time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("a Notify on node a never woke the waiter on node b through the cluster")
			}
			a.Notify(context.Background(), id)
		}
	})
}
