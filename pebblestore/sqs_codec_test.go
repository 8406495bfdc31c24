package pebblestore

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sqs"
)

func TestQueueRecordRoundTrip(t *testing.T) {
	full := testQueue("orders.fifo", 4)
	full.Attributes.Policy = `{"Version":"2012-10-17"}`
	full.Attributes.RedrivePolicy = &sqs.RedrivePolicy{DeadLetterTargetARN: "arn:aws:sqs:us-east-1:0:dlq", MaxReceiveCount: 5}
	full.Attributes.RedriveAllowPolicy = &sqs.RedriveAllowPolicy{RedrivePermission: sqs.RedriveByQueue, SourceQueueARNs: []string{"a", "b"}}
	full.Attributes.ContentBasedDeduplication = true
	full.Attributes.KmsMasterKeyID = "alias/x"
	full.Attributes.DelaySeconds = -1 // out of range, but stored as given
	full.Tags = map[string]string{"team": "a", "env": ""}
	full.PurgedAt = t0.Add(time.Nanosecond)
	full.ModifiedAt = time.Unix(0, 0).UTC() // the Unix epoch is not the zero time

	minimal := &sqs.Queue{ID: uuid.New(), Account: "", Name: "q"}
	denyAll := testQueue("d", 1)
	denyAll.Attributes.RedriveAllowPolicy = &sqs.RedriveAllowPolicy{RedrivePermission: sqs.RedriveDenyAll}

	for _, q := range []*sqs.Queue{full, minimal, denyAll} {
		t.Run(q.Name, func(t *testing.T) {
			got, err := decodeQueueRecord(q.Account, q.Name, appendQueueRecord(nil, q))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, q) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, q)
			}
		})
	}
}

func TestQueueRecordRejectsDamage(t *testing.T) {
	rec := appendQueueRecord(nil, testQueue("q", 1))
	tests := []struct {
		name string
		rec  []byte
	}{
		{"empty", nil},
		{"truncated", rec[:len(rec)-1]},
		{"trailing", append(append([]byte(nil), rec...), 0)},
		{"version", append([]byte{queueRecordVersion + 1}, rec[1:]...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decodeQueueRecord("a", "q", tt.rec); !errors.Is(err, errCorrupt) {
				t.Errorf("err = %v, want errCorrupt", err)
			}
		})
	}
}

func TestMessageRecordRoundTrip(t *testing.T) {
	full := sqsMsg(t0, 3, time.Hour)
	full.Attributes = map[string]sqs.MessageAttributeValue{
		"s": {DataType: "String", StringValue: "v"},
		"b": {DataType: "Binary.raw", BinaryValue: []byte{0, 1, 2}},
	}
	full.SystemAttributes = map[string]sqs.MessageAttributeValue{"AWSTraceHeader": {DataType: "String", StringValue: "Root=1"}}
	full.MessageGroupID, full.MessageDeduplicationID, full.SequenceNumber = "g", "d", "18"
	full.DeadLetterSourceARN = "arn:aws:sqs:us-east-1:0:src"
	full.BodyMD5 = sqs.MD5OfBody(full.Body)
	full.State = sqs.State{ID: full.ID}

	bare := &sqs.Message{ID: uuid.New(), State: sqs.State{}}
	bare.State.ID = bare.ID

	for name, m := range map[string]*sqs.Message{"full": full, "bare": bare} {
		t.Run(name, func(t *testing.T) {
			got, err := decodeMessageRecord(m.ID, m.Shard, appendMessageRecord(nil, m))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, m)
			}
			rec := appendMessageRecord(nil, m)
			if exp, sent, ok := messageTimes(rec); !ok || !exp.Equal(m.ExpiresAt) || !sent.Equal(m.SentAt) {
				t.Errorf("messageTimes = %v, %v, %v; want %v, %v", exp, sent, ok, m.ExpiresAt, m.SentAt)
			}
			if n := len(rec); n > messageRecordSize(m) {
				t.Errorf("record of %d bytes exceeds the size bound %d", n, messageRecordSize(m))
			}
		})
	}
}

// A version 1 record, written before records kept the body's MD5, still
// decodes; its digest is then computed from the body.
func TestMessageRecordVersion1(t *testing.T) {
	m := sqsMsg(t0, 1, time.Hour)
	m.SenderID = "AIDA"
	m.State = sqs.State{ID: m.ID}
	v2 := appendMessageRecord(nil, m) // no digest: version, times, an empty digest, the rest
	exp, sent := appendTime(nil, m.ExpiresAt), appendTime(nil, m.SentAt)
	head := 1 + len(exp) + len(sent)
	if v2[head] != 0 {
		t.Fatalf("digest length byte = %d, want 0", v2[head])
	}
	v1 := append([]byte{messageRecordVersionV1}, v2[1:head]...)
	v1 = append(v1, v2[head+1:]...)

	got, err := decodeMessageRecord(m.ID, m.Shard, v1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, m)
	}
	if got.BodyMD5 != "" || got.BodyDigest() != sqs.MD5OfBody(m.Body) {
		t.Errorf("BodyMD5 %q, BodyDigest %q; want none kept and %q computed", got.BodyMD5, got.BodyDigest(), sqs.MD5OfBody(m.Body))
	}
	if e, s, ok := messageTimes(v1); !ok || !e.Equal(m.ExpiresAt) || !s.Equal(m.SentAt) {
		t.Errorf("messageTimes of a version 1 record = %v, %v, %v", e, s, ok)
	}
}

func TestMessageRecordRejectsBadDigest(t *testing.T) {
	m := sqsMsg(t0, 1, time.Hour)
	m.State = sqs.State{ID: m.ID}
	rec := appendMessageRecord(nil, m)
	head := 1 + len(appendTime(nil, m.ExpiresAt)) + len(appendTime(nil, m.SentAt))
	bad := append(append(append([]byte(nil), rec[:head]...), 3, 'a', 'b', 'c'), rec[head+1:]...)
	if _, err := decodeMessageRecord(m.ID, m.Shard, bad); !errors.Is(err, errCorrupt) {
		t.Errorf("a 3-byte digest: err = %v, want errCorrupt", err)
	}
}

func TestMessageRecordIsCompact(t *testing.T) {
	m := sqsMsg(t0, 0, 4*24*time.Hour)
	m.Body, m.SenderID = "", ""
	// version, two times, no digest, five empty strings, two empty maps
	if n := len(appendMessageRecord(nil, m)); n > 1+2*9+1+5+2 {
		t.Errorf("an empty standard message takes %d bytes", n)
	}
}

func TestStateRoundTrip(t *testing.T) {
	id := uuid.New()
	for _, s := range []sqs.State{
		{ID: id},
		{ID: id, ReceiveCount: 3, FirstReceiveAt: t0, VisibleAt: t0.Add(30 * time.Second)},
		{ID: id, VisibleAt: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)}, // before 1970
	} {
		v := appendState(nil, &s)
		got, err := decodeState(id, v)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("decoded %+v, want %+v", got, s)
		}
		if len(v) > stateSize {
			t.Errorf("state of %d bytes exceeds stateSize", len(v))
		}
		if _, err := decodeState(id, v[:len(v)-1]); err == nil {
			t.Error("a truncated state decoded")
		}
	}
}
