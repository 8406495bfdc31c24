package herald

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends, reporting whether the full wait passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
