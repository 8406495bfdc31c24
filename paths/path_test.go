package paths

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func words(n int, w string) string {
	return strings.TrimSuffix(strings.Repeat(w+".", n), ".")
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		ok     bool
		reason string // substring expected in the error
	}{
		{"one word", "a", true, ""},
		{"three words", "feeds.breaking-news.12345", true, ""},
		{"ISO timestamp", "sensors.berlin.2014-02-01T09:39Z", true, ""},
		{"all allowed bytes", "AZaz09_:-", true, ""},
		{"32 words", words(32, "a"), true, ""},
		{"512 bytes", strings.Repeat("a", 128) + "." + strings.Repeat("b", 128) + "." + strings.Repeat("c", 128) + "." + strings.Repeat("d", 125), true, ""},
		{"128-byte word", strings.Repeat("x", 128), true, ""},
		{"empty", "", false, "empty"},
		{"leading dot", ".a", false, "starts with a dot"},
		{"trailing dot", "a.", false, "ends with a dot"},
		{"double dot", "a..b", false, "empty word 2"},
		{"lone dot", ".", false, "dot"},
		{"33 words", words(33, "a"), false, "33 words"},
		{"513 bytes", strings.Repeat("abcdefg.", 64) + "a", false, "513 bytes"},
		{"129-byte word", "a." + strings.Repeat("x", 129), false, "word 2 is 129 bytes"},
		{"space", "a.b c", false, "' '"},
		{"slash", "a/b", false, "'/'"},
		{"e acute", "caf\u00e9", false, "'é'"},
		{"invalid UTF-8", "a\xff", false, "0xff"},
		{"NUL", "a\x00", false, "'\\x00'"},
		{"star in path", "a.*", false, "only patterns"},
		{"hash in path", "#.a", false, "only patterns"},
		{"mixed wildcard", "a*", false, "only patterns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkValidation(t, "Validate", Validate(tt.in), tt.in, tt.ok, tt.reason)
		})
	}
}

func TestValidatePattern(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		ok     bool
		reason string
	}{
		{"path", "feeds.breaking-news.12345", true, ""},
		{"star", "*", true, ""},
		{"hash", "#", true, ""},
		{"hash hash", "#.#", true, ""},
		{"mixed", "a.*.#.b.*", true, ""},
		{"timestamp and hash", "sensors.#.2014-02-01T09:39Z", true, ""},
		{"32 wildcards", words(32, "#"), true, ""},
		{"33 wildcards", words(33, "*"), false, "33 words"},
		{"empty", "", false, "empty"},
		{"leading dot", ".#", false, "starts with a dot"},
		{"double dot", "*..#", false, "empty word 2"},
		{"513 bytes", strings.Repeat("abcdefg.", 64) + "#", false, "513 bytes"},
		{"129-byte word", "#." + strings.Repeat("x", 129), false, "129 bytes"},
		{"star suffix", "a*", false, "mixes the wildcard '*'"},
		{"hash prefix", "x.#b", false, "word 2 \"#b\" mixes the wildcard '#'"},
		{"double star", "**", false, "mixes"},
		{"space", "a. ", false, "' '"},
		{"e acute", "#.\u00e9", false, "'é'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkValidation(t, "ValidatePattern", ValidatePattern(tt.in), tt.in, tt.ok, tt.reason)
		})
	}
}

func checkValidation(t *testing.T, fn string, err error, in string, ok bool, reason string) {
	t.Helper()
	if ok {
		if err != nil {
			t.Fatalf("%s(%q) = %v, want nil", fn, in, err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s(%q) = %v (%T), want *Error", fn, in, err, err)
	}
	if e.Input != in {
		t.Errorf("Input = %q, want %q", e.Input, in)
	}
	if !strings.Contains(e.Reason, reason) {
		t.Errorf("Reason = %q, want it to mention %q", e.Reason, reason)
	}
	if !strings.HasPrefix(e.Error(), "paths: ") || !strings.Contains(e.Error(), e.Reason) {
		t.Errorf("Error() = %q", e.Error())
	}
}

func TestErrorTruncatesLongInput(t *testing.T) {
	in := strings.Repeat("a", 10000)
	msg := Validate(in).Error()
	if len(msg) > 300 {
		t.Errorf("Error() is %d bytes long: %.100s...", len(msg), msg)
	}
}

func TestSplitCollectionHashKey(t *testing.T) {
	tests := []struct {
		path       string
		words      []string
		collection string
		hashKey    string
	}{
		{"a", []string{"a"}, "", "a"},
		{"a.b", []string{"a", "b"}, "a", "b"},
		{"feeds.breaking-news.12345", []string{"feeds", "breaking-news", "12345"}, "feeds.breaking-news", "12345"},
		{"s.2014-02-01T09:39Z", []string{"s", "2014-02-01T09:39Z"}, "s", "2014-02-01T09:39Z"},
		{"", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := Split(tt.path); !slices.Equal(got, tt.words) {
				t.Errorf("Split = %q, want %q", got, tt.words)
			}
			if got := Collection(tt.path); got != tt.collection {
				t.Errorf("Collection = %q, want %q", got, tt.collection)
			}
			if got := HashKey(tt.path); got != tt.hashKey {
				t.Errorf("HashKey = %q, want %q", got, tt.hashKey)
			}
		})
	}
}

func TestIsPattern(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"a.b.c", false},
		{"*", true},
		{"#", true},
		{"a.#", true},
		{"*.a", true},
		{"a.*.b", true},
		{"a*", false}, // not a wildcard word (and not valid either)
		{"a.b#", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := IsPattern(tt.in); got != tt.want {
				t.Errorf("IsPattern(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
