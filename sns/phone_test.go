package sns

import (
	"strings"
	"testing"
)

func TestValidPhoneNumber(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"+15555550100", true},
		{"+447700900123", true},
		{"+12", true},
		{"+123456789012345", true},   // 15 digits
		{"+1234567890123456", false}, // 16
		{"15555550100", false},       // no +
		{"+", false},
		{"+1", false},
		{"", false},
		{"+05555550100", false}, // country codes never start with 0
		{"+1555555O100", false}, // a letter O
		{"+1 555 555 0100", false},
		{"++15555550100", false},
		{"+1555\x000100", false},
		{"+１５５５", false}, // full-width digits
	}
	for _, tc := range tests {
		if got := ValidPhoneNumber(tc.in); got != tc.want {
			t.Errorf("ValidPhoneNumber(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestNormalizePhoneNumber(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"+15555550100", "+15555550100", true},
		{"+1 (555) 555-0100", "+15555550100", true},
		{"+44.7700.900123", "+447700900123", true},
		{"1-555-555-0100", "15555550100", false},
		{"+1 555 x 0100", "+1555x0100", false},
		{"", "", false},
	}
	for _, tc := range tests {
		got, ok := NormalizePhoneNumber(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("NormalizePhoneNumber(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzPhoneNumber checks the phone number readers against their
// definitions on any input: a valid number is "+" and 2 to 15 ASCII
// digits, the first not 0; normalizing never accepts what ValidPhoneNumber
// refuses, is idempotent, and keeps valid numbers as they are.
func FuzzPhoneNumber(f *testing.F) {
	for _, s := range []string{"+15555550100", "+1 (555) 555-0100", "+0", "+", "", "++1", "+1234567890123456", "+1\u00a0555"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		valid := ValidPhoneNumber(s)
		digits, plus := strings.CutPrefix(s, "+")
		want := plus && len(digits) >= 2 && len(digits) <= 15 && digits[0] != '0' &&
			strings.Trim(digits, "0123456789") == ""
		if valid != want {
			t.Fatalf("ValidPhoneNumber(%q) = %v, want %v", s, valid, want)
		}
		n, ok := NormalizePhoneNumber(s)
		if ok != ValidPhoneNumber(n) {
			t.Fatalf("NormalizePhoneNumber(%q) = %q, %v, but ValidPhoneNumber(%q) = %v", s, n, ok, n, !ok)
		}
		if again, _ := NormalizePhoneNumber(n); again != n {
			t.Fatalf("NormalizePhoneNumber is not idempotent: %q -> %q -> %q", s, n, again)
		}
		if valid && n != s {
			t.Fatalf("NormalizePhoneNumber changed the valid number %q into %q", s, n)
		}
	})
}
