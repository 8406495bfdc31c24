package main

import (
	"fmt"
	"slices"
)

// stat summarises one figure over rounds.
type stat struct {
	med, lo, hi float64
	n           int
}

// summarize returns the median (the mean of the middle two for an even
// count), minimum and maximum of xs.
func summarize(xs []float64) stat {
	if len(xs) == 0 {
		return stat{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stat{med: m, lo: s[0], hi: s[len(s)-1], n: len(s)}
}

// format renders the median with its range when the rounds differ:
// "0.445 (0.410–0.470)"; "–" with no rounds.
func (s stat) format(decimals int) string {
	if s.n == 0 {
		return "–"
	}
	med := fmt.Sprintf("%.*f", decimals, s.med)
	lo, hi := fmt.Sprintf("%.*f", decimals, s.lo), fmt.Sprintf("%.*f", decimals, s.hi)
	if s.n == 1 || lo == hi {
		return med
	}
	return med + " (" + lo + "–" + hi + ")"
}

// collect applies f to each element of xs.
func collect[T any](xs []T, f func(T) float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}
