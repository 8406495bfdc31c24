package pebblestore

import "hash/maphash"

// rowBloom is a Bloom filter of the row keys of one rollup: a commit that
// finds a row in neither its cache nor the filter knows the row does not
// exist yet, without a Pebble read (most rows a LoopLogic-shaped commit
// touches are new ones; BenchmarkRollupCommit). It never forgets a key,
// so a "no" is always right; a "maybe" costs a read.
type rowBloom struct {
	bits  []uint64
	k     int // hash functions
	n     int // keys added
	limit int // keys it was sized for; past it, rebuild it larger
}

var bloomSeed = maphash.MakeSeed()

// newRowBloom sizes a filter for limit keys at about 1% false positives
// (10 bits and 7 hashes a key).
func newRowBloom(limit int) *rowBloom {
	words := max(1, (limit*10+63)/64)
	return &rowBloom{bits: make([]uint64, words), k: 7, limit: limit}
}

// hashes returns two independent hashes of key (Kirsch–Mitzenmacher:
// the k probes are h1 + i·h2).
func (b *rowBloom) hashes(key []byte) (uint64, uint64) {
	h := maphash.Bytes(bloomSeed, key)
	return h, (h >> 33) | (h << 31) | 1
}

func (b *rowBloom) add(key []byte) {
	h1, h2 := b.hashes(key)
	m := uint64(len(b.bits) * 64)
	for i := range b.k {
		p := (h1 + uint64(i)*h2) % m
		b.bits[p/64] |= 1 << (p % 64)
	}
	b.n++
}

func (b *rowBloom) mayContain(key []byte) bool {
	h1, h2 := b.hashes(key)
	m := uint64(len(b.bits) * 64)
	for i := range b.k {
		p := (h1 + uint64(i)*h2) % m
		if b.bits[p/64]&(1<<(p%64)) == 0 {
			return false
		}
	}
	return true
}

// full reports whether b holds more keys than it was sized for.
func (b *rowBloom) full() bool { return b.n > b.limit }

// bloomLimit is the keys a rollup's first filter is sized for (5 MB);
// a filter past its limit is rebuilt twice as large.
const bloomLimit = 4 << 20
