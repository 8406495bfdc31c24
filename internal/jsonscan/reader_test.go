package jsonscan

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestKind(t *testing.T) {
	tests := []struct {
		input string
		want  Kind
	}{
		{`{}`, Object}, {` [`, Array}, {`"`, String}, {`-1`, Number}, {`7`, Number},
		{`true`, Bool}, {`f`, Bool}, {"\t\r\n null", Null},
		{``, Invalid}, {`   `, Invalid}, {`+`, Invalid}, {`}`, Invalid}, {`x`, Invalid},
	}
	for _, tt := range tests {
		r := NewReader([]byte(tt.input))
		if got := r.Kind(); got != tt.want {
			t.Errorf("Kind(%q) = %v, want %v", tt.input, got, tt.want)
		}
		if r.Err() != nil {
			t.Errorf("Kind(%q) set error %v; peeking must not fail", tt.input, r.Err())
		}
	}
}

func TestBool(t *testing.T) {
	tests := []struct {
		input string
		want  bool
		err   wantErr
	}{
		{"true", true, wantErr{}},
		{" false ", false, wantErr{}},
		{"tru", false, wantErr{0, "invalid literal"}},
		{"trUe", false, wantErr{0, "invalid literal"}},
		{"falsey", false, wantErr{5, "unexpected character 'y'"}},
		{"null", false, wantErr{0, "expected bool, found null"}},
		{"1", false, wantErr{0, "expected bool, found number"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			var got bool
			err := readAll(tt.input, func(r *Reader) (err error) {
				got, err = r.Bool()
				return err
			})
			checkErr(t, err, tt.err)
			if got != tt.want {
				t.Fatalf("Bool() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNull(t *testing.T) {
	tests := []struct {
		input    string
		want     bool
		offset   int // after the call
		endError wantErr
	}{
		{" null ", true, 5, wantErr{}},
		{"nul", false, 0, wantErr{0, "unexpected null"}},
		{`"null"`, false, 0, wantErr{0, "unexpected string"}},
		{"", false, 0, wantErr{}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			r := NewReader([]byte(tt.input))
			if got := r.Null(); got != tt.want {
				t.Fatalf("Null() = %v, want %v", got, tt.want)
			}
			if r.Offset() != tt.offset {
				t.Fatalf("offset after Null() = %d, want %d", r.Offset(), tt.offset)
			}
			checkErr(t, r.End(), tt.endError)
		})
	}
}

func TestEnd(t *testing.T) {
	tests := []struct {
		input string
		err   wantErr
	}{
		{`1`, wantErr{}},
		{"1 \t\r\n", wantErr{}},
		{`1 2`, wantErr{2, "unexpected number after top-level value"}},
		{`1,`, wantErr{1, "unexpected character ','"}},
		{"1\x00", wantErr{1, "unexpected character '\\x00'"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			checkErr(t, readAll(tt.input, func(r *Reader) error { _, err := r.Int(); return err }), tt.err)
		})
	}
}

func TestObject(t *testing.T) {
	type member struct {
		Name  string
		Value any
	}
	tests := []struct {
		name  string
		input string
		want  []member
		err   wantErr
	}{
		{"empty", `{}`, nil, wantErr{}},
		{"empty with space", " { \n } ", nil, wantErr{}},
		{"members in order", `{"b":1,"a":"x","b":2}`, []member{{"b", int64(1)}, {"a", "x"}, {"b", int64(2)}}, wantErr{}},
		{"escaped name", `{"Q\u0075eueUrl" : "u"}`, []member{{"QueueUrl", "u"}}, wantErr{}},
		{"whitespace everywhere", " {\n\"a\"\t:\r1 , \"b\" : 2 } ", []member{{"a", int64(1)}, {"b", int64(2)}}, wantErr{}},

		{"not an object", `[]`, nil, wantErr{0, "expected object, found array"}},
		{"unterminated", `{"a":1`, nil, wantErr{6, "expected ',' or '}' after object member, found end of text"}},
		{"unterminated empty", `{`, nil, wantErr{1, "expected member name, found end of text"}},
		{"trailing comma", `{"a":1,}`, nil, wantErr{7, "expected member name, found character '}'"}},
		{"missing colon", `{"a" 1}`, nil, wantErr{5, "expected ':'"}},
		{"unquoted name", `{a:1}`, nil, wantErr{1, "expected member name"}},
		{"number name", `{1:1}`, nil, wantErr{1, "expected member name, found number"}},
		{"missing value", `{"a":}`, nil, wantErr{5, "expected value, found character '}'"}},
		{"missing comma", `{"a":1 "b":2}`, nil, wantErr{7, "expected ',' or '}'"}},
		{"invalid name", "{\"\xff\":1}", nil, wantErr{2, "invalid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []member
			err := readAll(tt.input, func(r *Reader) error {
				return r.Object(func(name string) error {
					var v any
					var err error
					switch r.Kind() {
					case Number:
						v, err = r.Int()
					case String:
						v, err = r.String()
					default:
						return nil // skipped by the Reader
					}
					got = append(got, member{name, v})
					return err
				})
			})
			checkErr(t, err, tt.err)
			if tt.err.none() && !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("members = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestObjectBytesNameAliasesText(t *testing.T) {
	data := []byte(`{"Name":1}`)
	r := NewReader(data)
	err := r.ObjectBytes(func(name []byte) error {
		if string(name) != "Name" || &name[0] != &data[2] {
			t.Errorf("name = %q, want an alias of the text", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestArray(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []int64
		err   wantErr
	}{
		{"empty", `[]`, nil, wantErr{}},
		{"empty with space", "[ \n ]", nil, wantErr{}},
		{"elements", `[1, 2 ,3]`, []int64{1, 2, 3}, wantErr{}},
		{"not an array", `{}`, nil, wantErr{0, "expected array, found object"}},
		{"unterminated", `[1`, nil, wantErr{2, "expected ',' or ']' after array element, found end of text"}},
		{"unterminated empty", `[`, nil, wantErr{1, "expected number, found end of text"}},
		{"trailing comma", `[1,]`, nil, wantErr{3, "expected number, found character ']'"}},
		{"leading comma", `[,1]`, nil, wantErr{1, "expected number, found character ','"}},
		{"missing comma", `[1 2]`, nil, wantErr{3, "expected ',' or ']'"}},
		{"wrong element", `[1,"2"]`, nil, wantErr{3, "expected number, found string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			err := readAll(tt.input, func(r *Reader) error {
				return r.Array(func(i int) error {
					if i != len(got) {
						t.Fatalf("index %d, want %d", i, len(got))
					}
					n, err := r.Int()
					got = append(got, n)
					return err
				})
			})
			checkErr(t, err, tt.err)
			if tt.err.none() && !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("elements = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnreadValuesAreSkippedAndValidated(t *testing.T) {
	tests := []struct {
		input string
		err   wantErr
	}{
		{`{"a":{"b":[1,"x",null,true,{}]},"c":2}`, wantErr{}},
		{`[[1,2],{"x":"y"},"z"]`, wantErr{}},
		{`{"a":{"b":[1,"x\q"]}}`, wantErr{15, "invalid escape"}},
		{`[[1,2],{"x":tru}]`, wantErr{12, "invalid literal"}},
		{`[{"x":nul}]`, wantErr{6, "invalid literal"}},
		{"[\"\xff\"]", wantErr{2, "invalid UTF-8"}},
		{`[1.]`, wantErr{3, "expected digit"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			err := readAll(tt.input, func(r *Reader) error {
				if r.Kind() == Object {
					return r.Object(func(string) error { return nil })
				}
				return r.Array(func(int) error { return nil })
			})
			checkErr(t, err, tt.err)
		})
	}
}

func TestSkip(t *testing.T) {
	tests := []struct {
		input string
		err   wantErr
	}{
		{`null`, wantErr{}}, {`true`, wantErr{}}, {`-1.5e3`, wantErr{}}, {`"a\u00e9"`, wantErr{}},
		{`{"a":[{"b":{}}],"c":[]}`, wantErr{}},
		{``, wantErr{0, "expected value, found end of text"}},
		{`]`, wantErr{0, "expected value, found character ']'"}},
		{`nill`, wantErr{0, "invalid literal"}},
		{`{"a" 1}`, wantErr{5, "expected ':'"}},
		{`[1] x`, wantErr{4, "unexpected character 'x'"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			checkErr(t, readAll(tt.input, (*Reader).Skip), tt.err)
		})
	}
}

func TestDepthLimit(t *testing.T) {
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name     string
		input    string
		maxDepth int
		err      wantErr
	}{
		{"default limit reached", nested(DefaultMaxDepth), 0, wantErr{}},
		{"default limit exceeded", nested(DefaultMaxDepth + 1), 0, wantErr{DefaultMaxDepth, "nesting too deep"}},
		{"objects count too", `{"a":{"b":{}}}`, 2, wantErr{10, "nesting too deep"}},
		{"custom limit", nested(3), 3, wantErr{}},
		{"deep hostile input", nested(1_000_000), 0, wantErr{DefaultMaxDepth, "nesting too deep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := readAll(tt.input, func(r *Reader) error {
				if tt.maxDepth != 0 {
					r.SetMaxDepth(tt.maxDepth)
				}
				return r.Skip()
			})
			checkErr(t, err, tt.err)
		})
	}
}

func TestCallbackErrorStopsTheReader(t *testing.T) {
	errStop := errors.New("stop")
	r := NewReader([]byte(`{"a":1,"b":2}`))
	var names []string
	err := r.Object(func(name string) error {
		names = append(names, name)
		return errStop
	})
	if err != errStop {
		t.Fatalf("Object() = %v, want the callback's error", err)
	}
	if !reflect.DeepEqual(names, []string{"a"}) {
		t.Fatalf("callback saw %v, want only the first member", names)
	}
	if r.End() != errStop || r.Err() != errStop {
		t.Fatalf("after a callback error End() = %v, Err() = %v; want the same error", r.End(), r.Err())
	}
}

func TestErrorsAreSticky(t *testing.T) {
	r := NewReader([]byte(`[1, x, 3]`))
	var calls int
	err := r.Array(func(int) error {
		calls++
		r.Int() // a careless callback that drops the error
		return nil
	})
	checkErr(t, err, wantErr{4, "expected number, found character 'x'"})
	if calls != 2 {
		t.Fatalf("callback ran %d times, want 2", calls)
	}
	if _, err2 := r.String(); err2 != err {
		t.Fatalf("String() after an error = %v, want the first error %v", err2, err)
	}
	if r.Kind() != Invalid || r.Null() {
		t.Fatal("Kind and Null must report nothing after an error")
	}
}

func TestResetReadsNewText(t *testing.T) {
	r := NewReader([]byte(`x`))
	if r.Skip() == nil {
		t.Fatal("want an error")
	}
	r.Reset([]byte(`"ok"`))
	if s, err := r.String(); err != nil || s != "ok" || r.End() != nil {
		t.Fatalf("after Reset String() = %q, %v", s, err)
	}
}

func TestErrorfReportsCurrentOffset(t *testing.T) {
	r := NewReader([]byte(`{"a":1, "a":2}`))
	var seen Seen
	err := r.ObjectBytes(func(name []byte) error {
		if !seen.Mark(0) {
			return r.Errorf("member %q repeated", name)
		}
		return nil
	})
	checkErr(t, err, wantErr{12, `member "a" repeated`})
}

func TestSeen(t *testing.T) {
	var s Seen
	if !s.Mark(0) || !s.Mark(63) || s.Mark(0) || s.Mark(63) {
		t.Fatal("Mark must report true only the first time")
	}
	if !s.Has(0) || !s.Has(63) || s.Has(1) {
		t.Fatalf("Has after marking 0 and 63: %064b", s)
	}
}
