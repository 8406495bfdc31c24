package redisindex

import (
	"context"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald"
)

// wrapErr turns a failed Redis call into a herald error: EUnavailable when
// Redis cannot be reached, is too slow or is not ready (loading, failing
// over, a cluster without quorum), so that the Service degrades to the
// Store alone; EInternal for anything else (a script error is a bug).
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var rerr redis.Error
	if errors.As(err, &rerr) && !errors.Is(err, context.DeadlineExceeded) && !unavailableReply(rerr.Error()) {
		return &herald.Error{Code: herald.EInternal, Message: op + ": redis index failed", Err: err}
	}
	return herald.Unavailable(op, err)
}

// unavailableReply reports whether a Redis error reply means "not now"
// rather than "wrong".
func unavailableReply(msg string) bool {
	for _, p := range []string{"LOADING", "BUSY", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "READONLY", "NOREPLICAS", "MOVED", "ASK"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
