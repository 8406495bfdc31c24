package sqsmem

// heapOrder orders the items of a heap and records each item's position in
// it, so that an item can be removed or moved in O(log n) from anywhere.
// Implementations are zero-size types: the heap costs no more memory than
// its slice.
type heapOrder[T any] interface {
	less(a, b T) bool
	setIndex(x T, i int)
}

// heap is a binary min-heap of T in the order O.
type heap[T any, O heapOrder[T]] struct {
	items []T
}

func (h *heap[T, O]) len() int { return len(h.items) }

// top returns the least item; the heap must not be empty.
func (h *heap[T, O]) top() T { return h.items[0] }

func (h *heap[T, O]) push(x T) {
	var o O
	h.items = append(h.items, x)
	o.setIndex(x, len(h.items)-1)
	h.up(len(h.items) - 1)
}

// pop removes and returns the least item; the heap must not be empty.
func (h *heap[T, O]) pop() T { return h.remove(0) }

// remove removes and returns the item at position i.
func (h *heap[T, O]) remove(i int) T {
	var o O
	x := h.items[i]
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	var zero T
	h.items[last] = zero // let the collector have it
	h.items = h.items[:last]
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
	o.setIndex(x, -1)
	if cap(h.items) > 64 && len(h.items) < cap(h.items)/4 {
		// A queue that drained keeps no large backing array.
		h.items = append([]T(nil), h.items...)
	}
	return x
}

func (h *heap[T, O]) swap(i, j int) {
	var o O
	h.items[i], h.items[j] = h.items[j], h.items[i]
	o.setIndex(h.items[i], i)
	o.setIndex(h.items[j], j)
}

func (h *heap[T, O]) up(i int) {
	var o O
	for i > 0 {
		parent := (i - 1) / 2
		if !o.less(h.items[i], h.items[parent]) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down moves the item at i down to its place and reports whether it moved.
func (h *heap[T, O]) down(i int) bool {
	var o O
	start := i
	n := len(h.items)
	for {
		least := i
		if l := 2*i + 1; l < n && o.less(h.items[l], h.items[least]) {
			least = l
		}
		if r := 2*i + 2; r < n && o.less(h.items[r], h.items[least]) {
			least = r
		}
		if least == i {
			return i != start
		}
		h.swap(i, least)
		i = least
	}
}
