package sqs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
)

// refHandleMAC is the handle MAC as crypto/hmac computes it: HMAC-SHA256
// keyed by the secret and the queue ID, cut to handleMACLen bytes. Handles
// already issued carry it, so it must never change.
func refHandleMAC(secret []byte, queueID uuid.UUID, body []byte) []byte {
	key := append(append([]byte(nil), secret...), queueID[:]...)
	h := hmac.New(sha256.New, key)
	h.Write(body)
	return h.Sum(nil)[:handleMACLen]
}

// The pooled MAC equals crypto/hmac's for secrets shorter and longer than
// SHA-256's block (a key past it is hashed first) and bodies of every
// length, with scratch space reused in between.
func TestHandleMACMatchesHMAC(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 150 {
		secret := make([]byte, n)
		for i := range secret {
			secret[i] = byte(rng.Uint32())
		}
		s := &Service{cfg: Config{ReceiptHandleSecret: secret}}
		q := uuid.New()
		for _, size := range []int{0, 1, handleV1Body, handleBody, 64, 119, 200} {
			body := make([]byte, size)
			for i := range body {
				body[i] = byte(rng.Uint32())
			}
			got := s.appendHandleMAC([]byte("prefix"), q, body)
			if want := append([]byte("prefix"), refHandleMAC(secret, q, body)...); string(got) != string(want) {
				t.Fatalf("secret of %d bytes, body of %d: MAC %x, crypto/hmac %x", n, size, got, want)
			}
		}
	}
}

// handleOf builds a handle of version v (1 or 2) with the reference MAC,
// as Herald issued them before the MAC was pooled.
func handleOf(secret []byte, q uuid.UUID, v byte, id uuid.UUID, count uint32, first, received int64) string {
	body := handleBody
	if v == handleV1Version {
		body = handleV1Body
	}
	b := make([]byte, body)
	b[0] = v
	copy(b[1:17], q[:])
	copy(b[17:33], id[:])
	binary.BigEndian.PutUint32(b[33:37], count)
	binary.BigEndian.PutUint64(b[37:45], uint64(first))
	if v == handleVersion {
		binary.BigEndian.PutUint64(b[45:53], uint64(received))
	}
	return base64.RawURLEncoding.EncodeToString(append(b, refHandleMAC(secret, q, b)...))
}

// Handles issued before, of both versions, still verify, with and without
// a secret; the handles issued now are the very same bytes.
func TestEarlierHandlesVerify(t *testing.T) {
	for _, secret := range [][]byte{nil, []byte("s3cret"), make([]byte, 100)} {
		s := &Service{cfg: Config{ReceiptHandleSecret: secret}}
		q := &Queue{ID: uuid.New()}
		id := uuid.Must(uuid.NewUUID())
		first, received := int64(1700000000123), int64(1700000360123)
		for _, v := range []byte{handleV1Version, handleVersion} {
			h := handleOf(secret, q.ID, v, id, 4, first, received)
			r, err := s.parseReceiptHandle(q, h)
			if err != nil {
				t.Fatalf("version %d, secret %q: %v", v, secret, err)
			}
			if r.messageID != id || r.receiveCount != 4 || r.firstReceiveAt.UnixMilli() != first {
				t.Fatalf("version %d: decoded %+v", v, r)
			}
		}
		m := &Message{ID: id, State: State{ReceiveCount: 4, FirstReceiveAt: time.UnixMilli(first)}}
		if got, want := s.receiptHandle(q, m, time.UnixMilli(received)), handleOf(secret, q.ID, handleVersion, id, 4, first, received); got != want {
			t.Fatalf("issued %s, earlier releases issued %s", got, want)
		}
	}
}

// Changing any bit of a handle of either version, or its MAC, or making
// it with another secret, gets it refused.
func TestTamperedHandlesRefused(t *testing.T) {
	secret := []byte("s3cret")
	s := &Service{cfg: Config{ReceiptHandleSecret: secret}}
	q := &Queue{ID: uuid.New()}
	id := uuid.Must(uuid.NewUUID())
	for _, v := range []byte{handleV1Version, handleVersion} {
		good := handleOf(secret, q.ID, v, id, 1, 1700000000000, 1700000000000)
		raw, _ := base64.RawURLEncoding.DecodeString(good)
		for i := range raw {
			for bit := range 8 {
				b := append([]byte(nil), raw...)
				b[i] ^= 1 << bit
				if _, err := s.parseReceiptHandle(q, base64.RawURLEncoding.EncodeToString(b)); err == nil {
					t.Fatalf("version %d: handle with byte %d bit %d flipped accepted", v, i, bit)
				}
			}
		}
		for _, forged := range []string{
			handleOf([]byte("guess"), q.ID, v, id, 1, 1700000000000, 1700000000000),
			handleOf(nil, q.ID, v, id, 1, 1700000000000, 1700000000000),
			good[:len(good)-1], good + "A",
		} {
			if _, err := s.parseReceiptHandle(q, forged); err == nil {
				t.Fatalf("version %d: forged handle %s accepted", v, forged)
			}
		}
	}
}

// BenchmarkReceiptHandle issues a handle and verifies it, as a receive
// and the delete after it do.
func BenchmarkReceiptHandle(b *testing.B) {
	s := &Service{cfg: Config{ReceiptHandleSecret: []byte("s3cret")}}
	q := &Queue{ID: uuid.New()}
	now := time.UnixMilli(1700000000123)
	m := &Message{ID: uuid.Must(uuid.NewUUID()), State: State{ReceiveCount: 1, FirstReceiveAt: now}}
	b.ReportAllocs()
	for b.Loop() {
		h := s.receiptHandle(q, m, now)
		if _, err := s.parseReceiptHandle(q, h); err != nil {
			b.Fatal(err)
		}
	}
}
