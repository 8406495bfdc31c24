package main

import "testing"

// TestWriteConsistencyDefault checks --cassandra-write-consistency's
// default: EACH_QUORUM for a node of several data centers, the read level
// otherwise, and what the flag says when given.
func TestWriteConsistencyDefault(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		consistency, writes, localDC string
		want                         string
	}{
		{name: "one data center", consistency: "LOCAL_QUORUM", want: "LOCAL_QUORUM"},
		{name: "one data center, other reads", consistency: "QUORUM", want: "QUORUM"},
		{name: "several data centers", consistency: "LOCAL_QUORUM", localDC: "dc1", want: "EACH_QUORUM"},
		{name: "several, fast", consistency: "LOCAL_QUORUM", localDC: "dc1", writes: "LOCAL_QUORUM", want: "LOCAL_QUORUM"},
		{name: "given", consistency: "LOCAL_QUORUM", writes: "ONE", want: "ONE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := storeConfig{cassandraConsistency: tc.consistency, cassandraWrites: tc.writes, cassandraLocalDC: tc.localDC}
			if got := c.writeConsistency(); got != tc.want {
				t.Errorf("write consistency %q, want %q", got, tc.want)
			}
		})
	}
}
