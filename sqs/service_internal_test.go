package sqs

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestReceiptHandleRoundTrip(t *testing.T) {
	s := &Service{cfg: Config{ReceiptHandleSecret: []byte("s3cret")}}
	q := &Queue{ID: uuid.New()}
	first := time.UnixMilli(1700000000123)
	m := &Message{ID: uuid.Must(uuid.NewUUID()), State: State{ReceiveCount: 7, FirstReceiveAt: first}}
	received := first.Add(time.Hour)
	h := s.receiptHandle(q, m, received)
	r, err := s.parseReceiptHandle(q, h)
	if err != nil {
		t.Fatal(err)
	}
	if r.messageID != m.ID || r.receiveCount != 7 || !r.firstReceiveAt.Equal(first) || !r.receivedAt.Equal(received) {
		t.Fatalf("decoded %+v", r)
	}
	other := &Queue{ID: uuid.New()}
	if _, err := s.parseReceiptHandle(other, h); err == nil {
		t.Fatal("handle accepted by another queue")
	}
	noSecret := &Service{}
	if _, err := noSecret.parseReceiptHandle(q, h); err == nil {
		t.Fatal("handle accepted without the secret it was made with")
	}
}

// Handles issued before the receive time was added (version 1) stay
// valid; they only lack the 12-hour bound.
func TestVersion1ReceiptHandlesStillParse(t *testing.T) {
	s := &Service{}
	q := &Queue{ID: uuid.New()}
	id := uuid.Must(uuid.NewUUID())
	b := make([]byte, handleV1Body)
	b[0] = handleV1Version
	copy(b[1:17], q.ID[:])
	copy(b[17:33], id[:])
	binary.BigEndian.PutUint32(b[33:37], 3)
	b = s.appendHandleMAC(b, q.ID, b)
	r, err := s.parseReceiptHandle(q, base64.RawURLEncoding.EncodeToString(b))
	if err != nil {
		t.Fatal(err)
	}
	if r.messageID != id || r.receiveCount != 3 || !r.receivedAt.IsZero() {
		t.Fatalf("decoded %+v", r)
	}
}

func TestSequenceNumbersGrow(t *testing.T) {
	prev := new(big.Int)
	for i := 0; i < 1000; i++ {
		n, ok := new(big.Int).SetString(sequenceNumber(uuid.Must(uuid.NewUUID())), 10)
		if !ok || n.Cmp(prev) <= 0 {
			t.Fatalf("sequence number %v after %v", n, prev)
		}
		prev = n
	}
}

func TestIDBeforeFollowsSendOrder(t *testing.T) {
	ids := make([]uuid.UUID, 200)
	for i := range ids {
		ids[i] = uuid.Must(uuid.NewUUID())
	}
	for i := 1; i < len(ids); i++ {
		if !idBefore(ids[i-1], ids[i]) || idBefore(ids[i], ids[i-1]) {
			t.Fatalf("id %d not after id %d", i, i-1)
		}
	}
}

func TestQueueCache(t *testing.T) {
	c := newQueueCache(2, time.Hour)
	a, b, d := &Queue{Account: "1", Name: "a"}, &Queue{Account: "1", Name: "b"}, &Queue{Account: "1", Name: "d"}
	c.put(a)
	c.put(b)
	if c.get("1/a") != a { // a is now the most recently used
		t.Fatal("a not cached")
	}
	c.put(d)
	if c.get("1/b") != nil {
		t.Fatal("least recently used entry not evicted")
	}
	if c.get("1/a") != a || c.get("1/d") != d {
		t.Fatal("recent entries evicted")
	}
	c.invalidate("1", "", "a")
	if c.get("1/a") != nil {
		t.Fatal("invalidated entry still cached")
	}
	short := newQueueCache(10, time.Millisecond)
	short.put(a)
	time.Sleep(3 * time.Millisecond)
	if short.get("1/a") != nil {
		t.Fatal("expired entry returned")
	}
}

func TestNewSelection(t *testing.T) {
	sel := newSelection(ReceiveMessageInput{AttributeNames: []string{"All"}, MessageAttributeNames: []string{"a.*", "exact"}})
	for _, n := range systemAttributeNames {
		if !sel.system[n] {
			t.Errorf("All does not select %s", n)
		}
	}
	for name, want := range map[string]bool{"a.x": true, "a": false, "ab.x": false, "exact": true, "exact2": false} {
		if got := sel.wantsAttribute(name); got != want {
			t.Errorf("wantsAttribute(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParsePosition(t *testing.T) {
	a, b := uuid.Must(uuid.NewUUID()), uuid.Must(uuid.NewUUID())
	tests := []struct {
		in     string
		shards int
		want   map[int]uuid.UUID
	}{
		{"", 4, nil},
		{"1", 4, map[int]uuid.UUID{}},
		{"1|0=" + a.String() + "|3=" + b.String(), 4, map[int]uuid.UUID{0: a, 3: b}},
		{"1|4=" + a.String(), 4, nil},  // no such shard
		{"1|-1=" + a.String(), 4, nil}, // nor this
		{"1|0=nope", 4, nil},
		{"1|0" + a.String(), 4, nil},
		{"2|0=" + a.String(), 4, nil}, // another format
	}
	for _, tc := range tests {
		if got := parsePosition(tc.in, tc.shards); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("parsePosition(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	// position and parsePosition round-trip.
	sc := newQueueScanner(nil, &Queue{Shards: 4})
	sc.shards[1].returned, sc.shards[2].returned = a, b
	if got := parsePosition(sc.position(), 4); fmt.Sprint(got) != fmt.Sprint(map[int]uuid.UUID{1: a, 2: b}) {
		t.Errorf("round trip: %v", got)
	}
}

// FuzzParsePosition: any saved position is read as a valid resume point
// or refused (nil: start over), never a shard out of range.
func FuzzParsePosition(f *testing.F) {
	f.Add("1|0=" + uuid.Must(uuid.NewUUID()).String())
	f.Add("1|3=x|2=")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		got := parsePosition(s, 4)
		for shard := range got {
			if shard < 0 || shard >= 4 {
				t.Fatalf("parsePosition(%q) names shard %d", s, shard)
			}
		}
		if got == nil {
			return
		}
		sc := newQueueScannerFrom(nil, &Queue{Shards: 4}, s)
		again := parsePosition(sc.position(), 4)
		for shard, id := range got {
			if id != uuid.Nil && again[shard] != id {
				t.Fatalf("position %q did not round-trip: %v then %v", s, got, again)
			}
		}
	})
}
