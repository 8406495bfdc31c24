package snshttp

import "testing"

func BenchmarkSign(b *testing.B) {
	s := testSigner(b)
	for b.Loop() {
		if _, err := s.Sign("2", "Message\nhello\n"); err != nil {
			b.Fatal(err)
		}
	}
}
