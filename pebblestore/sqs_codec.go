package pebblestore

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sqs"
)

// Records of the SQS queue store. Each starts with a version byte, so a
// later layout can be read beside this one; the key holds what it names
// (account and name of a queue, queue, shard and id of a message), so the
// value does not repeat it. Integers are varints and strings are a uvarint
// length and bytes. A time is a uvarint: 0 for the zero time, otherwise the
// zigzag-encoded Unix nanoseconds plus one.
//
// Queue record (queueRecordVersion):
//
//	version, flags (uvarint, queueFlag*), id (16 bytes), shards,
//	created, modified, purged,
//	delay, max size, retention, wait, visibility, kms reuse (varints),
//	policy, deduplication scope, throughput limit, kms key (strings),
//	[redrive: target arn, max receive count]            if queueFlagRedrive
//	[redrive allow: permission, count, arns...]         if queueFlagRedriveAllow
//	tags: count, then sorted key, value pairs
//
// Message record (messageRecordVersion); expiry comes first so that the
// reaper and readers can test it before decoding the rest:
//
//	version, expires, sent,
//	body MD5 (bytes: the 16-byte digest taken at send, or none),
//	sender id, group id, deduplication id, sequence number, source arn,
//	attributes, system attributes: count, then each
//	    name, data type, string value, binary value
//	body: the remaining bytes
//
// Version 1 of the message record, still read, has no body MD5.
//
// State (stateVersion): version, receive count, first receive, visible at.
const (
	queueRecordVersion     = 1
	messageRecordVersion   = 2
	messageRecordVersionV1 = 1
	stateVersion           = 1
)

// Flags of a queue record.
const (
	queueFlagFIFO = 1 << iota
	queueFlagContentDedup
	queueFlagSSE
	queueFlagRedrive
	queueFlagRedriveAllow
)

// errCorruptSQS is the cause of decoding failures of SQS records.
var errCorruptSQS = fmt.Errorf("%w (sqs)", errCorrupt)

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

func appendTime(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(dst, 0)
	}
	ns := t.UnixNano()
	return binary.AppendUvarint(dst, uint64(ns<<1^ns>>63)+1)
}

// recordReader decodes a record; the first failure sticks, so callers
// check ok once at the end.
type recordReader struct {
	b  []byte
	ok bool
}

func newRecordReader(b []byte) *recordReader { return &recordReader{b: b, ok: true} }

func (r *recordReader) fail() { r.ok, r.b = false, nil }

func (r *recordReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *recordReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) int() int {
	v := r.varint()
	if v < math.MinInt || v > math.MaxInt {
		r.fail()
		return 0
	}
	return int(v)
}

// count reads a count of items of at least one byte each.
func (r *recordReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

// bytes reads a length-prefixed byte string; the result aliases the record.
func (r *recordReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *recordReader) string() string { return string(r.bytes()) }

func (r *recordReader) fixed(n int) []byte {
	if len(r.b) < n {
		r.fail()
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *recordReader) time() time.Time {
	v := r.uvarint()
	if v == 0 {
		return time.Time{}
	}
	z := v - 1
	return time.Unix(0, int64(z>>1)^-int64(z&1)).UTC()
}

// appendQueueRecord appends the record of q (without account and name).
func appendQueueRecord(dst []byte, q *sqs.Queue) []byte {
	a := &q.Attributes
	var flags uint64
	for _, f := range []struct {
		set  bool
		flag uint64
	}{
		{a.FifoQueue, queueFlagFIFO},
		{a.ContentBasedDeduplication, queueFlagContentDedup},
		{a.SqsManagedSseEnabled, queueFlagSSE},
		{a.RedrivePolicy != nil, queueFlagRedrive},
		{a.RedriveAllowPolicy != nil, queueFlagRedriveAllow},
	} {
		if f.set {
			flags |= f.flag
		}
	}
	dst = append(dst, queueRecordVersion)
	dst = binary.AppendUvarint(dst, flags)
	dst = append(dst, q.ID[:]...)
	dst = binary.AppendUvarint(dst, uint64(q.Shards))
	dst = appendTime(dst, q.CreatedAt)
	dst = appendTime(dst, q.ModifiedAt)
	dst = appendTime(dst, q.PurgedAt)
	for _, v := range []int{a.DelaySeconds, a.MaximumMessageSize, a.MessageRetentionPeriod,
		a.ReceiveMessageWaitTimeSeconds, a.VisibilityTimeout, a.KmsDataKeyReusePeriodSeconds} {
		dst = binary.AppendVarint(dst, int64(v))
	}
	for _, s := range []string{a.Policy, a.DeduplicationScope, a.FifoThroughputLimit, a.KmsMasterKeyID} {
		dst = appendString(dst, s)
	}
	if p := a.RedrivePolicy; p != nil {
		dst = appendString(dst, p.DeadLetterTargetARN)
		dst = binary.AppendVarint(dst, int64(p.MaxReceiveCount))
	}
	if p := a.RedriveAllowPolicy; p != nil {
		dst = appendString(dst, p.RedrivePermission)
		dst = binary.AppendUvarint(dst, uint64(len(p.SourceQueueARNs)))
		for _, arn := range p.SourceQueueARNs {
			dst = appendString(dst, arn)
		}
	}
	keys := make([]string, 0, len(q.Tags))
	for k := range q.Tags {
		keys = append(keys, k)
	}
	sort.Strings(keys) // one encoding per queue state
	dst = binary.AppendUvarint(dst, uint64(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = appendString(dst, q.Tags[k])
	}
	return dst
}

// decodeQueueRecord decodes the record of the queue account/name.
func decodeQueueRecord(account, name string, rec []byte) (*sqs.Queue, error) {
	r := newRecordReader(rec)
	if v := r.byte(); r.ok && v != queueRecordVersion {
		return nil, fmt.Errorf("%w: queue %s/%s: version %d", errCorruptSQS, account, name, v)
	}
	flags := r.uvarint()
	q := &sqs.Queue{Account: account, Name: name}
	copy(q.ID[:], r.fixed(idLen))
	q.Shards = int(min(r.uvarint(), sqs.MaxShards))
	q.CreatedAt = r.time()
	q.ModifiedAt = r.time()
	q.PurgedAt = r.time()
	a := &q.Attributes
	a.FifoQueue = flags&queueFlagFIFO != 0
	a.ContentBasedDeduplication = flags&queueFlagContentDedup != 0
	a.SqsManagedSseEnabled = flags&queueFlagSSE != 0
	for _, p := range []*int{&a.DelaySeconds, &a.MaximumMessageSize, &a.MessageRetentionPeriod,
		&a.ReceiveMessageWaitTimeSeconds, &a.VisibilityTimeout, &a.KmsDataKeyReusePeriodSeconds} {
		*p = r.int()
	}
	for _, p := range []*string{&a.Policy, &a.DeduplicationScope, &a.FifoThroughputLimit, &a.KmsMasterKeyID} {
		*p = r.string()
	}
	if flags&queueFlagRedrive != 0 {
		a.RedrivePolicy = &sqs.RedrivePolicy{DeadLetterTargetARN: r.string(), MaxReceiveCount: r.int()}
	}
	if flags&queueFlagRedriveAllow != 0 {
		p := &sqs.RedriveAllowPolicy{RedrivePermission: r.string()}
		if n := r.count(); n > 0 {
			p.SourceQueueARNs = make([]string, n)
			for i := range p.SourceQueueARNs {
				p.SourceQueueARNs[i] = r.string()
			}
		}
		a.RedriveAllowPolicy = p
	}
	if n := r.count(); n > 0 {
		q.Tags = make(map[string]string, n)
		for range n {
			k := r.string()
			q.Tags[k] = r.string()
		}
	}
	if !r.ok || len(r.b) != 0 {
		return nil, fmt.Errorf("%w: queue %s/%s", errCorruptSQS, account, name)
	}
	return q, nil
}

// messageRecordSize returns an upper bound of the record size of m.
func messageRecordSize(m *sqs.Message) int {
	const v = binary.MaxVarintLen64
	n := 1 + 2*v + 1 + md5.Size + 5*v + len(m.SenderID) + len(m.MessageGroupID) + len(m.MessageDeduplicationID) +
		len(m.SequenceNumber) + len(m.DeadLetterSourceARN) + 2*v + len(m.Body)
	for _, attrs := range []map[string]sqs.MessageAttributeValue{m.Attributes, m.SystemAttributes} {
		for k, a := range attrs {
			n += 4*v + len(k) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
		}
	}
	return n
}

// appendMessageRecord appends the record of m (without queue, shard, id
// and state).
func appendMessageRecord(dst []byte, m *sqs.Message) []byte {
	dst = append(dst, messageRecordVersion)
	dst = appendTime(dst, m.ExpiresAt)
	dst = appendTime(dst, m.SentAt)
	var digest [md5.Size]byte
	if n, err := hex.Decode(digest[:], []byte(m.BodyMD5)); err == nil && n == md5.Size {
		dst = appendBytes(dst, digest[:])
	} else {
		dst = appendBytes(dst, nil)
	}
	for _, s := range []string{m.SenderID, m.MessageGroupID, m.MessageDeduplicationID,
		m.SequenceNumber, m.DeadLetterSourceARN} {
		dst = appendString(dst, s)
	}
	for _, attrs := range []map[string]sqs.MessageAttributeValue{m.Attributes, m.SystemAttributes} {
		dst = binary.AppendUvarint(dst, uint64(len(attrs)))
		for k, a := range attrs {
			dst = appendString(dst, k)
			dst = appendString(dst, a.DataType)
			dst = appendString(dst, a.StringValue)
			dst = appendBytes(dst, a.BinaryValue)
		}
	}
	return append(dst, m.Body...)
}

// messageTimes returns the expiry and SentAt at the start of a message
// record, so that readers can skip a message without decoding it.
func messageTimes(rec []byte) (expires, sent time.Time, ok bool) {
	r := newRecordReader(rec)
	if v := r.byte(); !r.ok || (v != messageRecordVersion && v != messageRecordVersionV1) {
		return time.Time{}, time.Time{}, false
	}
	expires = r.time()
	sent = r.time()
	return expires, sent, r.ok
}

// decodeMessageRecord decodes a message record; the result does not alias
// rec.
func decodeMessageRecord(id uuid.UUID, shard int, rec []byte) (*sqs.Message, error) {
	r := newRecordReader(rec)
	v := r.byte()
	if r.ok && v != messageRecordVersion && v != messageRecordVersionV1 {
		return nil, fmt.Errorf("%w: message %s: version %d", errCorruptSQS, id, v)
	}
	m := &sqs.Message{ID: id, Shard: shard}
	m.ExpiresAt = r.time()
	m.SentAt = r.time()
	if v == messageRecordVersion {
		if digest := r.bytes(); len(digest) == md5.Size {
			m.BodyMD5 = hex.EncodeToString(digest)
		} else if len(digest) != 0 {
			r.fail()
		}
	}
	for _, p := range []*string{&m.SenderID, &m.MessageGroupID, &m.MessageDeduplicationID,
		&m.SequenceNumber, &m.DeadLetterSourceARN} {
		*p = r.string()
	}
	for _, p := range []*map[string]sqs.MessageAttributeValue{&m.Attributes, &m.SystemAttributes} {
		n := r.count()
		if n == 0 {
			continue
		}
		attrs := make(map[string]sqs.MessageAttributeValue, n)
		for range n {
			k := r.string()
			a := sqs.MessageAttributeValue{DataType: r.string(), StringValue: r.string()}
			if b := r.bytes(); len(b) > 0 {
				a.BinaryValue = append([]byte(nil), b...)
			}
			attrs[k] = a
		}
		*p = attrs
	}
	if !r.ok {
		return nil, fmt.Errorf("%w: message %s", errCorruptSQS, id)
	}
	m.Body = string(r.b)
	m.State.ID = id
	return m, nil
}

// stateSize bounds the encoded size of a state.
const stateSize = 1 + 3*binary.MaxVarintLen64

// appendState appends the value of a state key.
func appendState(dst []byte, s *sqs.State) []byte {
	dst = append(dst, stateVersion)
	dst = binary.AppendUvarint(dst, uint64(max(s.ReceiveCount, 0)))
	dst = appendTime(dst, s.FirstReceiveAt)
	return appendTime(dst, s.VisibleAt)
}

// decodeState decodes the state of message id.
func decodeState(id uuid.UUID, v []byte) (sqs.State, error) {
	r := newRecordReader(v)
	if ver := r.byte(); r.ok && ver != stateVersion {
		return sqs.State{}, fmt.Errorf("%w: state %s: version %d", errCorruptSQS, id, ver)
	}
	s := sqs.State{ID: id, ReceiveCount: int(min(r.uvarint(), math.MaxInt32))}
	s.FirstReceiveAt = r.time()
	s.VisibleAt = r.time()
	if !r.ok || len(r.b) != 0 {
		return sqs.State{}, fmt.Errorf("%w: state %s", errCorruptSQS, id)
	}
	return s, nil
}
