package limits

import (
	"context"
	"time"

	"github.com/heraldmq/herald"
)

// An edge sends a throttling answer after a pause (PauseBeforeAnswer): the
// time the refusal says a retry would be admitted, at least PauseMin and
// at most PauseMax. A client looping without backoff then sends one
// request per pause on each of its connections, instead of making the
// node spend its CPU on refusals (herald bench tenants: an account
// flooding flat out was refused 19,000 times a second, most of a core);
// a client that backs off, as the AWS SDKs do, waits longer than that
// anyway. The pause holds the request's connection, nothing more.
const (
	PauseMin = 50 * time.Millisecond
	PauseMax = time.Second
)

// PauseBeforeAnswer waits before the throttling answer err to ctx's
// request, or until the client leaves.
func PauseBeforeAnswer(ctx context.Context, err error) {
	d, _ := herald.RetryAfter(err)
	d = min(max(d, PauseMin), PauseMax)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
