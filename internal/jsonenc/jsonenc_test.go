package jsonenc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// messageBody is a 1 KiB JSON document, as message bodies often are: dense
// in quotes, with non-ASCII text and an HTML character.
func messageBody() string {
	var b strings.Builder
	for b.Len() < 1024-40 {
		b.WriteString(`{"order":42,"item":"café","note":"a<b"} `)
	}
	return b.String()[:1024-40] + strings.Repeat("x", 40)
}

// checkAppendString holds AppendString to encoding/json without its HTML
// escapes: the same bytes, and text that reads back as s (or, for invalid
// UTF-8, as encoding/json reads its own rendering).
func checkAppendString(t testing.TB, s string) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(buf.String(), "\n")
	got := string(AppendString(nil, s))
	if got != want {
		t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
	}
	var back string
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("AppendString(%q) = %s: not JSON: %v", s, got, err)
	}
	if utf8.ValidString(s) && back != s {
		t.Fatalf("AppendString(%q) reads back as %q", s, back)
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{
		"",
		"plain ascii text longer than one word",
		`quotes " and \ backslashes`,
		"controls \x00\x01\b\f\n\r\t\x1f\x7f",
		"html <b>&amp;</b> stays as it is",
		"line separators \u2028 and \u2029 in a body",
		"non-ASCII: café, 日本語, emoji 🎉, U+FFFD \ufffd",
		"invalid UTF-8: \xff\xfe and a cut rune \xe6\x97",
		"\"",
		strings.Repeat("x", 7) + "\"" + strings.Repeat("y", 9),
		strings.Repeat("word", 20) + "\u2028",
		messageBody(),
	}
	for _, s := range cases {
		checkAppendString(t, s)
	}
}

func TestAppendStringAppends(t *testing.T) {
	if got := string(AppendString([]byte(`{"a":`), "b")); got != `{"a":"b"` {
		t.Fatalf("got %s", got)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("hello")
	f.Add("a\"b\\c\x00\u2028\u2029\xff日本")
	f.Add(messageBody())
	f.Fuzz(func(t *testing.T, s string) {
		checkAppendString(t, s)
	})
}

// BenchmarkAppendString compares the string encoder with encoding/json on
// plain text and on an escape-dense JSON body.
func BenchmarkAppendString(b *testing.B) {
	texts := map[string]string{
		"plain":     strings.Repeat("abcdefghij", 1000),
		"json-body": strings.Repeat(messageBody(), 10),
	}
	for name, s := range texts {
		b.Run(name+"/append", func(b *testing.B) {
			buf := make([]byte, 0, 2*len(s))
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				buf = AppendString(buf[:0], s)
			}
		})
		b.Run(name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				json.Marshal(s)
			}
		})
	}
}
