package jsonscan

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	long := strings.Repeat("abcdefgh", 20)
	tests := []struct {
		name  string
		input string
		want  string
		err   wantErr
	}{
		{"empty", `""`, "", wantErr{}},
		{"plain", ` "hello" `, "hello", wantErr{}},
		{"long plain crosses word scans", `"` + long + `"`, long, wantErr{}},
		{"simple escapes", `"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t", wantErr{}},
		{"escape among long text", `"` + long + `\n` + long + `"`, long + "\n" + long, wantErr{}},
		{"unicode escape", `"\u00e9\u4E2D"`, "é中", wantErr{}},
		{"surrogate pair", `"\ud83d\ude00"`, "😀", wantErr{}},
		{"lone high surrogate becomes U+FFFD", `"\ud83dx"`, "\uFFFDx", wantErr{}},
		{"lone low surrogate becomes U+FFFD", `"\ude00"`, "\uFFFD", wantErr{}},
		{"high surrogate then non-surrogate escape", `"\ud83d\u0041"`, "\uFFFDA", wantErr{}},
		{"two high surrogates", `"\ud83d\ud83d\ude00"`, "\uFFFD😀", wantErr{}},
		{"raw UTF-8", `"héllo 中 😀"`, "héllo 中 😀", wantErr{}},
		{"raw U+FFFD is valid", "\"\uFFFD\"", "\uFFFD", wantErr{}},
		{"DEL is allowed", "\"\x7f\"", "\x7f", wantErr{}},

		{"not a string", `12`, "", wantErr{0, "expected string, found number"}},
		{"end of text", `  `, "", wantErr{2, "expected string, found end of text"}},
		{"unterminated", `"abc`, "", wantErr{0, "unterminated string"}},
		{"unterminated after escape", `"abc\`, "", wantErr{4, "unterminated string"}},
		{"control character", "\"ab\ncd\"", "", wantErr{3, "control character"}},
		{"control character after long run", "\"" + long + "\x01\"", "", wantErr{1 + len(long), "control character"}},
		{"invalid escape", `"\x"`, "", wantErr{1, "invalid escape"}},
		{"short unicode escape", `"\u12"`, "", wantErr{1, `invalid \u escape`}},
		{"non-hex unicode escape", `"\u12G4"`, "", wantErr{1, `invalid \u escape`}},
		{"invalid second escape after surrogate", `"\ud83d\uZZZZ"`, "", wantErr{7, `invalid \u escape`}},
		{"invalid UTF-8 byte", "\"a\xffb\"", "", wantErr{2, "invalid UTF-8"}},
		{"truncated UTF-8", "\"a\xe4\xb8\"", "", wantErr{2, "invalid UTF-8"}},
		{"overlong UTF-8", "\"\xc0\xaf\"", "", wantErr{1, "invalid UTF-8"}},
		{"UTF-8 encoded surrogate", "\"\xed\xa0\x80\"", "", wantErr{1, "invalid UTF-8"}},
		{"invalid UTF-8 after long run", "\"" + long + "\xff\"", "", wantErr{1 + len(long), "invalid UTF-8"}},
		{"trailing data", `"a" "b"`, "", wantErr{4, "unexpected string after top-level value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			err := readAll(tt.input, func(r *Reader) (err error) {
				got, err = r.String()
				return err
			})
			checkErr(t, err, tt.err)
			if tt.err.none() && got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStringBytesAliasesTextWithoutEscapes(t *testing.T) {
	data := []byte(`["plain","esc\naped"]`)
	r := NewReader(data)
	var got [][]byte
	err := r.Array(func(int) error {
		b, err := r.StringBytes()
		got = append(got, b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(got[0]) != "plain" || &got[0][0] != &data[2] {
		t.Errorf("plain string = %q, want an alias of the text", got[0])
	}
	if string(got[1]) != "esc\naped" {
		t.Errorf("escaped string = %q, want %q", got[1], "esc\naped")
	}
}

func TestStringReusesScratchSafely(t *testing.T) {
	// Strings with escapes are decoded in a reused buffer; each returned
	// string must still be independent of the ones decoded after it.
	r := NewReader([]byte(`["a\nb","c\td","long\\` + strings.Repeat("x", 100) + `"]`))
	var got []string
	err := r.Array(func(int) error {
		s, err := r.String()
		got = append(got, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a\nb", "c\td", `long\` + strings.Repeat("x", 100)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("string %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestPlainWordFindsEverySpecialByteInEveryPosition(t *testing.T) {
	specials := map[byte]bool{'"': true, '\\': true}
	for c := 0; c < 0x20; c++ {
		specials[byte(c)] = true
	}
	for c := 0x80; c < 0x100; c++ {
		specials[byte(c)] = true
	}
	for c := 0; c < 0x100; c++ {
		for pos := 0; pos < 8; pos++ {
			for _, fill := range []byte{' ', '!', '#', '[', ']', 'a', '~', 0x7f} {
				var word [8]byte
				for i := range word {
					word[i] = fill
				}
				word[pos] = byte(c)
				w := uint64(0)
				for i := 7; i >= 0; i-- {
					w = w<<8 | uint64(word[i])
				}
				if plain := plainWord(w); plain == specials[byte(c)] {
					t.Fatalf("plainWord(%q) = %v, want %v", word, plain, !specials[byte(c)])
				}
			}
		}
	}
}
