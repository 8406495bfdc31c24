package pebblestore

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

func TestKeyspaceEnd(t *testing.T) {
	tests := []struct {
		name string
		key  []byte
		want []byte
	}{
		{"empty key: to the end", nil, nil},
		{"message record", messageKey(v1(t0)), []byte{prefixMessage + 1}},
		{"journal", journalKey(1, v1(t0)), []byte{prefixJournal + 1}},
		{"bare prefix", []byte{prefixSQSMsg}, []byte{prefixSQSMsg + 1}},
		{"last possible keyspace: to the end", []byte{0xff, 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keyspaceEnd(tt.key); !bytes.Equal(got, tt.want) {
				t.Errorf("keyspaceEnd(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

// A flush of messages, which write four keyspaces (history, journal,
// records, expiry), leaves files that each hold one keyspace.
func TestFlushedFilesHoldOneKeyspace(t *testing.T) {
	db := openDB(t, newClock(t0), Options{})
	for i := range 50 {
		put(t, db, msg(t0.Add(time.Duration(i)*time.Millisecond), t0, time.Hour, fmt.Sprintf("a.p%d", i%7)))
	}
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	levels, err := db.pdb.SSTables()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[byte]bool{}
	for _, level := range levels {
		for _, f := range level {
			lo, hi := f.Smallest.UserKey, f.Largest.UserKey
			if lo[0] != hi[0] {
				t.Errorf("file %s spans keyspaces %q to %q", f.FileNum, lo[0], hi[0])
			}
			seen[lo[0]] = true
		}
	}
	for _, p := range []byte{prefixHistory, prefixJournal, prefixMessage, prefixExpiry} {
		if !seen[p] {
			t.Errorf("no file holds keyspace %q (files: %v)", p, levels)
		}
	}
}
