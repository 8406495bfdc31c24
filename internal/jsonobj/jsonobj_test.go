package jsonobj

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMembers(t *testing.T) {
	cases := []struct {
		name, in string
		want     string // "name=value;" per member, or "error: <substring>"
	}{
		{"empty object", `{}`, ``},
		{"members in order", `{"b":1,"a":[2,3]}`, `b=1;a=[2,3];`},
		{"whitespace around", " \n{\"a\" : {\"x\":1} }\t\n", `a={"x":1};`},
		{"names are exact", `{"Paths":1,"paths":2}`, `Paths=1;paths=2;`},
		{"duplicate name", `{"a":1,"a":2}`, `error: more than once`},
		{"trailing brace", `{"a":1}}`, `error: follows`},
		{"trailing bracket", `{"a":1} ]`, `error: follows`},
		{"trailing object", `{"a":1}{}`, `error: follows`},
		{"not an object", `[1]`, `error: object`},
		{"string", `"x"`, `error: object`},
		{"truncated", `{"a":`, `error:`},
		{"empty", ``, `error: ends early`},
		{"invalid utf-8 in a name", "{\"\xff\":1}", `error: UTF-8`},
		{"invalid utf-8 in a value", "{\"a\":\"\xa2\"}", `error: UTF-8`},
		{"bad value", `{"a":tru}`, `error:`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got strings.Builder
			err := Members([]byte(tc.in), func(name string, v json.RawMessage) error {
				got.WriteString(name + "=" + string(v) + ";")
				return nil
			})
			if wantErr, ok := strings.CutPrefix(tc.want, "error:"); ok {
				if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(wantErr)) {
					t.Fatalf("Members(%q) error = %v, want one containing %q", tc.in, err, wantErr)
				}
				return
			}
			if err != nil || got.String() != tc.want {
				t.Fatalf("Members(%q) = %q, %v; want %q", tc.in, got.String(), err, tc.want)
			}
		})
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":[1,"x"]}}`, `{"a":1}}`, "{\"\xff\":1}",
		`{"a":"\u00e9\n","b":[{"c":"}"}],"d":-1.5e3,"e":null,"f":true}`, `{"a":"x\q"}`, `{"a":"\u12"}`, ` { "a" : [ ] , "b" : { } } `, `{"a":1,}`, `{,}`, `{"a"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := map[string]json.RawMessage{}
		err := Members(data, func(name string, v json.RawMessage) error {
			if _, dup := got[name]; dup {
				t.Fatalf("name %q reported twice", name)
			}
			got[name] = v
			if !json.Valid(v) {
				t.Fatalf("value %q of %q is not valid JSON", v, name)
			}
			return nil
		})
		var obj map[string]json.RawMessage
		jerr := json.Unmarshal(data, &obj)
		if err == nil && jerr != nil {
			t.Fatalf("Members accepted %q, which encoding/json refuses: %v", data, jerr)
		}
		if err != nil && jerr == nil && utf8.Valid(data) && !strings.Contains(err.Error(), "more than once") {
			t.Fatalf("Members refused %q (%v), which encoding/json accepts", data, err)
		}
		if err != nil || !utf8.Valid(data) {
			return
		}
		// Same members as encoding/json finds (it keeps the last of
		// repeated names, which Members refuses).
		if len(obj) != len(got) {
			t.Fatalf("%q: Members found %d members, encoding/json %d", data, len(got), len(obj))
		}
		for name, v := range got {
			if want, ok := obj[name]; !ok || string(want) != string(v) {
				t.Fatalf("%q: member %q = %s, encoding/json says %s", data, name, v, want)
			}
		}
	})
}

// TestSpecial8 checks the eight-byte test against every byte value in
// every position, beside plain bytes and beside each other.
func TestSpecial8(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	for pos := range 8 {
		for v := range 256 {
			for _, fill := range []byte{'A', 0x7f, 0xff, '!', '#', '[', ']'} {
				w := bytes.Repeat([]byte{fill}, 8)
				w[pos] = byte(v)
				want := special(byte(v)) || special(fill)
				if got := special8(binary.LittleEndian.Uint64(w)); got != want {
					t.Fatalf("special8(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

// BenchmarkMembersPutBody reads the shape of a cache put: metadata and a
// 1 KiB body in base64, the string checkString scans.
func BenchmarkMembersPutBody(b *testing.B) {
	doc := []byte(`{"metadata":{"paths":["devices.d1.temperature"]},"body":"` + strings.Repeat("QUFB", 1366/4) + `QQ=="}`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if err := Members(doc, func(string, json.RawMessage) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
