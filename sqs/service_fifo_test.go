package sqs_test

import (
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

func fifoAttrs(extra ...string) map[string]string {
	m := map[string]string{"FifoQueue": "true"}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

func TestFIFOOrderAndGroupBlocking(t *testing.T) {
	e := newEnv(t, shards(4))
	url := e.createQueue(t, "orders.fifo", fifoAttrs())
	var seqs []*big.Int
	for _, m := range []struct{ body, group string }{{"a1", "A"}, {"b1", "B"}, {"a2", "A"}, {"a3", "A"}, {"b2", "B"}} {
		out := e.sendFIFO(t, url, m.body, m.group, m.body)
		n, ok := new(big.Int).SetString(out.SequenceNumber, 10)
		if !ok {
			t.Fatalf("SequenceNumber %q", out.SequenceNumber)
		}
		seqs = append(seqs, n)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i].Cmp(seqs[i-1]) <= 0 {
			t.Fatalf("sequence numbers do not increase: %v", seqs)
		}
	}

	first := e.receive(t, url, 2, nil)
	if got := bodies(first); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Fatalf("first receive %v, want [a1 a2]", got)
	}
	if first[0].Attributes["MessageGroupId"] != "A" || first[0].Attributes["MessageDeduplicationId"] != "a1" || first[0].Attributes["SequenceNumber"] == "" {
		t.Fatalf("FIFO attributes %v", first[0].Attributes)
	}
	// Group A is blocked while a1 and a2 are in flight; B is not.
	if got := bodies(e.receive(t, url, 10, nil)); !slices.Equal(got, []string{"b1", "b2"}) {
		t.Fatalf("second receive %v, want [b1 b2]", got)
	}
	if got := e.receive(t, url, 10, nil); len(got) != 0 {
		t.Fatalf("blocked groups delivered %v", bodies(got))
	}
	e.deleteMessage(t, url, first[0].ReceiptHandle)
	e.deleteMessage(t, url, first[1].ReceiptHandle)
	if got := bodies(e.receive(t, url, 10, nil)); !slices.Equal(got, []string{"a3"}) {
		t.Fatalf("after deleting a1, a2: %v, want [a3]", got)
	}
}

func TestFIFOParameters(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "p.fifo", fifoAttrs())
	tests := []struct {
		name string
		in   sqs.SendMessageInput
		code string
	}{
		{"missing group", sqs.SendMessageInput{MessageBody: "x", MessageDeduplicationID: ptr("d")}, sqs.CodeMissingParameter},
		{"missing dedup id", sqs.SendMessageInput{MessageBody: "x", MessageGroupID: ptr("g")}, sqs.CodeInvalidParameterValue},
		{"message delay", sqs.SendMessageInput{MessageBody: "x", MessageGroupID: ptr("g"), MessageDeduplicationID: ptr("d"), DelaySeconds: ptr(5)}, sqs.CodeInvalidParameterValue},
		{"bad group", sqs.SendMessageInput{MessageBody: "x", MessageGroupID: ptr("g g"), MessageDeduplicationID: ptr("d")}, sqs.CodeInvalidParameterValue},
		// As on AWS, empty IDs are invalid, not missing.
		{"empty group", sqs.SendMessageInput{MessageBody: "x", MessageGroupID: ptr(""), MessageDeduplicationID: ptr("d")}, sqs.CodeInvalidParameterValue},
		{"empty dedup id", sqs.SendMessageInput{MessageBody: "x", MessageGroupID: ptr("g"), MessageDeduplicationID: ptr("")}, sqs.CodeInvalidParameterValue},
		{"zero delay is fine", sqs.SendMessageInput{MessageBody: "x", MessageGroupID: ptr("g"), MessageDeduplicationID: ptr("d"), DelaySeconds: ptr(0)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.QueueURL = url
			_, err := e.svc.SendMessage(e.ctx, caller, tt.in)
			wantCode(t, err, tt.code)
		})
	}
}

func TestFIFODeduplication(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]string
		// sends are (body, group, dedup id); want are the bodies received.
		sends [][3]string
		want  []string
	}{
		{"explicit id", fifoAttrs(), [][3]string{{"1", "g", "d"}, {"2", "g", "d"}, {"3", "g", "e"}}, []string{"1", "3"}},
		{"content based", fifoAttrs("ContentBasedDeduplication", "true"), [][3]string{{"same", "g", ""}, {"same", "g", ""}, {"other", "g", ""}}, []string{"other", "same"}},
		{"queue scope spans groups", fifoAttrs(), [][3]string{{"1", "g", "d"}, {"2", "h", "d"}}, []string{"1"}},
		{"group scope", fifoAttrs("DeduplicationScope", "messageGroup"), [][3]string{{"1", "g", "d"}, {"2", "h", "d"}, {"3", "h", "d"}}, []string{"1", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			url := e.createQueue(t, "d.fifo", tt.attrs)
			for _, s := range tt.sends {
				e.sendFIFO(t, url, s[0], s[1], s[2])
			}
			var got []string
			for {
				msgs := e.receive(t, url, 10, nil)
				if len(msgs) == 0 {
					break
				}
				for _, m := range msgs {
					got = append(got, m.Body)
					e.deleteMessage(t, url, m.ReceiptHandle)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("received %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFIFOPurgeClearsDeduplication: as on AWS, a message sent after a
// PurgeQueue with the deduplication ID of one sent before it is accepted,
// while duplicates after the purge are still dropped.
func TestFIFOPurgeClearsDeduplication(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "p.fifo", fifoAttrs())
	before := e.sendFIFO(t, url, "1", "g", "d")
	e.advance(time.Millisecond)
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, url), "")
	e.advance(time.Millisecond)
	after := e.sendFIFO(t, url, "2", "g", "d")
	if after.MessageID == before.MessageID {
		t.Fatal("a send after PurgeQueue was deduplicated against a purged message")
	}
	if dup := e.sendFIFO(t, url, "3", "g", "d"); dup.MessageID != after.MessageID {
		t.Fatalf("a duplicate after the purge got %s, want the original %s", dup.MessageID, after.MessageID)
	}
	if got := bodies(e.receive(t, url, 10, nil)); !slices.Equal(got, []string{"2"}) {
		t.Fatalf("received %v, want [2]", got)
	}
}

func TestFIFODeduplicationWindowEnds(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "w.fifo", fifoAttrs())
	first := e.sendFIFO(t, url, "1", "g", "d")
	dup := e.sendFIFO(t, url, "2", "g", "d")
	if dup.MessageID != first.MessageID || dup.SequenceNumber != first.SequenceNumber {
		t.Fatalf("duplicate answered %+v, original %+v", dup, first)
	}
	e.advance(5*time.Minute + time.Second)
	fresh := e.sendFIFO(t, url, "3", "g", "d")
	if fresh.MessageID == first.MessageID {
		t.Fatal("deduplicated after the 5-minute window")
	}
}

func TestFIFOBatchKeepsOrder(t *testing.T) {
	e := newEnv(t, shards(8))
	url := e.createQueue(t, "b.fifo", fifoAttrs("ContentBasedDeduplication", "true"))
	var entries []sqs.SendMessageBatchEntry
	want := []string{}
	for i := 0; i < 10; i++ {
		b := string(rune('a' + i))
		entries = append(entries, sqs.SendMessageBatchEntry{ID: "e" + b, MessageBody: b, MessageGroupID: ptr("g")})
		want = append(want, b)
	}
	out, err := e.svc.SendMessageBatch(e.ctx, caller, sqs.SendMessageBatchInput{QueueURL: url, Entries: entries})
	wantCode(t, err, "")
	if len(out.Successful) != 10 {
		t.Fatalf("batch %+v", out)
	}
	// After a rebuild too, the group keeps its order across shards.
	wantCode(t, e.index.Drop(e.ctx, sqs.IndexQueue{ID: queueID(t, e, "b.fifo"), FIFO: true}), "")
	if got := bodies(e.receive(t, url, 10, nil)); !slices.Equal(got, want) {
		t.Fatalf("received %v, want %v", got, want)
	}
}
