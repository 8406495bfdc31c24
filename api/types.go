// Package api defines the JSON documents of Herald's HTTP API
// (docs/http-api.md), shared by the server (package httpapi) and the Go
// client (package client) so the two cannot drift apart.
package api

import "encoding/json"

// TimeFormat is RFC 3339 with milliseconds, the precision Herald stores.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Message is a stored message.
type Message struct {
	MessageUUID string          `json:"message_uuid"`
	ReplicaUUID string          `json:"replica_uuid"`
	Metadata    json.RawMessage `json:"metadata"`
	Body        []byte          `json:"body,omitempty"` // base64 in JSON
	ReceivedAt  string          `json:"received_at"`
	ExpiresAt   string          `json:"expires_at"`
}

// PutRequest is the body of POST /v1/messages and one entry of a batch.
type PutRequest struct {
	MessageUUID string          `json:"message_uuid,omitempty"`
	ReplicaUUID string          `json:"replica_uuid,omitempty"`
	Metadata    json.RawMessage `json:"metadata"`
	Body        []byte          `json:"body,omitempty"` // base64 in JSON
	TTL         *int64          `json:"ttl,omitempty"`  // seconds
}

// PutResponse answers a put: 201 when stored, 200 for a repeat.
type PutResponse struct {
	MessageUUID string `json:"message_uuid"`
	ReplicaUUID string `json:"replica_uuid"`
}

// BatchRequest is the body of POST /v1/messages:batch.
type BatchRequest struct {
	Messages []json.RawMessage `json:"messages"`
}

// BatchResponse holds one result per entry, in order.
type BatchResponse struct {
	Results []BatchResult `json:"results"`
}

// BatchResult is the outcome of one batch entry: Status is the HTTP status
// the entry alone would have had.
type BatchResult struct {
	Status      int        `json:"status"`
	MessageUUID string     `json:"message_uuid,omitempty"`
	ReplicaUUID string     `json:"replica_uuid,omitempty"`
	Error       *ErrorBody `json:"error,omitempty"`
}

// LatestItem is one path's latest message.
type LatestItem struct {
	Path    string  `json:"path"`
	Message Message `json:"message"`
}

// LatestResponse answers GET /v1/latest.
type LatestResponse struct {
	Items      []LatestItem `json:"items"`
	NextCursor string       `json:"next_cursor"`
}

// MessagesResponse answers GET /v1/all and GET /v1/journal.
type MessagesResponse struct {
	Messages   []Message `json:"messages"`
	NextCursor string    `json:"next_cursor"`
}

// PathsResponse answers GET /v1/paths.
type PathsResponse struct {
	Paths      []string `json:"paths"`
	NextCursor string   `json:"next_cursor"`
}

// ErrorBody describes an error.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ErrorResponse is the body of every error answer.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}
