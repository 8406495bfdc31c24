package filter

import (
	"math"
	"strconv"

	"github.com/heraldmq/herald/internal/decimal"
)

type kind uint8

const (
	kString kind = iota + 1
	kNumber
	kBool
	kNull
)

// value is one scalar of a message: an attribute value, an element of a
// String.Array, or a leaf of a JSON body.
type value struct {
	kind kind
	s    string
	n    float64 // canonical, for kNumber
	b    bool
}

// canonical rounds a number to the five decimal places AWS compares, kept
// as a count of 1e-5 units. Within ±1e9 the result is an exact integer in a
// float64; beyond it comparisons stay ordered (possibly ±Inf).
func canonical(f float64) float64 {
	return math.Round(f * numericPrecision)
}

// parseNumber reads a decimal number (JSON syntax, leading '+' allowed),
// refusing the forms strconv accepts but AWS does not (hex, inf, nan, _).
func parseNumber(s string) (float64, bool) {
	if !decimal.Valid(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
