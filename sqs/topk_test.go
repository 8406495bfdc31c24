package sqs

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// topK against a sort, for every k around the number of items.
func TestTopKKeepsTheLeastInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 40 {
		items := make([]int, n)
		for i := range items {
			items[i] = r.IntN(20) // with repeats
		}
		want := slices.Sorted(slices.Values(items))
		for k := range n + 3 {
			tk := newTopK(k, func(a, b int) bool { return a < b })
			for _, x := range items {
				tk.offer(x)
			}
			if got := tk.sorted(); !slices.Equal(got, want[:min(k, n)]) {
				t.Fatalf("n %d, k %d: %v, want %v", n, k, got, want[:min(k, n)])
			}
		}
	}
}

// BenchmarkTopKOfAMillion is /metrics choosing 100 queues among a million
// (QueueMetrics): one offer an item, against sorting them all as it did.
func BenchmarkTopKOfAMillion(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	items := make([]int64, 1_000_000)
	for i := range items {
		items[i] = r.Int64()
	}
	less := func(a, b int64) bool { return a < b }
	b.Run("topk", func(b *testing.B) {
		for b.Loop() {
			tk := newTopK(100, less)
			for _, x := range items {
				tk.offer(x)
			}
			_ = tk.sorted()
		}
	})
	b.Run("sort", func(b *testing.B) {
		for b.Loop() {
			s := slices.Clone(items)
			slices.Sort(s)
			_ = s[:100]
		}
	})
}
