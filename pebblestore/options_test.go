package pebblestore

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
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

// A flush writes message records of at least valueSeparation.MinimumSize
// to blob files, and the records still read back whole, from the store
// and from a checkpoint of it (a backup copies the blob files too).
func TestFlushSeparatesLargeRecords(t *testing.T) {
	db := openDB(t, newClock(t0), Options{})
	body := bytes.Repeat([]byte("b"), 1024)
	var ms []*cache.Message
	for i := range 50 {
		m := msg(t0.Add(time.Duration(i)*time.Millisecond), t0, time.Hour, fmt.Sprintf("a.p%d", i%7))
		m.Body = body
		put(t, db, m)
		ms = append(ms, m)
	}
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	blobs := db.pdb.Metrics().BlobFiles
	if blobs.LiveCount == 0 || blobs.ReferencedValueSize < uint64(50*len(body)) {
		t.Fatalf("after a flush of 50 records of 1 KiB: %d blob files holding %d referenced bytes; want the records in blob files",
			blobs.LiveCount, blobs.ReferencedValueSize)
	}
	ids := make([]uuid.UUID, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	backup := filepath.Join(t.TempDir(), "backup")
	if err := db.Checkpoint(context.Background(), backup); err != nil {
		t.Fatal(err)
	}
	for name, from := range map[string]*DB{"store": db, "checkpoint": openDBIn(t, backup, newClock(t0), Options{})} {
		got, err := from.GetMessages(context.Background(), ids)
		if err != nil || len(got) != len(ms) {
			t.Fatalf("%s: GetMessages after the flush: %d of %d, %v", name, len(got), len(ms), err)
		}
		for i, m := range got {
			if m == nil || m.ID != ids[i] || !bytes.Equal(m.Body, body) {
				t.Fatalf("%s: message %s after the flush: %v", name, ids[i], m)
			}
		}
	}
}
