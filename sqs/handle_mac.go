package sqs

import (
	"crypto/sha256"
	"hash"
	"sync"

	"github.com/google/uuid"
)

// macScratch is what computing one handle MAC needs: a SHA-256 digest, the
// padded key block and room for a sum. It is pooled: crypto/hmac.New with
// the per-queue key allocated eight objects on every receive and delete.
type macScratch struct {
	h   hash.Hash
	pad [sha256.BlockSize]byte
	sum [sha256.Size]byte
}

var macScratches = sync.Pool{New: func() any { return &macScratch{h: sha256.New()} }}

// HMAC's pads (RFC 2104).
const (
	hmacInnerPad byte = 0x36
	hmacOuterPad byte = 0x5c
)

// appendHandleMAC appends to dst the MAC of a receipt handle's body: the
// first handleMACLen bytes of HMAC-SHA256 (RFC 2104) keyed by
// Config.ReceiptHandleSecret followed by the queue ID, the MAC handles have
// always carried. It is computed with a pooled digest, the key padded to
// one block (hashed first when longer, as RFC 2104 has it); the tests hold
// it to crypto/hmac.
func (s *Service) appendHandleMAC(dst []byte, queueID uuid.UUID, body []byte) []byte {
	m := macScratches.Get().(*macScratch)
	defer macScratches.Put(m)
	secret := s.cfg.ReceiptHandleSecret
	n := 0
	if len(secret)+len(queueID) > len(m.pad) {
		m.h.Reset()
		m.h.Write(secret)
		m.h.Write(m.sum[:copy(m.sum[:], queueID[:])]) // not queueID[:]: it would escape
		n = len(m.h.Sum(m.pad[:0]))
	} else {
		n = copy(m.pad[:], secret)
		n += copy(m.pad[n:], queueID[:])
	}
	clear(m.pad[n:])

	xorPad(&m.pad, hmacInnerPad)
	m.h.Reset()
	m.h.Write(m.pad[:])
	m.h.Write(body)
	inner := m.h.Sum(m.sum[:0])

	xorPad(&m.pad, hmacInnerPad^hmacOuterPad)
	m.h.Reset()
	m.h.Write(m.pad[:])
	m.h.Write(inner)
	return append(dst, m.h.Sum(m.sum[:0])[:handleMACLen]...)
}

func xorPad(pad *[sha256.BlockSize]byte, b byte) {
	for i := range pad {
		pad[i] ^= b
	}
}
