package pebblestore

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configures a DB. The zero value is usable.
type Options struct {
	// ReapInterval is how often expired data is reclaimed. Zero means
	// 10 seconds; a negative value disables the background reaper
	// (ReapExpired still works).
	ReapInterval time.Duration

	// CacheBytes is the size of the block cache. Zero means 64 MiB.
	CacheBytes int64

	// Now is the clock for expiry decisions. Nil means time.Now.
	Now func() time.Time

	// Logger receives the engine's and Pebble's log messages. Nil means
	// slog.Default().
	Logger *slog.Logger

	// fs replaces the file system, for tests.
	fs vfs.FS
}

const (
	defaultReapInterval = 10 * time.Second
	defaultCacheBytes   = 256 << 20
	walMinSyncInterval  = 500 * time.Microsecond
	memTableSize        = 16 << 20
)

// valueSeparation is the engine's policy for separating values into blob
// files (pebbleOptions).
var valueSeparation = pebble.ValueSeparationPolicy{
	Enabled:               true,
	MinimumSize:           256,
	MaxBlobReferenceDepth: 10,
	RewriteMinimumAge:     time.Hour,
	TargetGarbageRatio:    0.2,
}

// keyspacePolicy is Pebble's SpanPolicyFunc: the default policy, ending at
// the next keyspace (every key starts with a one-byte prefix naming its
// keyspace, keys.go). Pebble ends each output file where the policy ends.
// Without it a flush writes one file from the first keyspace to the last,
// and since most keyspaces grow at their tail (records and journal by time,
// SQS messages by queue and time), that file overlaps every file below it
// and each compaction rewrites the whole level; split at keyspaces, a
// compaction rewrites only the files of keyspaces that interleave (the
// paths' history). Measured (BENCHMARKS.md): durable puts with 4 MiB
// memtables took 110 µs of CPU each instead of 140; the SQS mix at half of
// peak with 16 MiB memtables, a send p99 of 8 ms instead of 16 to 75.
func keyspacePolicy(start []byte) (pebble.SpanPolicy, []byte, error) {
	return pebble.SpanPolicy{}, keyspaceEnd(start), nil
}

// keyspaceEnd returns the first key after the keyspace of key, or nil for
// the last keyspace (or an empty key): the policy then runs to the end.
func keyspaceEnd(key []byte) []byte {
	if len(key) == 0 || key[0] == 0xff {
		return nil
	}
	return []byte{key[0] + 1}
}

func (o Options) withDefaults() Options {
	if o.ReapInterval == 0 {
		o.ReapInterval = defaultReapInterval
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = defaultCacheBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// pebbleOptions tunes Pebble for Herald's load: many small synced writes
// (a record plus a few index keys per message), short range scans, point
// reads by id, and a steady stream of deletions by the reaper.
func (o Options) pebbleOptions() *pebble.Options {
	po := &pebble.Options{
		CacheSize: o.CacheBytes,
		// Memtables of 16 MiB (Pebble's default is 4): small ones flush
		// often and cost puts CPU in compactions (4 MiB: 110 µs per put
		// against 64 at 16 MiB); large ones (64 MiB) flush in bursts that
		// hold a core for 0.1 s and put the sends committed meanwhile at
		// the tail (SQS mix p99 at half of peak: 19 ms at 64 MiB, 8 ms at
		// 16 MiB, with the same durable puts per second; BENCHMARKS.md).
		// Pebble grows memtables from 256 KiB up to this size, so small DBs
		// stay small.
		MemTableSize: memTableSize,
		// Up to 4 memtables (one filling, three flushing) before writes
		// stall, so a slow flush does not block puts at once.
		MemTableStopWritesThreshold: 4,
		// Compact L0 once it has 4 sublevels (Pebble's default). Measured
		// against 2 (reads merge fewer sublevels, but compactions run twice
		// as often and take CPU from puts) and 8 (slower, not faster): 4
		// sustained the most puts on 2 cores (BENCHMARKS.md).
		L0CompactionThreshold: 4,
		// Stall writes only when compaction has fallen far behind (default
		// 12): a 64 MiB memtable flush adds several L0 files at once.
		L0StopWritesThreshold: 32,
		// A large Lbase (1 GiB, default 64 MiB): flushed data settles in
		// one level for longer before cascading into deeper ones, which
		// cuts write amplification for a store whose data expires anyway.
		LBaseMaxBytes: 1 << 30,
		// Let compactions run in parallel once L0 or compaction debt grows
		// (Pebble starts at the lower bound and scales up on its own).
		CompactionConcurrencyRange: func() (int, int) {
			return 1, max(2, runtime.GOMAXPROCS(0)/2)
		},
		// Wait at least this long between WAL fsyncs. While one fsync runs,
		// the commits that arrive queue behind it and share the next one
		// (group commit); a short floor lets more of them gather, so under
		// load each fsync covers many puts, and an idle DB still syncs a
		// lone put at once.
		WALMinSyncInterval: func() time.Duration { return walMinSyncInterval },
		// Newest on-disk format for new DBs; existing ones are upgraded.
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             pebbleLogger{o.Logger},
		EventListener:      stallListener(o.Logger),
		FS:                 o.fs,
		Merger:             merger,
	}
	// Flushes and compactions end every output file at a keyspace
	// boundary (see keyspaceEnd), so no file spans, say, the paths' history
	// and the message records.
	po.Experimental.SpanPolicyFunc = keyspacePolicy
	// Values of at least 256 bytes (message records with their bodies, SQS
	// messages) go to blob files when a memtable is flushed, and
	// compactions then move only the keys and references to them: the
	// records, most of the bytes, are written once instead of once per
	// level. A durable put costs 5% less CPU (BENCHMARKS.md, "Durable puts:
	// one JSON pass and value separation"), reads of 1,000 records and the
	// SQS mix the same. A blob file is dropped once none of its values is
	// referenced, and rewritten once a fifth of it is garbage and it is an
	// hour old, so expired messages give their space back.
	po.Experimental.ValueSeparationPolicy = func() pebble.ValueSeparationPolicy {
		return valueSeparation
	}
	// Each put first looks its id up and nearly always misses: bloom
	// filters answer most of those misses without reading a data block.
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	return po
}

// stallListener logs Pebble's write stalls (writes blocked until a flush or
// compaction catches up) and disk operations slower than Pebble's
// threshold: they explain latency outliers of puts and sends.
func stallListener(l *slog.Logger) *pebble.EventListener {
	var began time.Time
	return &pebble.EventListener{
		WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
			began = time.Now()
			l.Warn("write stall began", "component", "pebble", "reason", info.Reason)
		},
		WriteStallEnd: func() {
			l.Warn("write stall ended", "component", "pebble", "after", time.Since(began).Round(time.Millisecond))
		},
		DiskSlow: func(info pebble.DiskSlowInfo) {
			l.Warn("slow disk operation", "component", "pebble", "op", info.OpType.String(), "path", info.Path, "duration", info.Duration)
		},
	}
}

// pebbleLogger sends Pebble's log messages to slog.
type pebbleLogger struct{ l *slog.Logger }

// Infof logs at debug level: Pebble's information (its WAL recovery on
// every start, "Found 0 WALs") is for whoever debugs the engine.
func (p pebbleLogger) Infof(format string, args ...any) {
	if !p.l.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf must not return: Pebble calls it when it cannot go on safely.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error(msg, "component", "pebble", "fatal", true)
	panic("pebble: " + msg)
}
