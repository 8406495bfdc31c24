package herald

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"short", "QueueUrl", "QueueUrl"},
		{"exactly the limit", a(200), a(200)},
		{"one byte over", a(201), a(200) + "…(201 bytes)"},
		{"large", a(1 << 20), a(200) + "…(1048576 bytes)"},
		// "é" is 2 bytes at 199..200: the cut falls inside it and backs off.
		{"two-byte rune across the limit", a(199) + "é" + a(10), a(199) + "…(211 bytes)"},
		{"two-byte rune ending at the limit", a(198) + "é" + a(10), a(198) + "é…(210 bytes)"},
		// "😀" is 4 bytes at 198..201.
		{"four-byte rune across the limit", a(198) + "😀" + a(10), a(198) + "…(212 bytes)"},
		{"all multi-byte", strings.Repeat("€", 100), strings.Repeat("€", 66) + "…(300 bytes)"},
		// Not UTF-8: no boundary to find, cut at the limit.
		{"continuation bytes", strings.Repeat("\x80", 300), strings.Repeat("\x80", 200) + "…(300 bytes)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Clip(tc.in)
			if got != tc.want {
				t.Fatalf("Clip = %q (%d bytes), want %q (%d bytes)", abbrev(got), len(got), abbrev(tc.want), len(tc.want))
			}
			if utf8.ValidString(tc.in) && !utf8.ValidString(got) {
				t.Fatalf("Clip of valid UTF-8 is not valid UTF-8: %q", got)
			}
		})
	}
}

func TestClipMessage(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"short", "The specified queue does not exist.", "The specified queue does not exist."},
		{"longer than Clip's bound", a(500), a(500)},
		{"exactly the limit", a(1024), a(1024)},
		{"one byte over", a(1025), a(1024) + "…(1025 bytes)"},
		{"large", "Value " + a(5<<20), "Value " + a(1018) + "…(5242886 bytes)"},
		{"three-byte rune across the limit", a(1023) + "€", a(1023) + "…(1026 bytes)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ClipMessage(tc.in)
			if got != tc.want {
				t.Fatalf("ClipMessage = %q (%d bytes), want %q (%d bytes)", abbrev(got), len(got), abbrev(tc.want), len(tc.want))
			}
		})
	}
}

// TestClipBounds checks the bound for every length around the limit and
// every position of multi-byte runes: the kept prefix is a prefix of the
// input of at most the limit, ends on a rune boundary, and is at most
// three bytes short of it.
func TestClipBounds(t *testing.T) {
	for _, r := range []string{"a", "é", "€", "😀"} {
		for pad := 0; pad < 4; pad++ {
			for n := 190; n < 230; n++ {
				in := strings.Repeat("a", pad) + strings.Repeat(r, n/len(r))
				got := Clip(in)
				if len(in) <= ClipBytes {
					if got != in {
						t.Fatalf("Clip changed a %d-byte string", len(in))
					}
					continue
				}
				kept, suffix, ok := strings.Cut(got, "…(")
				if !ok || !strings.HasSuffix(suffix, " bytes)") {
					t.Fatalf("Clip(%d bytes of %q) = %q: no length suffix", len(in), r, got)
				}
				if !strings.HasPrefix(in, kept) || len(kept) > ClipBytes || len(kept) < ClipBytes-3 || !utf8.ValidString(kept) {
					t.Fatalf("Clip(%d bytes of %q) kept %d bytes %q", len(in), r, len(kept), kept)
				}
			}
		}
	}
}

func abbrev(s string) string {
	if len(s) > 80 {
		return s[:40] + "..." + s[len(s)-40:]
	}
	return s
}
