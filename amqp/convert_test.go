package amqp

import (
	"encoding/json"
	"testing"
	"time"

	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald"
)

func TestToPutInput(t *testing.T) {
	const v1 = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	const v4 = "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b"
	ttl := func(n int64) *int64 { return &n }
	tests := []struct {
		name     string
		d        rabbit.Delivery
		metadata string
		id       string
		ttl      *int64
		invalid  bool
	}{
		{name: "routing key is the path", d: rabbit.Delivery{RoutingKey: "feeds.breaking-news.12345"},
			metadata: `{"paths":["feeds.breaking-news.12345"]}`},
		{name: "headers become metadata", d: rabbit.Delivery{RoutingKey: "a.b", Headers: rabbit.Table{
			"source": "wire", "n": int32(3), "ok": true, "tags": []any{"x", int64(2)},
			"nested": rabbit.Table{"k": "v"}, "price": rabbit.Decimal{Scale: 2, Value: -1234},
			"raw": []byte("text"), "at": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}},
			metadata: `{"at":"2026-01-02T03:04:05Z","n":3,"nested":{"k":"v"},"ok":true,"paths":["a.b"],"price":-12.34,"raw":"text","source":"wire","tags":["x",2]}`},
		{name: "x- headers are left out", d: rabbit.Delivery{RoutingKey: "a", Headers: rabbit.Table{"x-death": []any{}, "X-Delivery-Count": int64(1)}},
			metadata: `{"paths":["a"]}`},
		{name: "paths header, comma separated", d: rabbit.Delivery{RoutingKey: "ignored", Headers: rabbit.Table{"paths": "a.b, c.d,,"}},
			metadata: `{"paths":["a.b","c.d"]}`},
		{name: "paths header, array", d: rabbit.Delivery{RoutingKey: "ignored", Headers: rabbit.Table{"paths": []any{"a.b", []byte("c")}}},
			metadata: `{"paths":["a.b","c"]}`},
		{name: "paths header of another type", d: rabbit.Delivery{RoutingKey: "a", Headers: rabbit.Table{"paths": int32(1)}}, invalid: true},
		{name: "paths array of numbers", d: rabbit.Delivery{RoutingKey: "a", Headers: rabbit.Table{"paths": []any{int32(1)}}}, invalid: true},
		{name: "empty paths header", d: rabbit.Delivery{RoutingKey: "a", Headers: rabbit.Table{"paths": " , "}}, invalid: true},
		{name: "no routing key", d: rabbit.Delivery{}, invalid: true},
		{name: "v1 message-id", d: rabbit.Delivery{RoutingKey: "a", MessageId: v1}, metadata: `{"paths":["a"]}`, id: v1},
		{name: "other message-id ignored", d: rabbit.Delivery{RoutingKey: "a", MessageId: v4}, metadata: `{"paths":["a"]}`},
		{name: "expiration rounds up", d: rabbit.Delivery{RoutingKey: "a", Expiration: "1500"}, metadata: `{"paths":["a"]}`, ttl: ttl(2)},
		{name: "expiration at least a second", d: rabbit.Delivery{RoutingKey: "a", Expiration: "0"}, metadata: `{"paths":["a"]}`, ttl: ttl(1)},
		{name: "expiration not a number", d: rabbit.Delivery{RoutingKey: "a", Expiration: "soon"}, invalid: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.d.Body = []byte("body")
			in, err := toPutInput(&tc.d)
			if tc.invalid {
				if herald.ErrorCode(err) != herald.EInvalid {
					t.Fatalf("err = %v, want %s", err, herald.EInvalid)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(in.Metadata) != tc.metadata {
				t.Errorf("metadata = %s, want %s", in.Metadata, tc.metadata)
			}
			if !json.Valid(in.Metadata) || string(in.Body) != "body" || in.MessageID != tc.id {
				t.Errorf("input = %+v", in)
			}
			if (in.TTL == nil) != (tc.ttl == nil) || (in.TTL != nil && *in.TTL != *tc.ttl) {
				t.Errorf("ttl = %v, want %v", in.TTL, tc.ttl)
			}
		})
	}
}
