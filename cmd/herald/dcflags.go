package main

import (
	"fmt"
	"slices"
	"strings"
)

// dcPeers reads --dc-peer-redis: the Redis addresses of each other data
// center, by name. local is this node's (--cassandra-local-dc); naming it
// is an error, as is a data center named twice.
func dcPeers(text, local string) (map[string][]string, error) {
	out := map[string][]string{}
	for part := range strings.SplitSeq(text, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		dc, addrs, ok := strings.Cut(part, "=")
		dc = strings.TrimSpace(dc)
		if !ok || dc == "" || strings.TrimSpace(addrs) == "" {
			return nil, fmt.Errorf("--dc-peer-redis: %q is not DC=host:port[,host:port]", part)
		}
		if local == "" {
			return nil, fmt.Errorf("--dc-peer-redis needs --cassandra-local-dc")
		}
		if dc == local {
			return nil, fmt.Errorf("--dc-peer-redis: %s is this node's own data center (its Redis is --redis-addr)", dc)
		}
		if _, dup := out[dc]; dup {
			return nil, fmt.Errorf("--dc-peer-redis: data center %s named twice", dc)
		}
		for a := range strings.SplitSeq(addrs, ",") {
			if a = strings.TrimSpace(a); a != "" {
				out[dc] = append(out[dc], a)
			}
		}
	}
	return out, nil
}

// legacyHome is --dc-legacy-home, else the first data center by name.
func legacyHome(flag, local string, peers map[string][]string) string {
	if flag != "" {
		return flag
	}
	names := []string{local}
	for dc := range peers {
		names = append(names, dc)
	}
	return slices.Min(names)
}
