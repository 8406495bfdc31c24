package sqs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/google/uuid"
)

// A receipt handle names one receive of one message:
//
//	version(1) | queue ID(16) | message ID(16) | receive count(4) |
//	first receive, Unix ms(8) | MAC(12)
//
// in unpadded base64url. The MAC is an HMAC-SHA256 keyed by the queue ID
// (and Config.ReceiptHandleSecret when set), so garbage and altered
// handles are refused; the queue ID, random and never shown elsewhere,
// ties a handle to its queue. The receive count and first receive time let
// ChangeMessageVisibility persist a complete State without reading it.
const (
	handleVersion = 1
	handleBody    = 1 + 16 + 16 + 4 + 8
	handleMACLen  = 12
)

// receipt is a decoded receipt handle.
type receipt struct {
	messageID      uuid.UUID
	receiveCount   int
	firstReceiveAt time.Time
}

func (s *Service) handleMAC(queueID uuid.UUID, body []byte) []byte {
	key := append(append([]byte(nil), s.cfg.ReceiptHandleSecret...), queueID[:]...)
	h := hmac.New(sha256.New, key)
	h.Write(body)
	return h.Sum(nil)[:handleMACLen]
}

// receiptHandle issues the handle of this receive of m from q.
func (s *Service) receiptHandle(q *Queue, m *Message) string {
	b := make([]byte, handleBody, handleBody+handleMACLen)
	b[0] = handleVersion
	copy(b[1:17], q.ID[:])
	copy(b[17:33], m.ID[:])
	binary.BigEndian.PutUint32(b[33:37], uint32(m.State.ReceiveCount))
	var first int64
	if !m.State.FirstReceiveAt.IsZero() {
		first = m.State.FirstReceiveAt.UnixMilli()
	}
	binary.BigEndian.PutUint64(b[37:45], uint64(first))
	b = append(b, s.handleMAC(q.ID, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseReceiptHandle decodes a handle issued for q; anything else is
// ReceiptHandleIsInvalid.
func (s *Service) parseReceiptHandle(q *Queue, handle string) (receipt, error) {
	if handle == "" {
		return receipt{}, ErrMissingParameter("ReceiptHandle")
	}
	b, err := base64.RawURLEncoding.DecodeString(handle)
	if err != nil || len(b) != handleBody+handleMACLen || b[0] != handleVersion ||
		uuid.UUID(b[1:17]) != q.ID || !hmac.Equal(b[handleBody:], s.handleMAC(q.ID, b[:handleBody])) {
		return receipt{}, ErrReceiptHandleIsInvalid(handle)
	}
	var r receipt
	copy(r.messageID[:], b[17:33])
	r.receiveCount = int(binary.BigEndian.Uint32(b[33:37]))
	if ms := int64(binary.BigEndian.Uint64(b[37:45])); ms != 0 {
		r.firstReceiveAt = time.UnixMilli(ms)
	}
	return r, nil
}
