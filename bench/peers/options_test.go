package main

import (
	"slices"
	"testing"
	"time"
)

func TestOptions(t *testing.T) {
	o, err := parseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.rounds != 3 || o.duration != 10*time.Second || o.warmup != 2*time.Minute || !o.sqs || !o.ws || o.cassandra ||
		!slices.Equal(o.wsConnections, []int{2000}) || o.measures(sysHeraldCassandra) || !o.measures(sysMoto) || !o.measures(sysCeiling) {
		t.Fatalf("defaults %+v", o)
	}
	o, err = parseOptions([]string{"--smoke", "--only", "herald,fauxqs", "--cassandra"})
	if err != nil {
		t.Fatal(err)
	}
	if o.rounds != 1 || o.duration != 3*time.Second || !slices.Equal(o.wsConnections, []int{200}) ||
		!slices.Equal(o.only, []string{sysHerald, sysFauxqs, sysHeraldCassandra}) || o.measures(sysMoto) || !o.measures(sysTCPFloor) {
		t.Fatalf("smoke %+v", o)
	}
	o, err = parseOptions([]string{"--ws-connections", "2000, 10000"})
	if err != nil || !slices.Equal(o.wsConnections, []int{2000, 10000}) {
		t.Fatalf("%v %v", o.wsConnections, err)
	}
	for _, bad := range [][]string{{"--only", "sqs"}, {"--rounds", "0"}, {"--ws-connections", "x"}, {"--duration", "10ms"}, {"extra"}} {
		if _, err := parseOptions(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestRotated(t *testing.T) {
	order := []string{"a", "b", "c"}
	for round, want := range [][]string{{"a", "b", "c"}, {"b", "c", "a"}, {"c", "a", "b"}, {"a", "b", "c"}} {
		if got := rotated(order, round, true); !slices.Equal(got, want) {
			t.Errorf("round %d: %v", round, got)
		}
	}
	if got := rotated(order, 1, false); !slices.Equal(got, order) {
		t.Errorf("unrotated: %v", got)
	}
}
