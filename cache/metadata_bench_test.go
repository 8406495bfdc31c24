package cache

import (
	"encoding/json"
	"testing"
)

func BenchmarkParseMetadata(b *testing.B) {
	s := &Service{cfg: DefaultConfig()}
	raw := json.RawMessage(`{"paths":["wrk1764900000.t1.m123"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.parseMetadata(raw); err != nil {
			b.Fatal(err)
		}
	}
}
