package jsonscan

// Seen is a set of up to 64 member indexes, for rejecting repeated member
// names without allocating: a decoder numbers the members it knows and marks
// each one as it reads it.
type Seen uint64

// Mark adds member index i (0 <= i < 64) and reports whether it was absent,
// i.e. whether this is the first time the member appears.
func (s *Seen) Mark(i uint) bool {
	bit := Seen(1) << (i & 63)
	first := *s&bit == 0
	*s |= bit
	return first
}

// Has reports whether member index i has been marked.
func (s Seen) Has(i uint) bool { return s&(Seen(1)<<(i&63)) != 0 }
