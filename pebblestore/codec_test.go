package pebblestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

func TestRecordRoundTrip(t *testing.T) {
	received := time.Date(2025, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	big := bytes.Repeat([]byte{0, 1, 2, 0xff}, 40_000)
	cases := []struct {
		name string
		m    cache.Message
	}{
		{"Plain", cache.Message{
			Metadata: json.RawMessage(`{"paths":["a.b"]}`),
			Paths:    []string{"a.b"},
			Body:     []byte("hello"),
		}},
		{"NoBody", cache.Message{
			Metadata: json.RawMessage(`{"paths":["a"]}`),
			Paths:    []string{"a"},
		}},
		{"BinaryBigBody", cache.Message{
			Metadata: json.RawMessage(`{"paths":["x.y.z","q"]}`),
			Paths:    []string{"x.y.z", "q"},
			Body:     big,
		}},
		{"SixteenPaths", cache.Message{
			Metadata: json.RawMessage(`{}`),
			Paths:    []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"},
			Body:     []byte{0},
		}},
		{"PreEpochTimes", cache.Message{
			Metadata:   json.RawMessage(`{}`),
			Paths:      []string{"old"},
			ReceivedAt: time.Date(1960, 1, 1, 0, 0, 0, 1_000_000, time.UTC),
			ExpiresAt:  time.Date(1961, 1, 1, 0, 0, 0, 0, time.UTC),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			m.ID = v1(received)
			m.ReplicaID = v1(received.Add(-time.Hour))
			if m.ReceivedAt.IsZero() {
				m.ReceivedAt = received
				m.ExpiresAt = received.Add(90 * time.Minute)
			}
			rec := appendRecord(nil, &m)
			if len(rec) > recordSize(&m) {
				t.Errorf("record is %d bytes, recordSize says at most %d", len(rec), recordSize(&m))
			}
			got, err := decodeRecord(m.ID, rec)
			if err != nil {
				t.Fatal(err)
			}
			checkSameMessage(t, got, &m)
			// The result must not alias the record.
			clear(rec)
			checkSameMessage(t, got, &m)
			// Appending to Metadata must not overwrite the rest.
			_ = append(got.Metadata, "XXXXXXXXXXXXXXXX"...)
			if len(got.Paths) > 0 && got.Paths[0] != m.Paths[0] || !bytes.Equal(got.Body, m.Body) {
				t.Error("appending to Metadata changed other fields")
			}
		})
	}
}

func checkSameMessage(t *testing.T, got, want *cache.Message) {
	t.Helper()
	if got.ID != want.ID || got.ReplicaID != want.ReplicaID ||
		!bytes.Equal(got.Metadata, want.Metadata) || !slices.Equal(got.Paths, want.Paths) ||
		!bytes.Equal(got.Body, want.Body) ||
		!got.ReceivedAt.Equal(want.ReceivedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) ||
		got.ReceivedAt.Location() != time.UTC || got.ExpiresAt.Location() != time.UTC {
		t.Errorf("decoded message differs:\n got  %+v\n want %+v", got, want)
	}
}

func TestRecordEmptyBodyDecodesNil(t *testing.T) {
	m := &cache.Message{ID: uuid.New(), Metadata: json.RawMessage(`{}`), Paths: []string{"a"}, Body: []byte{}}
	got, err := decodeRecord(m.ID, appendRecord(nil, m))
	if err != nil {
		t.Fatal(err)
	}
	if got.Body != nil {
		t.Errorf("Body = %q, want nil", got.Body)
	}
}

func TestRecordCorrupt(t *testing.T) {
	m := &cache.Message{
		ID: uuid.New(), Metadata: json.RawMessage(`{"paths":["a.b","c"]}`), Paths: []string{"a.b", "c"},
		ReceivedAt: time.UnixMilli(1000).UTC(), ExpiresAt: time.UnixMilli(2000).UTC(),
	}
	rec := appendRecord(nil, m)
	// Every strict prefix ends inside the header, the metadata or the paths
	// (there is no body), so none decodes.
	for n := range len(rec) {
		if _, err := decodeRecord(m.ID, rec[:n]); !errors.Is(err, errCorrupt) {
			t.Errorf("decoding the first %d of %d bytes: err = %v, want errCorrupt", n, len(rec), err)
		}
	}
	bad := slices.Clone(rec)
	bad[0] = 99
	if _, err := decodeRecord(m.ID, bad); !errors.Is(err, errCorrupt) {
		t.Errorf("unknown version: err = %v, want errCorrupt", err)
	}
	// A huge path count must fail cleanly, not allocate.
	huge := appendRecord(nil, &cache.Message{Metadata: json.RawMessage(`{}`)})
	huge = huge[:len(huge)-1]                         // drop the path count 0
	huge = append(huge, 0xff, 0xff, 0xff, 0xff, 0x0f) // 2^32-1 paths
	if _, err := decodeRecord(m.ID, huge); !errors.Is(err, errCorrupt) {
		t.Errorf("huge path count: err = %v, want errCorrupt", err)
	}
}
