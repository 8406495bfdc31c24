package sqs

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"io"
	"slices"
)

// Transport types in the MD5OfMessageAttributes encoding.
const (
	transportString byte = 1 // String and Number types
	transportBinary byte = 2 // Binary types
)

// MD5OfBody returns MD5OfMessageBody: the hex MD5 of the body's UTF-8 bytes.
func MD5OfBody(body string) string {
	h := md5.New()
	io.WriteString(h, body) // no copy of the body, unlike []byte(body)
	var sum [md5.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// MD5OfMessageAttributes returns MD5OfMessageAttributes as SQS computes it,
// or "" when there are no attributes. Attributes are taken in name order;
// each contributes its name, its data type, one transport byte (1 for
// String and Number types, 2 for Binary) and its value, every string or
// byte field preceded by its length as a 4-byte big-endian integer. The same
// encoding gives MD5OfMessageSystemAttributes.
func MD5OfMessageAttributes(attrs map[string]MessageAttributeValue) string {
	if len(attrs) == 0 {
		return ""
	}
	h := md5.New()
	var n [4]byte
	field := func(b []byte) {
		binary.BigEndian.PutUint32(n[:], uint32(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, name := range sortedNames(attrs) {
		a := attrs[name]
		field([]byte(name))
		field([]byte(a.DataType))
		if BaseDataType(a.DataType) == DataTypeBinary {
			h.Write([]byte{transportBinary})
			field(a.BinaryValue)
		} else {
			h.Write([]byte{transportString})
			field([]byte(a.StringValue))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
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
