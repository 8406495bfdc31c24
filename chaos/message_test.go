package chaos

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestBodyRoundTrip(t *testing.T) {
	for _, payload := range []string{"", "x", "g3.s17.with.dots.inside", strings.Repeat("é", 40)} {
		id := newID()
		gotID, gotPayload, err := decodeBody(encodeBody(id, payload))
		if err != nil || gotID != id || gotPayload != payload {
			t.Errorf("decodeBody(encodeBody(%s, %q)) = %s, %q, %v", id, payload, gotID, gotPayload, err)
		}
	}
}

func TestBodyCorruption(t *testing.T) {
	id := uuid.MustParse("7a31d9c0-edd0-11f1-b8f5-f2a4d4c648ea")
	good := encodeBody(id, "payload-0123456789")
	sum := good[37 : 37+checksumLen]
	flip := func(s string, i int) string { b := []byte(s); b[i] ^= 1; return string(b) }
	for _, tc := range []struct {
		name   string
		body   string
		wantID bool // the id can still be read
	}{
		{"payload altered", flip(good, len(good)-1), true},
		{"payload truncated", good[:len(good)-3], true},
		{"payload extended", good + "x", true},
		{"checksum altered", strings.Replace(good, sum, flip(sum, 0), 1), true},
		{"no checksum", id.String() + ".payload", true},
		{"id altered", flip(good, 0), true}, // still a UUID: the checksum catches it
		{"not an id", "hello.world.payload", false},
		{"empty", "", false},
		{"id only", id.String(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gotID, _, err := decodeBody(tc.body)
			if err == nil {
				t.Fatalf("decodeBody(%q) accepted a corrupt body", tc.body)
			}
			if tc.wantID != (gotID != uuid.Nil) {
				t.Errorf("decodeBody(%q) read id %s; want an id: %v", tc.body, gotID, tc.wantID)
			}
		})
	}
}

func TestFiller(t *testing.T) {
	id := newID()
	p := filler("g1.s2.", id, 64)
	if len(p) != 64 || !strings.HasPrefix(p, "g1.s2.") {
		t.Errorf("filler = %q (%d bytes), want 64 bytes starting with the prefix", p, len(p))
	}
	if filler("abc", id, 2) != "abc" {
		t.Error("a prefix longer than the size is not kept whole")
	}
}
