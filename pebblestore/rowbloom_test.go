package pebblestore

import (
	"fmt"
	"testing"
)

// TestRowBloomNeverForgets: every key added is "maybe"; about 1% of keys
// never added are too.
func TestRowBloomNeverForgets(t *testing.T) {
	b := newRowBloom(100000)
	for i := range 100000 {
		b.add(fmt.Appendf(nil, "row-%d", i))
	}
	for i := range 100000 {
		if !b.mayContain(fmt.Appendf(nil, "row-%d", i)) {
			t.Fatalf("row-%d added, then not found", i)
		}
	}
	fp := 0
	for i := range 100000 {
		if b.mayContain(fmt.Appendf(nil, "other-%d", i)) {
			fp++
		}
	}
	if fp > 2000 {
		t.Fatalf("%d false positives in 100,000, want about 1%%", fp)
	}
	if b.full() {
		t.Fatal("full at its limit")
	}
	b.add([]byte("one more"))
	if !b.full() {
		t.Fatal("not full past its limit")
	}
}
