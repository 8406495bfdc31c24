package policy

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		fold       bool
		want       bool
	}{
		{"", "", false, true},
		{"", "a", false, false},
		{"*", "", false, true},
		{"*", "anything:at/all", false, true},
		{"**", "x", false, true},
		{"?", "", false, false},
		{"?", "a", false, true},
		{"?", "é", false, true},
		{"??", "é", false, false},
		{"a?c", "abc", false, true},
		{"a?c", "ac", false, false},
		{"a*c", "ac", false, true},
		{"a*c", "abbbc", false, true},
		{"a*c", "abbbcd", false, false},
		{"a*c*", "abbbcd", false, true},
		{"*c", "cccc", false, true},
		{"*ab*ab", "xabyabab", false, true},
		{"*ab*ab", "xabyaba", false, false},
		{"a*b?d", "aXbbcd", false, true},
		{"sqs:*", "sqs:SendMessage", false, true},
		{"sqs:*", "sns:Publish", false, false},
		{"SQS:Send*", "sqs:sendmessage", false, false},
		{"SQS:Send*", "sqs:sendmessage", true, true},
		{"sqs:?endMessage", "SQS:SENDMESSAGE", true, true},
		{"É*", "éa", true, true},
		{"\u212a", "k", true, true}, // Kelvin sign folds to k
		{"x", "X", false, false},
		{"\xff", "\xff", false, true},
		{"\xff", "\xfe", true, false},
		{"?", "\xff", false, true},
		{"*?", "\xe2\x82", false, true},
		{"a\ufffd", "a\xff", false, false},
	}
	for _, tt := range tests {
		if got := match(tt.pattern, tt.s, tt.fold); got != tt.want {
			t.Errorf("match(%q, %q, %v) = %v, want %v", tt.pattern, tt.s, tt.fold, got, tt.want)
		}
		if want, ok := refMatch(tt.pattern, tt.s, tt.fold); ok && want != tt.want {
			t.Errorf("the reference disagrees on %q, %q, %v", tt.pattern, tt.s, tt.fold)
		}
	}
}

func TestMatchARN(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"arn:aws:sns:us-east-1:1:t", "arn:aws:sns:us-east-1:1:t", true},
		{"arn:aws:sns:*:1:t", "arn:aws:sns:eu-west-1:1:t", true},
		{"arn:aws:sns:*:1:t", "arn:aws:sns::1:t", true},
		{"arn:aws:sns:*:1:t", "arn:aws:sns:a:b:1:t", false},
		{"arn:*:*:*:*:*", "arn:aws:sqs:r:1:q:with:colons", true},
		{"arn:aws:sqs:r:1:q:*", "arn:aws:sqs:r:1:q:x", true},
		{"arn:aws:sqs:r:1:q:*", "arn:aws:sqs:r:1:q", false},
		{"arn:aws:s3:::bucket", "arn:aws:s3:::bucket", true},
		{"arn:aws:s3:*:*:bucket", "arn:aws:s3:::bucket", true},
		{"arn:aws:s3:::bucket", "arn:aws:s3:::Bucket", false},
		{"arn:aws:sns:*", "arn:aws:sns:us-east-1:1:t", false},
		{"*", "arn:aws:sns:us-east-1:1:t", false},
		{"arn:aws:sns:r:1:t", "arn:aws:sns", false},
		{"arn:aws:sn?:r:1:t", "arn:aws:sns:r:1:t", true},
	}
	for _, tt := range tests {
		if got := matchARN(tt.pattern, tt.s); got != tt.want {
			t.Errorf("matchARN(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
		if want, ok := refMatchARN(tt.pattern, tt.s); ok && want != tt.want {
			t.Errorf("the reference disagrees on %q, %q", tt.pattern, tt.s)
		}
	}
}

// TestMatchIsNotExponential runs patterns that make naive backtracking
// matchers take exponential time; these finish at once.
func TestMatchIsNotExponential(t *testing.T) {
	s := strings.Repeat("a", 20000)
	tests := []struct {
		pattern string
		want    bool
	}{
		{strings.Repeat("a*", 40) + "b", false},
		{strings.Repeat("*a", 40) + "*", true},
		{strings.Repeat("*?", 40) + "b", false},
	}
	for _, tt := range tests {
		if got := match(tt.pattern, s, true); got != tt.want {
			t.Errorf("match(%q...) = %v, want %v", tt.pattern[:10], got, tt.want)
		}
	}
	arn := "arn:aws:sqs:r:1:" + s
	if matchARN("arn:*:*:*:*:"+strings.Repeat("*a", 40)+"b", arn) {
		t.Error("matchARN matched")
	}
}

// refMatch is a reference wildcard matcher built on package regexp. ok is
// false for patterns it cannot stand for: invalid UTF-8 (regexp refuses
// it) and U+FFFD (regexp reads every invalid byte of s as U+FFFD, match
// only the byte itself).
func refMatch(pattern, s string, fold bool) (matched, ok bool) {
	if !utf8.ValidString(pattern) || strings.ContainsRune(pattern, utf8.RuneError) {
		return false, false
	}
	var b strings.Builder
	b.WriteString("(?s")
	if fold {
		b.WriteString("i")
	}
	b.WriteString(")^")
	lit := 0
	for i := 0; i < len(pattern); i++ {
		if c := pattern[i]; c == '*' || c == '?' {
			b.WriteString(regexp.QuoteMeta(pattern[lit:i]))
			if c == '*' {
				b.WriteString(".*")
			} else {
				b.WriteString(".")
			}
			lit = i + 1
		}
	}
	b.WriteString(regexp.QuoteMeta(pattern[lit:]))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return false, false
	}
	return re.MatchString(s), true
}

// refMatchARN is refMatch applied to the six parts of two ARNs.
func refMatchARN(pattern, s string) (matched, ok bool) {
	pp, sp := strings.SplitN(pattern, ":", 6), strings.SplitN(s, ":", 6)
	if len(pp) != 6 || len(sp) != 6 {
		return false, true
	}
	matched = true
	for i := range pp {
		m, ok := refMatch(pp[i], sp[i], false)
		if !ok {
			return false, false
		}
		matched = matched && m
	}
	return matched, true
}
