package sns

import "strings"

// MaxPhoneDigits is the most digits an E.164 number has, country code
// included.
const MaxPhoneDigits = 15

// ValidPhoneNumber reports whether s is a phone number in E.164 format as
// SNS takes it: "+", a country code that does not start with 0, and at
// most 15 digits in all (at least 2), nothing else.
func ValidPhoneNumber(s string) bool {
	digits, ok := strings.CutPrefix(s, "+")
	if !ok || len(digits) < 2 || len(digits) > MaxPhoneDigits || digits[0] == '0' {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// NormalizePhoneNumber reads the endpoint of an sms subscription: an E.164
// number, possibly written with spaces, hyphens, dots or parentheses
// between its digits ("+1 (555) 555-0100"), which it drops. ok is false
// when what is left is not valid (ValidPhoneNumber).
func NormalizePhoneNumber(s string) (number string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '-', '.', '(', ')':
		default:
			b.WriteByte(c)
		}
	}
	number = b.String()
	return number, ValidPhoneNumber(number)
}
