package amqp

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
)

// Event is the JSON body of one event on the events exchange: the stored
// message as Herald's HTTP API shows it, plus the path the event is routed
// by (one of the message's paths; also the routing key).
type Event struct {
	Path string `json:"path"`
	api.Message
}

// encodeEvent renders the event of m under path.
func encodeEvent(path string, m *cache.Message) ([]byte, error) {
	return json.Marshal(Event{Path: path, Message: api.Message{
		MessageUUID: m.ID.String(),
		ReplicaUUID: m.ReplicaID.String(),
		Metadata:    m.Metadata,
		Body:        m.Body,
		ReceivedAt:  m.ReceivedAt.UTC().Format(api.TimeFormat),
		ExpiresAt:   m.ExpiresAt.UTC().Format(api.TimeFormat),
	}})
}

// decodeEvent parses an event body back into its path and message.
func decodeEvent(body []byte) (string, *cache.Message, error) {
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return "", nil, err
	}
	var m cache.Message
	var err error
	if m.ID, err = cache.ParseMessageID("message_uuid", ev.MessageUUID); err != nil {
		return "", nil, err
	}
	if m.ReplicaID, err = cache.ParseMessageID("replica_uuid", ev.ReplicaUUID); err != nil {
		return "", nil, err
	}
	var meta struct {
		Paths []string `json:"paths"`
	}
	if err := json.Unmarshal(ev.Metadata, &meta); err != nil || len(meta.Paths) == 0 {
		return "", nil, fmt.Errorf("event metadata names no paths")
	}
	m.Metadata, m.Paths, m.Body = ev.Metadata, meta.Paths, ev.Body
	if m.ReceivedAt, err = time.Parse(time.RFC3339Nano, ev.ReceivedAt); err != nil {
		return "", nil, err
	}
	if m.ExpiresAt, err = time.Parse(time.RFC3339Nano, ev.ExpiresAt); err != nil {
		return "", nil, err
	}
	m.ReceivedAt, m.ExpiresAt = m.ReceivedAt.UTC(), m.ExpiresAt.UTC()
	return ev.Path, &m, nil
}
