package sqs

import (
	"crypto/hmac"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/google/uuid"
)

// A receipt handle names one receive of one message:
//
//	version(1) | queue ID(16) | message ID(16) | receive count(4) |
//	first receive, Unix ms(8) | this receive, Unix ms(8) | MAC(12)
//
// in unpadded base64url. The MAC is an HMAC-SHA256 keyed by
// Config.ReceiptHandleSecret (when set) followed by the queue ID
// (appendHandleMAC), so garbage and altered handles are refused; the queue
// ID, random and shown nowhere but in handles, ties a handle to its queue.
// The receive count and first receive time let ChangeMessageVisibility
// persist a complete State without reading it; the time of this receive
// bounds its visibility timeout to 12 hours, as AWS does. Version 1
// handles, issued before that field existed, lack it and are still
// accepted until their messages are received again.
const (
	handleVersion   = 2
	handleBody      = 1 + 16 + 16 + 4 + 8 + 8
	handleV1Version = 1
	handleV1Body    = 1 + 16 + 16 + 4 + 8
	handleMACLen    = 12
)

// receipt is a decoded receipt handle.
type receipt struct {
	messageID      uuid.UUID
	receiveCount   int
	firstReceiveAt time.Time
	receivedAt     time.Time // zero in a version 1 handle
}

// receiptHandle issues the handle of m's receive from q at receivedAt.
func (s *Service) receiptHandle(q *Queue, m *Message, receivedAt time.Time) string {
	b := make([]byte, handleBody, handleBody+handleMACLen)
	b[0] = handleVersion
	copy(b[1:17], q.ID[:])
	copy(b[17:33], m.ID[:])
	binary.BigEndian.PutUint32(b[33:37], uint32(m.State.ReceiveCount))
	binary.BigEndian.PutUint64(b[37:45], uint64(unixMilliOrZero(m.State.FirstReceiveAt)))
	binary.BigEndian.PutUint64(b[45:53], uint64(unixMilliOrZero(receivedAt)))
	b = s.appendHandleMAC(b, q.ID, b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func unixMilliOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func timeOrZero(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// parseReceiptHandle decodes a handle issued for q; anything else is
// ReceiptHandleIsInvalid.
func (s *Service) parseReceiptHandle(q *Queue, handle string) (receipt, error) {
	if handle == "" {
		return receipt{}, ErrMissingParameter("ReceiptHandle")
	}
	b, err := base64.RawURLEncoding.DecodeString(handle)
	if err != nil || len(b) < 1 {
		return receipt{}, ErrReceiptHandleIsInvalid(handle)
	}
	body := handleBody
	if b[0] == handleV1Version {
		body = handleV1Body
	}
	if (b[0] != handleVersion && b[0] != handleV1Version) || len(b) != body+handleMACLen ||
		uuid.UUID(b[1:17]) != q.ID || !s.validHandleMAC(q.ID, b[:body], b[body:]) {
		return receipt{}, ErrReceiptHandleIsInvalid(handle)
	}
	var r receipt
	copy(r.messageID[:], b[17:33])
	r.receiveCount = int(binary.BigEndian.Uint32(b[33:37]))
	r.firstReceiveAt = timeOrZero(int64(binary.BigEndian.Uint64(b[37:45])))
	if b[0] == handleVersion {
		r.receivedAt = timeOrZero(int64(binary.BigEndian.Uint64(b[45:53])))
	}
	return r, nil
}

// validHandleMAC reports whether mac is the MAC of a handle body,
// compared in constant time.
func (s *Service) validHandleMAC(queueID uuid.UUID, body, mac []byte) bool {
	var buf [handleMACLen]byte
	return hmac.Equal(mac, s.appendHandleMAC(buf[:0], queueID, body))
}
