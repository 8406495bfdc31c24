package pebblestore

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// slowSyncFS counts the syncs of WAL files and makes each take delay, like
// a disk whose fsync is slow.
type slowSyncFS struct {
	vfs.FS
	delay time.Duration
	syncs atomic.Int64
}

func (fs *slowSyncFS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	return &slowSyncFile{File: f, fs: fs}, nil
}

func (fs *slowSyncFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, c)
	return fs.wrap(name, f, err)
}

func (fs *slowSyncFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, c)
	return fs.wrap(newname, f, err)
}

func (fs *slowSyncFS) Unwrap() vfs.FS { return fs.FS }

type slowSyncFile struct {
	vfs.File
	fs *slowSyncFS
}

func (f *slowSyncFile) Sync() error     { f.slow(); return f.File.Sync() }
func (f *slowSyncFile) SyncData() error { f.slow(); return f.File.SyncData() }

func (f *slowSyncFile) slow() {
	f.fs.syncs.Add(1)
	time.Sleep(f.fs.delay)
}

// TestGroupCommit checks that concurrent puts of different ids share WAL
// syncs: 64 puts, with a 20 ms fsync, must not take 64 syncs in a row.
func TestGroupCommit(t *testing.T) {
	const (
		delay = 20 * time.Millisecond
		n     = 64
	)
	fs := &slowSyncFS{FS: vfs.Default, delay: delay}
	db := openDB(t, nil, Options{fs: fs})
	now := time.Now()

	fs.syncs.Store(0)
	put(t, db, msg(now, now, time.Hour, "gc.warmup"))
	if got := fs.syncs.Load(); got != 1 {
		t.Fatalf("one put made %d WAL syncs, want 1", got)
	}

	fs.syncs.Store(0)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		m := msg(now.Add(time.Duration(i)), now, time.Hour, fmt.Sprintf("gc.p%d", i))
		wg.Go(func() {
			if _, created, err := db.PutMessage(ctx, m); err != nil || !created {
				t.Errorf("PutMessage = %v, %v", created, err)
			}
		})
	}
	wg.Wait()
	elapsed, syncs := time.Since(start), fs.syncs.Load()
	t.Logf("%d concurrent puts: %d WAL syncs of %v, %v in all", n, syncs, delay, elapsed)
	if syncs > n/4 {
		t.Errorf("%d concurrent puts made %d WAL syncs; commits are not grouped", n, syncs)
	}
	if elapsed > n*delay/4 {
		t.Errorf("%d concurrent puts took %v, one sync takes %v; commits are serialized", n, elapsed, delay)
	}
	if got := countKeys(t, db, prefixMessage); got != n+1 {
		t.Errorf("%d messages stored, want %d", got, n+1)
	}
}
