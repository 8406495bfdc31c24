package main

import (
	"fmt"
	"testing"
)

func TestDCPeers(t *testing.T) {
	for _, tc := range []struct {
		text, local, want, err string
	}{
		{"", "", "map[]", ""},
		{"dc2=10.0.0.2:6379", "dc1", "map[dc2:[10.0.0.2:6379]]", ""},
		{" dc2 = a:1, b:2 ; dc3=c:3;", "dc1", "map[dc2:[a:1 b:2] dc3:[c:3]]", ""},
		{"dc2=a:1", "", "", "--dc-peer-redis needs --cassandra-local-dc"},
		{"dc1=a:1", "dc1", "", "--dc-peer-redis: dc1 is this node's own data center (its Redis is --redis-addr)"},
		{"dc2=a:1;dc2=b:2", "dc1", "", "--dc-peer-redis: data center dc2 named twice"},
		{"dc2", "dc1", "", `--dc-peer-redis: "dc2" is not DC=host:port[,host:port]`},
		{"=a:1", "dc1", "", `--dc-peer-redis: "=a:1" is not DC=host:port[,host:port]`},
	} {
		got, err := dcPeers(tc.text, tc.local)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("dcPeers(%q, %q) error %v, want %s", tc.text, tc.local, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("dcPeers(%q, %q) = %v, %v; want %s", tc.text, tc.local, got, err, tc.want)
		}
	}
}

func TestLegacyHome(t *testing.T) {
	peers := map[string][]string{"east": {"a:1"}, "west": {"b:1"}}
	if got := legacyHome("", "north", peers); got != "east" {
		t.Errorf("legacyHome = %q, want the first by name, east", got)
	}
	if got := legacyHome("west", "north", peers); got != "west" {
		t.Errorf("legacyHome with the flag = %q, want west", got)
	}
}
