package jsonscan

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// decodeAny decodes the next value the way encoding/json decodes into an
// any: objects to map[string]any (a repeated name keeps its last value),
// arrays to []any, numbers to float64.
func decodeAny(r *Reader) (any, error) {
	switch r.Kind() {
	case Object:
		m := map[string]any{}
		err := r.Object(func(name string) error {
			v, err := decodeAny(r)
			m[name] = v
			return err
		})
		return m, err
	case Array:
		a := []any{}
		err := r.Array(func(int) error {
			v, err := decodeAny(r)
			a = append(a, v)
			return err
		})
		return a, err
	case String:
		return r.String()
	case Number:
		return r.Float()
	case Bool:
		return r.Bool()
	case Null:
		if r.Null() {
			return nil, nil
		}
	}
	return nil, r.Skip() // reports what is wrong
}

// encodingJSONMaxDepth is encoding/json's nesting limit; the fuzz target
// uses it so both readers accept the same texts.
const encodingJSONMaxDepth = 10000

func FuzzAgreesWithEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `""`, `0`, `-0.5e+7`, `true`, `false`, `null`, ` 1 `,
		`{"a":[1,"x",null,true,{"b":{}}],"a":2}`,
		`"\u00e9\ud83d\ude00\ud800\udc00x\\\/\b\f\n\r\t"`,
		`"\ud800"`, `"\udc00\ud800\u0041"`, "\"\xff\"", "\"\xed\xa0\x80\"",
		`1e400`, `[1,]`, `{"a":1,}`, `01`, `1.`, `-`, `tru`, `nul`, `[[[[]]]]`,
		`{"QueueUrl":"http://q","Entries":[{"Id":"1","MessageBody":"b","MessageAttributes":{"n":{"DataType":"String","StringValue":"x"}}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		r.SetMaxDepth(encodingJSONMaxDepth)
		got, err := decodeAny(r)
		if err == nil {
			err = r.End()
		}
		var want any
		wantErr := json.Unmarshal(data, &want)

		if !utf8.Valid(data) {
			// encoding/json replaces invalid UTF-8 in strings with U+FFFD;
			// this reader must refuse it.
			if err == nil {
				t.Fatalf("accepted invalid UTF-8 %q as %#v", data, got)
			}
			return
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("input %q: jsonscan error %v, encoding/json error %v", data, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("input %q: jsonscan %#v, encoding/json %#v", data, got, want)
		}
	})
}
