package sqs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// firstInvalidSlow is the plain definition firstInvalid's ASCII fast path
// must agree with.
func firstInvalidSlow(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return i
			}
		}
		if !AllowedRune(r) {
			return i
		}
	}
	return -1
}

func FuzzFirstInvalidAgreesWithDefinition(f *testing.F) {
	for _, seed := range []string{"", "hello", "tab\there\r\n", "bad \x01", "é ok", "\xff", "a\u0000b", "\U0010FFFF", "\uFFFE", "\uFFFD", "ascii then \x7f then é then \x02"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := firstInvalid(s), firstInvalidSlow(s); got != want {
			t.Fatalf("firstInvalid(%q) = %d, want %d", s, got, want)
		}
	})
}

func BenchmarkFirstInvalidASCII(b *testing.B) {
	body := strings.Repeat(`{"order":12345,"item":"widget","note":"an ASCII body"} `, 20) // about 1 KiB
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if firstInvalid(body) != -1 {
			b.Fatal("valid body refused")
		}
	}
}
