package sqs

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"unsafe"
)

// Transport types in the MD5OfMessageAttributes encoding.
const (
	transportString byte = 1 // String and Number types
	transportBinary byte = 2 // Binary types
)

// MD5OfBody returns MD5OfMessageBody: the hex MD5 of the body's UTF-8 bytes.
// The body is hashed in place, not copied.
func MD5OfBody(body string) string {
	sum := md5.Sum(readOnlyBytes(body))
	return hex.EncodeToString(sum[:])
}

// BodyDigest returns m's MD5OfBody: the digest taken at send when the
// engine kept it, otherwise computed from the body.
func (m *Message) BodyDigest() string {
	if len(m.BodyMD5) == 2*md5.Size {
		return m.BodyMD5
	}
	return MD5OfBody(m.Body)
}

// readOnlyBytes returns the bytes of s without copying them. The caller
// must only read them, as md5.Sum does: Go strings are immutable.
func readOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// MD5OfMessageAttributes returns MD5OfMessageAttributes as SQS computes it,
// or "" when there are no attributes. Attributes are taken in name order;
// each contributes its name, its data type, one transport byte (1 for
// String and Number types, 2 for Binary) and its value, every string or
// byte field preceded by its length as a 4-byte big-endian integer. The same
// encoding gives MD5OfMessageSystemAttributes. The encoding is built in a
// stack buffer (the heap only for large attributes) and hashed at once.
func MD5OfMessageAttributes(attrs map[string]MessageAttributeValue) string {
	if len(attrs) == 0 {
		return ""
	}
	var stack [512]byte
	enc := stack[:0]
	for _, name := range sortedNames(attrs) {
		a := attrs[name]
		enc = appendField(enc, name)
		enc = appendField(enc, a.DataType)
		if BaseDataType(a.DataType) == DataTypeBinary {
			enc = appendField(append(enc, transportBinary), a.BinaryValue)
		} else {
			enc = appendField(append(enc, transportString), a.StringValue)
		}
	}
	sum := md5.Sum(enc)
	return hex.EncodeToString(sum[:])
}

// appendField appends b preceded by its length as a 4-byte big-endian
// integer.
func appendField[T string | []byte](dst []byte, b T) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// sortedNames returns the keys of attrs in byte order.
func sortedNames(attrs map[string]MessageAttributeValue) []string {
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
