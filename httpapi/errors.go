package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/limits"
)

// statusClientClosed is the status recorded for requests whose client left.
const statusClientClosed = 499

// statusOf maps a domain error code to its HTTP status.
func statusOf(code string) int {
	switch code {
	case herald.EInvalid:
		return http.StatusBadRequest
	case herald.ENotFound:
		return http.StatusNotFound
	case herald.ETooLarge:
		return http.StatusRequestEntityTooLarge
	case herald.EConflict:
		return http.StatusConflict
	case herald.EUnavailable:
		return http.StatusServiceUnavailable
	case herald.EUnauthenticated:
		return http.StatusUnauthorized
	case herald.EForbidden:
		return http.StatusForbidden
	case herald.EThrottled:
		return http.StatusTooManyRequests
	case herald.EOverQuota:
		return http.StatusForbidden
	default:
		return http.StatusInternalServerError
	}
}

// toErrorBody returns the client-facing form of err. The message is
// bounded with herald.ClipMessage, so that no error repeats more than a
// few hundred bytes of what a client sent, however its message was built.
func toErrorBody(err error) (int, api.ErrorBody) {
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		err = herald.Errorf(herald.ETooLarge, "request body is over the limit of %d bytes", maxErr.Limit)
	}
	if errors.Is(err, context.Canceled) {
		// The client went away; nobody reads this answer, and it is not a
		// server failure (nginx's 499 "client closed request").
		return statusClientClosed, api.ErrorBody{Code: "canceled", Message: "the client closed the request"}
	}
	code := herald.ErrorCode(err)
	return statusOf(code), api.ErrorBody{Code: code, Message: herald.ClipMessage(herald.ErrorMessage(err))}
}

// writeError answers with err in Herald's error shape, logging the ones that
// are Herald's fault.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	status, body := toErrorBody(err)
	if d, ok := herald.RetryAfter(err); ok {
		limits.PauseBeforeAnswer(r.Context(), err)
		// Whole seconds, rounded up: a client waiting this long is admitted.
		w.Header().Set("Retry-After", strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10))
	}
	if status >= 500 {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
	}
	writeJSON(w, status, api.ErrorResponse{Error: body})
}
