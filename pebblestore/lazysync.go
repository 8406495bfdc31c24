package pebblestore

import (
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// lazySyncDelay is how long after an unsynced write its WAL record is
// synced at the latest. Receives, deletes and visibility changes commit
// without waiting for an fsync (losing one costs a duplicate delivery,
// never a message), but Pebble keeps such records in its WAL buffer until
// the next synced write or a full block: on an otherwise idle store a crash
// could then lose receive counts written long before. One background sync
// per delay bounds that window while costing at most a few hundred fsyncs
// a second.
const lazySyncDelay = 5 * time.Millisecond

// lazySyncer syncs the WAL shortly after unsynced writes, coalescing them.
type lazySyncer struct {
	kick     chan struct{}
	quit     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

func startLazySync(db *DB) *lazySyncer {
	ls := &lazySyncer{kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go ls.loop(db)
	return ls
}

// dirty notes an unsynced write; it never blocks.
func (ls *lazySyncer) dirty() {
	select {
	case ls.kick <- struct{}{}:
	default:
	}
}

func (ls *lazySyncer) loop(db *DB) {
	defer close(ls.done)
	for {
		select {
		case <-ls.quit:
			return
		case <-ls.kick:
		}
		time.Sleep(lazySyncDelay)
		db.mu.RLock()
		if !db.closed {
			// An empty synced record flushes and syncs every record
			// written before it.
			_ = db.pdb.LogData(nil, pebble.Sync)
		}
		db.mu.RUnlock()
	}
}

// stop ends the loop. Call it before taking db.mu for closing: the loop
// read-locks it. Later dirty calls are harmless.
func (ls *lazySyncer) stop() {
	close(ls.quit)
	<-ls.done
}
