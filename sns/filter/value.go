package filter

import (
	"math"
	"strconv"
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
	if !isDecimal(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}
