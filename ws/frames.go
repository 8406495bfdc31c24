package ws

import (
	"errors"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
)

// inFrame is any frame a client sends; which members count depends on Type.
type inFrame struct {
	ID                string          `json:"id"`
	Type              string          `json:"type"`
	Pattern           string          `json:"pattern"`
	Mode              string          `json:"mode"`
	Since             string          `json:"since"`
	Limit             int             `json:"limit"`
	Message           *api.PutRequest `json:"message"`
	Query             string          `json:"query"`
	Path              string          `json:"path"`
	MessageUUID       string          `json:"message_uuid"`
	Cursor            string          `json:"cursor"`
	Queue             string          `json:"queue"`
	VisibilityTimeout *int            `json:"visibility_timeout"`
	MaxInFlight       *int            `json:"max_in_flight"`
	ReceiptHandle     string          `json:"receipt_handle"`
}

// maxIDLen bounds a request id.
const maxIDLen = 64

// Sources of message frames.
const (
	sourceLive    = "live"
	sourceLatest  = "latest"
	sourceRecover = "recover"
)

// messageFrame carries one message of a subscription.
type messageFrame struct {
	Type         string      `json:"type"`
	Subscription string      `json:"subscription"`
	Path         string      `json:"path"`
	Message      api.Message `json:"message"`
	Source       string      `json:"source"`
}

// recoveredFrame ends the recover part of a subscription.
type recoveredFrame struct {
	Type         string `json:"type"`
	Subscription string `json:"subscription"`
	Count        int    `json:"count"`
	Truncated    bool   `json:"truncated"`
	Oldest       string `json:"oldest,omitempty"`
}

// errorFrame answers a request that failed.
type errorFrame struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error codes of error frames.
const (
	codeInvalidFrame = "invalid_frame"
	codeInvalid      = "invalid"
	codeForbidden    = "forbidden"
	codeNotFound     = "not_found"
	codeTooMany      = "too_many_subscriptions"
	codeUnavailable  = "unavailable"
	codeInternal     = "internal"
)

// ErrForbidden is what a Config hook (NewQueuePush) returns when the
// client's grants do not allow the request; it becomes a "forbidden" error
// frame.
var ErrForbidden = errors.New("forbidden by the client's token")

// codeOf maps a domain error to an error frame code.
func codeOf(err error) string {
	if errors.Is(err, ErrForbidden) {
		return codeForbidden
	}
	switch herald.ErrorCode(err) {
	case herald.EInvalid, herald.ETooLarge, herald.EConflict:
		return codeInvalid
	case herald.ENotFound:
		return codeNotFound
	case herald.EUnavailable:
		return codeUnavailable
	default:
		return codeInternal
	}
}

// messageOf is the client-facing text of err.
func messageOf(err error) string {
	switch codeOf(err) {
	case codeInternal:
		return "internal error"
	case codeForbidden:
		return err.Error()
	}
	return herald.ErrorMessage(err)
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
