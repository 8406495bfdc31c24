package rollup

import (
	"encoding/binary"
	"errors"
)

// AppendSums appends the encoding of a row's sums to b: one zigzag varint
// per metric, the engines' stored form of a row.
func AppendSums(b []byte, sums []int64) []byte {
	for _, x := range sums {
		b = binary.AppendVarint(b, x)
	}
	return b
}

// ErrBadSums is the error of a stored row whose sums are not varints.
var ErrBadSums = errors.New("rollup row: bad varint")

// DecodeSums reads n sums encoded by AppendSums; missing trailing ones are
// 0 (a row written before a metric was added). ok is false for bytes that
// are not varints.
func DecodeSums(b []byte, n int) (sums []int64, ok bool) {
	out := make([]int64, n)
	if !DecodeSumsInto(out, b) {
		return nil, false
	}
	return out, true
}

// DecodeSumsKeep is DecodeSums that also keeps the sums past the n-th,
// of metrics added to the rollup after the definition the caller holds:
// a writer that adds to a row must write them back as they were.
func DecodeSumsKeep(b []byte, n int) (sums []int64, ok bool) {
	out := make([]int64, 0, n)
	for len(b) > 0 {
		x, k := binary.Varint(b)
		if k <= 0 {
			return nil, false
		}
		out, b = append(out, x), b[k:]
	}
	for len(out) < n {
		out = append(out, 0)
	}
	return out, true
}

// DecodeSumsInto is DecodeSums into dst (len(dst) sums), without
// allocating.
func DecodeSumsInto(dst []int64, b []byte) bool {
	for i := range dst {
		if len(b) == 0 {
			clear(dst[i:])
			break
		}
		x, k := binary.Varint(b)
		if k <= 0 {
			return false
		}
		dst[i], b = x, b[k:]
	}
	return true
}
