package sqs

import (
	"container/heap"
	"slices"
)

// topK keeps the k least items by less among those offered, at a cost of
// O(log k) an item: /metrics picks a few queues among a million this way
// instead of sorting them all.
type topK[T any] struct {
	k     int
	less  func(a, b T) bool
	items []T // a max-heap by less: the greatest kept item first
}

func newTopK[T any](k int, less func(a, b T) bool) *topK[T] {
	return &topK[T]{k: k, less: less, items: make([]T, 0, min(k, 1024))}
}

func (t *topK[T]) Len() int           { return len(t.items) }
func (t *topK[T]) Less(i, j int) bool { return t.less(t.items[j], t.items[i]) }
func (t *topK[T]) Swap(i, j int)      { t.items[i], t.items[j] = t.items[j], t.items[i] }
func (t *topK[T]) Push(x any)         { t.items = append(t.items, x.(T)) }
func (t *topK[T]) Pop() any {
	x := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return x
}

// offer keeps x if it is among the k least so far.
func (t *topK[T]) offer(x T) {
	switch {
	case t.k <= 0:
	case len(t.items) < t.k:
		heap.Push(t, x)
	case t.less(x, t.items[0]):
		t.items[0] = x
		heap.Fix(t, 0)
	}
}

// sorted returns the kept items, least first.
func (t *topK[T]) sorted() []T {
	out := slices.Clone(t.items)
	slices.SortFunc(out, func(a, b T) int {
		switch {
		case t.less(a, b):
			return -1
		case t.less(b, a):
			return 1
		}
		return 0
	})
	return out
}
