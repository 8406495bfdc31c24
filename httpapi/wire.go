package httpapi

import (
	"time"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
)

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

func toWireList(ms []*cache.Message) []api.Message {
	out := make([]api.Message, len(ms))
	for i, m := range ms {
		out[i] = toWire(m)
	}
	return out
}

func toInput(p api.PutRequest) cache.PutInput {
	return cache.PutInput{MessageID: p.MessageUUID, ReplicaID: p.ReplicaUUID, Metadata: p.Metadata, Body: p.Body, TTL: p.TTL}
}

func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }
