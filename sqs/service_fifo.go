package sqs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strconv"
	"time"

	"github.com/google/uuid"
)

func itoa(n int) string { return strconv.Itoa(n) }

// checkFIFOParameters applies the FIFO rules to an outgoing message and
// returns its deduplication ID (content-based when not given).
//
// Standard queues take a MessageGroupId too: AWS's "fair queues" use it to
// keep one tenant from crowding out the others. Herald validates and
// stores it (receivers see it as a system attribute) but orders standard
// messages as before; only FIFO queues group them. A deduplication ID
// remains FIFO-only. As on AWS, an ID given empty is invalid, not missing.
func (s *Service) checkFIFOParameters(q *Queue, o outgoing) (string, error) {
	if o.groupID != nil && !validFIFOID(*o.groupID, s.lim.MaxMessageGroupIDLen) {
		return "", invalidParameter("MessageGroupId", *o.groupID, "MessageGroupId can only include alphanumeric and punctuation characters. 1 to "+itoa(s.lim.MaxMessageGroupIDLen)+" in length.")
	}
	if !q.Attributes.FifoQueue {
		if o.dedupID != nil {
			return "", invalidParameter("MessageDeduplicationId", *o.dedupID, notForQueueType)
		}
		return "", nil
	}
	if o.groupID == nil {
		return "", ErrMissingParameter("MessageGroupId")
	}
	if o.dedupID == nil {
		if !q.Attributes.ContentBasedDeduplication {
			return "", errMissingDeduplicationID()
		}
		sum := sha256.Sum256([]byte(o.body))
		return hex.EncodeToString(sum[:]), nil
	}
	if !validFIFOID(*o.dedupID, s.lim.MaxDeduplicationIDLen) {
		return "", invalidParameter("MessageDeduplicationId", *o.dedupID, "MessageDeduplicationId can only include alphanumeric and punctuation characters. 1 to "+itoa(s.lim.MaxDeduplicationIDLen)+" in length.")
	}
	return *o.dedupID, nil
}

// deref is *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// errMissingDeduplicationID: a FIFO message without a deduplication ID on a
// queue without content-based deduplication.
func errMissingDeduplicationID() *Error {
	return ErrInvalidParameterValue("The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
}

// indexGroup is the group the Index orders m by: its MessageGroupId on a
// FIFO queue, none on a standard queue (where a group only labels a fair
// queue's tenant).
func indexGroup(q *Queue, m *Message) string {
	if !q.Attributes.FifoQueue {
		return ""
	}
	return m.MessageGroupID
}

// validFIFOID checks a MessageGroupId or MessageDeduplicationId: 1 to
// maxLen ASCII letters, digits and punctuation.
func validFIFOID(id string, maxLen int) bool {
	if len(id) == 0 || len(id) > maxLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// dedupKey is the Index's deduplication key of m: its deduplication ID,
// within its group when the queue deduplicates per message group. The
// scope is part of the key so that changing DeduplicationScope never
// matches a key of the other scope. IDs are printable ASCII, so the NUL
// separator is unambiguous.
//
// As on AWS, PurgeQueue clears the deduplication records: a purged queue's
// keys carry the time of its last purge, so no record made before it
// matches. A queue never purged keeps the keys it always had.
func dedupKey(q *Queue, m *Message) string {
	epoch := ""
	if !q.PurgedAt.IsZero() {
		epoch = "p" + strconv.FormatInt(q.PurgedAt.UnixMilli(), 10) + "\x00"
	}
	if q.Attributes.DeduplicationScope == DeduplicationScopeMessageGroup {
		return epoch + "g\x00" + m.MessageGroupID + "\x00" + m.MessageDeduplicationID
	}
	return epoch + "q\x00" + m.MessageDeduplicationID
}

// deduplicationWindow is the FIFO deduplication interval.
func (s *Service) deduplicationWindow() time.Duration {
	return seconds(s.lim.DeduplicationIntervalSeconds)
}

// deduplicate records m's deduplication key and reports the original
// message's ID if m is a duplicate. An Index failure lets the message
// through: a duplicate is acceptable, a loss is not.
func (s *Service) deduplicate(ctx context.Context, q *Queue, m *Message, now time.Time) (uuid.UUID, bool) {
	window := s.deduplicationWindow() - now.Sub(m.SentAt)
	if window <= 0 {
		return uuid.Nil, false
	}
	orig, dup, err := s.index.Deduplicate(ctx, s.indexQueue(ctx, q), dedupKey(q, m), m.ID, window)
	if err != nil || !dup || orig == m.ID {
		return uuid.Nil, false
	}
	return orig, true
}

// sequenceNumber derives a FIFO SequenceNumber from a version 1 message ID:
// its 60-bit time followed by its 14-bit clock sequence, in decimal. It
// grows with the send time (and, for IDs of one instant, with the clock
// sequence the uuid package bumps), and a duplicate's answer can name the
// original's number without reading it.
func sequenceNumber(id uuid.UUID) string {
	n := new(big.Int).SetInt64(int64(id.Time()))
	n.Lsh(n, 14)
	n.Or(n, big.NewInt(int64(id.ClockSequence())))
	return n.String()
}
