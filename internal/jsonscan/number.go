package jsonscan

import (
	"math"
	"strconv"
)

// Int reads a number written as an integer that fits in an int64. A
// fraction or exponent is an error even when the value is whole ("1.0",
// "1e2"): AWS SDKs write integers as integers, and accepting other
// spellings would only widen what a request can mean.
func (r *Reader) Int() (int64, error) {
	if err := r.begin(Number); err != nil {
		return 0, err
	}
	start := r.pos
	text, integer, err := r.scanNumber()
	if err != nil {
		return 0, err
	}
	if !integer {
		return 0, r.fail(start, "number is not an integer")
	}
	negative := text[0] == '-'
	if negative {
		text = text[1:]
	}
	limit := uint64(math.MaxInt64)
	if negative {
		limit++
	}
	var n uint64
	for _, c := range text {
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, r.fail(start, "integer out of range")
		}
		n = n*10 + d
	}
	if negative {
		return int64(-n), nil // -(1<<63) wraps to itself, as wanted
	}
	return int64(n), nil
}

// Float reads a number as the nearest float64. A number beyond float64's
// range is an error, as it is for encoding/json.
func (r *Reader) Float() (float64, error) {
	if err := r.begin(Number); err != nil {
		return 0, err
	}
	start := r.pos
	text, _, err := r.scanNumber()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil { // the syntax is checked, so only the range can be wrong
		return 0, r.fail(start, "number out of range")
	}
	return f, nil
}

// Number reads a number and returns its text, which aliases the input.
func (r *Reader) Number() ([]byte, error) {
	if err := r.begin(Number); err != nil {
		return nil, err
	}
	text, _, err := r.scanNumber()
	return text, err
}

// scanNumber consumes the number at r.pos, checking it against JSON's
// grammar, and reports whether it has neither fraction nor exponent.
func (r *Reader) scanNumber() (text []byte, integer bool, err error) {
	data, start := r.data, r.pos
	i := start
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && isDigit(data[i]):
		i = digits(data, i)
	default:
		return nil, false, r.fail(i, "invalid number: expected digit")
	}
	integer = true
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return nil, false, r.fail(i, "invalid number: expected digit after decimal point")
		}
		i = digits(data, i)
		integer = false
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return nil, false, r.fail(i, "invalid number: expected digit in exponent")
		}
		i = digits(data, i)
		integer = false
	}
	r.pos = i
	return data[start:i], integer, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digits returns the offset after the run of digits starting at i.
func digits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}
