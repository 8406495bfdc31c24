// Package herald holds what every part of Herald shares: the error codes that
// domain packages return and that each protocol edge (Herald's JSON API, SQS,
// SNS, WebSockets, AMQP) maps to its own error shape.
//
// Domain packages live beside it (paths, cache, ...); storage engines and
// protocol servers live in packages of their own; cmd/herald wires them.
package herald

import (
	"errors"
	"fmt"
	"time"
)

// Error codes. Each protocol edge maps them once (see httpapi for Herald's API).
const (
	EInvalid         = "invalid_argument" // the request is malformed or out of range
	ENotFound        = "not_found"        // the addressed thing does not exist (or expired)
	ETooLarge        = "too_large"        // a body, metadata or batch exceeds a limit
	EConflict        = "conflict"         // the request conflicts with the current state
	EUnavailable     = "unavailable"      // a backing store cannot be reached; retry later
	EUnauthenticated = "unauthenticated"  // the request carries no valid credential
	EForbidden       = "forbidden"        // the caller may not do this
	EThrottled       = "throttled"        // over a rate limit (limits); retry after Error.RetryAfter
	EOverQuota       = "over_quota"       // the account holds its quota of something (limits)
	EInternal        = "internal"         // a bug or an unexpected failure
)

// Error is a domain error with a machine-readable code and a message meant for
// the client that caused it.
type Error struct {
	Code    string
	Message string
	Err     error // optional cause, never shown to clients
	// RetryAfter, for EThrottled, is when a retry would be admitted.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Unavailable wraps a storage failure so that edges answer "retry later"
// (HTTP 503) instead of blaming the client.
func Unavailable(op string, err error) *Error {
	return &Error{Code: EUnavailable, Message: op + ": storage unavailable", Err: err}
}

// ErrorCode returns the code of the first *Error in err's chain, EInternal for
// any other non-nil error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the client-facing message of err.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// RetryAfter returns how long err (an EThrottled *Error in its chain) asks
// its caller to wait, and whether it is such an error.
func RetryAfter(err error) (time.Duration, bool) {
	var e *Error
	if errors.As(err, &e) && e.Code == EThrottled {
		return e.RetryAfter, true
	}
	return 0, false
}
