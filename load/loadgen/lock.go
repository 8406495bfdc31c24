package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// LockPath is the lock every load run on this machine holds, so that no
// two loads share the cores (bench/peers, bench/scale): `flock
// /tmp/herald-load.lock CMD` takes the same lock (flock(2)) from a shell.
const LockPath = "/tmp/herald-load.lock"

// TakeLock waits for the exclusive lock at path, polling so that ctx can
// end the wait, and returns the function releasing it. log hears that the
// run waits, once.
func TakeLock(ctx context.Context, path string, log io.Writer) (release func(), err error) {
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
			fmt.Fprintf(log, "waiting for %s (another load run holds it)\n", path)
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
