package main

import (
	"io"
	"slices"
	"testing"
)

func TestParseFlagsAnywhereAndFromEnvironment(t *testing.T) {
	t.Setenv("HERALD_SERVER", "http://from-env:1")
	cases := []struct {
		args       []string
		wantServer string
		wantLimit  int
		wantArgs   []string
	}{
		{[]string{"UUID"}, "http://from-env:1", 0, []string{"UUID"}},
		{[]string{"UUID", "--server", "http://x:2"}, "http://x:2", 0, []string{"UUID"}},
		{[]string{"--limit", "5", "a.#", "--server", "http://y:3"}, "http://y:3", 5, []string{"a.#"}},
		{[]string{"--", "--not-a-flag"}, "http://from-env:1", 0, []string{"--not-a-flag"}},
	}
	for _, tc := range cases {
		fs, cf := newClientFlagSet("latest", "latest PATTERN", io.Discard, true)
		if err := parseFlags(fs, tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cf.server != tc.wantServer || cf.limit != tc.wantLimit || !slices.Equal(fs.Args(), tc.wantArgs) {
			t.Errorf("%v: server %q limit %d args %q; want %q %d %q", tc.args, cf.server, cf.limit, fs.Args(), tc.wantServer, tc.wantLimit, tc.wantArgs)
		}
	}
}

func TestBadEnvironmentValueIsAnError(t *testing.T) {
	t.Setenv("HERALD_LIMIT", "lots")
	fs, _ := newClientFlagSet("all", "all PATH", io.Discard, true)
	if err := parseFlags(fs, []string{"a.b"}); err == nil {
		t.Fatal("HERALD_LIMIT=lots was accepted")
	}
}

func TestEnvName(t *testing.T) {
	if got := envName("cassandra-local-dc"); got != "HERALD_CASSANDRA_LOCAL_DC" {
		t.Fatalf("envName = %q", got)
	}
}

func TestParseReplication(t *testing.T) {
	r, err := parseReplication("3")
	if err != nil || r.Class != "SimpleStrategy" || r.Factor != 3 {
		t.Fatalf("parseReplication(3) = %+v, %v", r, err)
	}
	r, err = parseReplication("eu-west:3, us-east:2")
	if err != nil || r.Class != "NetworkTopologyStrategy" || r.DataCenters["eu-west"] != 3 || r.DataCenters["us-east"] != 2 {
		t.Fatalf("parseReplication(dcs) = %+v, %v", r, err)
	}
	for _, bad := range []string{"", "eu", "eu:x", ":3"} {
		if _, err := parseReplication(bad); err == nil {
			t.Errorf("parseReplication(%q) accepted", bad)
		}
	}
}

func TestServeConfigValidation(t *testing.T) {
	for _, args := range [][]string{
		{"--store", "mysql"},
		{"--default-ttl", "0s"},
		{"--default-ttl", "800h"},
		{"--default-page-limit", "2000"},
		{"extra-argument"},
	} {
		if err := runServe(t.Context(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("serve %v started", args)
		}
	}
}
