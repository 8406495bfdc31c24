package main

import (
	"io"
	"slices"
	"strings"
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
	t.Setenv("HERALD_MAX_BATCH", "lots")
	if err := runServe(t.Context(), nil, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "HERALD_MAX_BATCH") {
		t.Fatalf("HERALD_MAX_BATCH=lots: %v, want an error naming it", err)
	}
}

// TestClientCommandsReadOnlyTheirOwnVariables: client commands take
// HERALD_SERVER and HERALD_TOKEN from the environment, and ignore generic
// names such as HERALD_PATH and HERALD_LIMIT (which a shell may hold for
// anything).
func TestClientCommandsReadOnlyTheirOwnVariables(t *testing.T) {
	t.Setenv("HERALD_SERVER", "http://from-env:1")
	t.Setenv("HERALD_TOKEN", "tok")
	t.Setenv("HERALD_LIMIT", "lots")
	t.Setenv("HERALD_CURSOR", "c")
	t.Setenv("HERALD_PATH", "x.y")
	fs, cf := newClientFlagSet("all", "all PATH", io.Discard, true)
	var paths stringList
	fs.Var(&paths, "path", "a path")
	if err := parseFlags(fs, []string{"a.b"}); err != nil {
		t.Fatalf("parseFlags: %v", err)
	}
	if cf.server != "http://from-env:1" || cf.token != "tok" || cf.limit != 0 || cf.cursor != "" || len(paths) != 0 {
		t.Errorf("server %q token %q limit %d cursor %q paths %q; want only server and token from the environment", cf.server, cf.token, cf.limit, cf.cursor, paths)
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
		{"--http-server", "fasthttp"},
		{"extra-argument"},
	} {
		if err := runServe(t.Context(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("serve %v started", args)
		}
	}
}
