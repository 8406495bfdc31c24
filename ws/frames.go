package ws

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/sqs"
)

// inFrame is any frame a client sends; which members count depends on Type.
type inFrame struct {
	ID                string          `json:"id"`
	Type              string          `json:"type"`
	Pattern           string          `json:"pattern"`
	Mode              string          `json:"mode"`
	Since             json.RawMessage `json:"since"` // a string or a position (recover.go)
	Limit             int             `json:"limit"`
	Message           json.RawMessage `json:"message"` // read by publish as POST /v1/messages reads its body
	Query             string          `json:"query"`
	Path              string          `json:"path"`
	MessageUUID       string          `json:"message_uuid"`
	Cursor            string          `json:"cursor"`
	Queue             string          `json:"queue"`
	VisibilityTimeout *int            `json:"visibility_timeout"`
	MaxInFlight       *int            `json:"max_in_flight"`
	ReceiptHandle     string          `json:"receipt_handle"`

	// Rollup queries (rollup_series, rollup_totals, rollup_top).
	Rollup    string            `json:"rollup"`
	Scope     map[string]string `json:"scope"`
	Unit      string            `json:"unit"`
	From      string            `json:"from"`
	To        string            `json:"to"`
	Dimension string            `json:"dimension"`
	Value     string            `json:"value"`
	Within    map[string]string `json:"within"`
	Metrics   []string          `json:"metrics"`
	OrderBy   string            `json:"order_by"`
	N         int               `json:"n"`
	Offset    int               `json:"offset"`
}

// maxIDLen bounds a request id.
const maxIDLen = 64

// Sources of message frames.
const (
	sourceLive    = "live"
	sourceLatest  = "latest"
	sourceRecover = "recover"
)

// messageFrame carries one message of a subscription, at its offset in
// the subscription (1, 2, ... on this connection) in the store's epoch.
type messageFrame struct {
	Type         string      `json:"type"`
	Subscription string      `json:"subscription"`
	Path         string      `json:"path"`
	Message      api.Message `json:"message"`
	Source       string      `json:"source"`
	Offset       uint64      `json:"offset"`
	Epoch        string      `json:"epoch"`
}

// recoveredFrame ends the recover part of a subscription.
type recoveredFrame struct {
	Type         string `json:"type"`
	Subscription string `json:"subscription"`
	Count        int    `json:"count"`
	Truncated    bool   `json:"truncated"`
	Oldest       string `json:"oldest,omitempty"`
	Epoch        string `json:"epoch"`
	EpochChanged bool   `json:"epoch_changed,omitempty"` // since named another epoch: resynchronise
}

// latestEndFrame ends the latest part of a subscription: the stored
// messages are all sent, live ones follow. Truncated says the limit cut
// them short; NextCursor then continues them with query latest.
type latestEndFrame struct {
	Type         string `json:"type"`
	Subscription string `json:"subscription"`
	Count        int    `json:"count"`
	Truncated    bool   `json:"truncated"`
	NextCursor   string `json:"next_cursor,omitempty"`
}

// errorFrame answers a request that failed.
type errorFrame struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// RetryAfterMS, for code "throttled", is when a retry would be
	// admitted, in milliseconds.
	RetryAfterMS int64 `json:"retry_after_ms,omitempty"`
}

// Error codes of error frames.
const (
	codeInvalidFrame = "invalid_frame"
	codeInvalid      = "invalid"
	codeForbidden    = "forbidden"
	codeNotFound     = "not_found"
	codeTooMany      = "too_many_subscriptions"
	codeUnavailable  = "unavailable"
	codeThrottled    = "throttled"
	codeInternal     = "internal"
)

// ErrForbidden is what a Config hook (NewQueuePush) returns when the
// client's grants do not allow the request; it becomes a "forbidden" error
// frame.
var ErrForbidden = errors.New("forbidden by the client's token")

// codeOf maps a domain error to an error frame code. Only Herald's own
// failures are "internal": an SQS error the client caused (a malformed
// receipt handle, a queue it may not read) maps to the code that says so.
func codeOf(err error) string {
	if errors.Is(err, ErrForbidden) {
		return codeForbidden
	}
	if errors.Is(err, ErrQueuePushClosed) {
		return codeNotFound // the queue subscription ended meanwhile
	}
	var se *sqs.Error
	if errors.As(err, &se) {
		return sqsCodeOf(se)
	}
	switch herald.ErrorCode(err) {
	case herald.EInvalid, herald.ETooLarge, herald.EConflict:
		return codeInvalid
	case herald.ENotFound:
		return codeNotFound
	case herald.EForbidden, herald.EUnauthenticated:
		return codeForbidden
	case herald.EUnavailable:
		return codeUnavailable
	case herald.EThrottled:
		return codeThrottled
	default:
		return codeInternal
	}
}

// sqsCodeOf maps an SQS error to an error frame code: the client's faults
// by what they say, the server's to unavailable or internal.
func sqsCodeOf(e *sqs.Error) string {
	switch e.Code {
	case sqs.CodeAccessDenied, sqs.CodeInvalidSecurity:
		return codeForbidden
	case sqs.CodeQueueDoesNotExist, sqs.CodeResourceNotFound:
		return codeNotFound
	case sqs.CodeRequestThrottled, sqs.CodeServiceUnavailable:
		return codeUnavailable
	}
	if e.Sender {
		return codeInvalid // ReceiptHandleIsInvalid, InvalidParameterValue, ...
	}
	if e.Status == http.StatusServiceUnavailable {
		return codeUnavailable
	}
	return codeInternal
}

// messageOf is the client-facing text of err.
func messageOf(err error) string {
	if codeOf(err) == codeInternal {
		return "internal error"
	}
	var se *sqs.Error
	var he *herald.Error
	switch {
	case errors.As(err, &se): // as codeOf, before a domain error it wraps
		return se.Message
	case errors.As(err, &he):
		return he.Message
	}
	return err.Error() // ErrForbidden (as a hook wrapped it), ErrQueuePushClosed
}

// toWire is a stored message as the HTTP API shows it (httpapi's toWire).
func toWire(m *cache.Message) api.Message {
	return api.Message{
		MessageUUID: m.ID.String(),
		ReplicaUUID: m.ReplicaID.String(),
		Metadata:    m.Metadata,
		Body:        m.Body,
		ReceivedAt:  m.ReceivedAt.UTC().Format(api.TimeFormat),
		ExpiresAt:   m.ExpiresAt.UTC().Format(api.TimeFormat),
	}
}

func toInput(p api.PutRequest) cache.PutInput {
	return cache.PutInput{MessageID: p.MessageUUID, ReplicaID: p.ReplicaUUID, Metadata: p.Metadata, Body: p.Body, TTL: p.TTL}
}

// frameSize estimates the JSON size of a message frame without encoding it.
func frameSize(path string, m *cache.Message) int {
	return 256 + len(path)*2 + len(m.Metadata) + (len(m.Body)+2)/3*4
}

// reply is a successful answer: type, id and the members in extra.
func reply(typ, id string, extra map[string]any) map[string]any {
	out := map[string]any{"type": typ, "id": id}
	for k, v := range extra {
		out[k] = v
	}
	return out
}
