package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecodeBase64StringAgreesWithEncodingJSON checks the body fast path:
// whenever it accepts a JSON value, encoding/json decodes the same bytes.
func FuzzDecodeBase64StringAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`"aGVsbG8="`, `""`, `"aGVsbG8"`, `"!!"`, `"aGVs\nbG8="`, `"aGV\u0073bG8="`, `null`, `"QUFB\r\nQUFB"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		if !json.Valid(value) {
			return
		}
		var fast []byte
		if !decodeBase64String(value, &fast) {
			return
		}
		var slow []byte
		if err := json.Unmarshal(value, &slow); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json refuses it: %v", value, err)
		}
		if !bytes.Equal(fast, slow) {
			t.Fatalf("%q: fast path gave %q, encoding/json %q", value, fast, slow)
		}
	})
}
