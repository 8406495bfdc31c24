package pebblestore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

var _ cache.Store = (*DB)(nil)

// errClosed is the cause of the errors returned after Close.
var errClosed = errors.New("pebblestore: database is closed")

// numStripes is the number of put locks; ids hash onto them.
const (
	stripeBits = 10
	numStripes = 1 << stripeBits
)

// DB is a Herald message store in one Pebble database. It implements
// cache.Store and is safe for concurrent use.
type DB struct {
	pdb   *pebble.DB
	now   func() time.Time
	log   *slog.Logger
	opts  Options // as opened, with defaults: checkpoints reopen their copy with them
	epoch string  // the store's incarnation (epoch.go)

	// stripes serialize the check-then-write of PutMessage, and the reaper,
	// per id. Operations on different stripes run, and commit, concurrently.
	stripes [numStripes]sync.Mutex

	// mu is read-held by every operation and write-held by Close, so the
	// Pebble DB is never used after (or while) it is closed.
	mu     sync.RWMutex
	closed bool

	stopReaper context.CancelFunc // nil when the reaper is disabled
	reaperDone chan struct{}

	queues  *QueueStore // the SQS queue store on this DB (Queues)
	topics  topicStoreOnce
	rollups rollupStoreOnce
	lazy    *lazySyncer // syncs unsynced SQS writes within lazySyncDelay
}

// Open opens (creating it if needed) the store in directory dir.
func Open(dir string, opts Options) (*DB, error) {
	o := opts.withDefaults()
	fs := o.fs
	if fs == nil {
		fs = vfs.Default
	}
	if err := adoptMerger(fs, dir); err != nil {
		return nil, herald.Unavailable("open", err)
	}
	pdb, err := pebble.Open(dir, o.pebbleOptions())
	if err != nil {
		return nil, herald.Unavailable("open", err)
	}
	db := &DB{pdb: pdb, now: o.Now, log: o.Logger, opts: o}
	db.queues = newQueueStore(db)
	db.lazy = startLazySync(db)
	if err := db.checkFormat(); err != nil {
		_ = pdb.Close()
		return nil, err
	}
	if db.epoch, err = loadEpoch(pdb); err != nil {
		_ = pdb.Close()
		return nil, herald.Unavailable("open", err)
	}
	if o.ReapInterval > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		db.stopReaper = cancel
		db.reaperDone = make(chan struct{})
		go db.reapLoop(ctx, o.ReapInterval)
	}
	return db, nil
}

// checkFormat records the layout version in a new DB, upgrades the marker
// of a DB in a layout this version reads (upgradableFormats), and refuses a
// DB written with any other.
func (db *DB) checkFormat() error {
	v, err := loadOrCreate(db.pdb, keyFormat,
		func() []byte { return []byte(formatVersion) },
		func([]byte) bool { return true }) // judged below, to name both versions
	if err != nil {
		return herald.Unavailable("open", err)
	}
	switch found := string(v); {
	case found == formatVersion:
		return nil
	case slices.Contains(upgradableFormats, found):
		if err := db.pdb.Set(keyFormat, []byte(formatVersion), pebble.Sync); err != nil {
			return herald.Unavailable("open", err)
		}
		return nil
	default:
		return herald.Unavailable("open", fmt.Errorf("pebblestore: unsupported format %q (want %q)", found, formatVersion))
	}
}

// Close stops the reaper, waits for running operations and closes the
// database. Later calls return errors; closing twice is harmless.
func (db *DB) Close() error {
	if db.stopReaper != nil {
		db.stopReaper()
		<-db.reaperDone
	}
	db.lazy.stopOnce.Do(db.lazy.stop) // before db.mu: the syncer read-locks it
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	if err := db.pdb.Close(); err != nil {
		return herald.Unavailable("close", err)
	}
	return nil
}

// enter starts an operation: it fails when ctx is done or the DB is closed,
// and otherwise holds Close off until the matching leave.
func (db *DB) enter(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return herald.Unavailable(op, err)
	}
	db.mu.RLock()
	if db.closed {
		db.mu.RUnlock()
		return herald.Unavailable(op, errClosed)
	}
	return nil
}

func (db *DB) leave() { db.mu.RUnlock() }

// stripeOf returns the index of the put lock of id.
func stripeOf(id uuid.UUID) int {
	h := binary.LittleEndian.Uint64(id[:8]) ^ binary.LittleEndian.Uint64(id[8:])
	h *= 0x9e3779b97f4a7c15 // Fibonacci hashing: the top bits mix all of h
	return int(h >> (64 - stripeBits))
}

// getRecord reads the record of id, expired or not; nil when missing.
func (db *DB) getRecord(id uuid.UUID) (*cache.Message, error) {
	v, closer, err := db.pdb.Get(messageKey(id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return decodeRecord(id, v)
}

// newIter returns an iterator over [lo, hi).
func (db *DB) newIter(ctx context.Context, lo, hi []byte) (*pebble.Iterator, error) {
	return db.pdb.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lo, UpperBound: hi})
}

// ctxCheckEvery is how many keys a scan visits between context checks.
const ctxCheckEvery = 1024
