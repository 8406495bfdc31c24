package snshttp

import (
	"context"
	"errors"
	"fmt"
)

// Outcome classifies one delivery attempt.
type Outcome int

const (
	// Delivered: the endpoint answered 2xx.
	Delivered Outcome = iota
	// Rejected: the endpoint answered 4xx, or the endpoint URL is unusable.
	// AWS neither retries these nor counts them as failed deliveries.
	Rejected
	// Failed: no answer within the timeout, a network error, or a status
	// outside 200–499 (5xx, and 1xx/3xx since redirects are not followed).
	// AWS retries these under the subscription's delivery policy.
	Failed
)

func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Rejected:
		return "rejected"
	default:
		return "failed"
	}
}

// Classify maps an endpoint's HTTP status to an Outcome as AWS does: a
// status in 200–4xx is not retried, anything else is.
func Classify(status int) Outcome {
	switch {
	case status >= 200 && status < 300:
		return Delivered
	case status >= 400 && status < 500:
		return Rejected
	default:
		return Failed
	}
}

// DeliveryError is the error of an attempt that was not Delivered.
type DeliveryError struct {
	Outcome  Outcome
	Status   int    // the endpoint's HTTP status; 0 if there was none
	Endpoint string // the endpoint URL
	Err      error  // the transport error, if any
}

func (e *DeliveryError) Error() string {
	switch {
	case e.Err != nil && e.Status != 0:
		return fmt.Sprintf("sns http delivery %s: %s: status %d: %v", e.Outcome, e.Endpoint, e.Status, e.Err)
	case e.Err != nil:
		return fmt.Sprintf("sns http delivery %s: %s: %v", e.Outcome, e.Endpoint, e.Err)
	default:
		return fmt.Sprintf("sns http delivery %s: %s: status %d", e.Outcome, e.Endpoint, e.Status)
	}
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// Retryable reports whether the attempt should be retried under the
// delivery policy.
func (e *DeliveryError) Retryable() bool { return e.Outcome == Failed }

// ErrHostBusy is the cause of a Failed delivery that could not get one of
// its endpoint host's connection slots within Config.HostWait: the host is
// slow or down and already has Config.MaxPerHost requests in flight.
var ErrHostBusy = errors.New("endpoint host has too many requests in flight")

// IsRetryable reports whether err from Deliver or a Send method is worth
// retrying: Failed deliveries and cancelled contexts are, Rejected ones
// and nil are not.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	var de *DeliveryError
	if errors.As(err, &de) {
		return de.Retryable()
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
