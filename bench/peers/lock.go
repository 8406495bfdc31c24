package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// loadLockPath is the lock every load run on this machine holds, so that
// no two loads share the cores: `flock /tmp/herald-load.lock CMD` takes the
// same lock (flock(2)) from a shell.
const loadLockPath = "/tmp/herald-load.lock"

// takeLoadLock waits for the exclusive lock at path, polling so that ctx
// can end the wait, and returns the function releasing it.
func takeLoadLock(ctx context.Context, path string, log io.Writer) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("load lock: %w", err)
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("load lock %s: %w", path, err)
		}
		if !said {
			fmt.Fprintf(log, "peers: waiting for %s (another load run holds it)\n", path)
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
