package paths

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// bench1M is an index of a million patterns shaped like subscriptions to a
// feed service: mostly literal 3–4 word paths, some with "*" or "#".
var bench1M struct {
	once    sync.Once
	index   *Index[int]
	paths   []string // lookups: mostly paths that some pattern names
	heapMB  float64  // heap held by the index
	buildMs float64
}

func setup1M(b testing.TB) {
	b.Helper()
	bench1M.once.Do(func() {
		r := rand.New(rand.NewPCG(42, 1))
		word := func(kind string, n int) string { return fmt.Sprintf("%s%d", kind, r.IntN(n)) }
		literal := func() []string {
			w := []string{word("feed", 50), word("topic", 2000), word("item", 20000)}
			if r.IntN(2) == 0 {
				w = append(w, word("v", 1000))
			}
			return w
		}
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()

		x := NewIndex[int]()
		var literals []string
		for i := range 1_000_000 {
			w := literal()
			switch k := r.IntN(100); {
			case k < 85: // literal
			case k < 93: // one "*"
				w[r.IntN(len(w))] = "*"
			case k < 96: // trailing "#": a whole topic
				w = append(w[:2], "#")
			case k < 98: // "*" and "#"
				w = append([]string{"*"}, w[1], "#")
			case k < 99: // inner "#"
				w = []string{w[0], "#", w[2]}
			default: // leading "#": an item wherever it appears
				w = []string{"#", w[2]}
			}
			p := joinWords(w)
			x.Add(MustParsePattern(p), i)
			if len(literals) < 4096 && !IsPattern(p) {
				literals = append(literals, p)
			}
		}

		bench1M.buildMs = float64(time.Since(start).Milliseconds())
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		bench1M.heapMB = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		bench1M.index = x
		// Three quarters of the lookups hit a literal pattern; the rest are
		// fresh paths that only wildcards (if any) match.
		for i := range 4096 {
			if i%4 != 0 {
				bench1M.paths = append(bench1M.paths, literals[i%len(literals)])
			} else {
				bench1M.paths = append(bench1M.paths, joinWords(literal()))
			}
		}
		runtime.KeepAlive(literals)
	})
}

func BenchmarkIndexMatch1M(b *testing.B) {
	setup1M(b)
	x, paths := bench1M.index, bench1M.paths
	matches := 0
	count := func(int) { matches++ }
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		x.Match(paths[i%len(paths)], count)
		i++
	}
	b.ReportMetric(float64(matches)/float64(i), "matches/op")
	b.ReportMetric(bench1M.heapMB, "index-MB")
	b.ReportMetric(bench1M.buildMs, "build-ms")
}

func BenchmarkIndexMatch1MParallel(b *testing.B) {
	setup1M(b)
	x, paths := bench1M.index, bench1M.paths
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := rand.IntN(len(paths))
		for pb.Next() {
			x.Match(paths[i%len(paths)], func(int) {})
			i++
		}
	})
}

func BenchmarkPatternMatch(b *testing.B) {
	cases := []struct{ name, pattern, path string }{
		{"literal", "feeds.breaking-news.12345", "feeds.breaking-news.12345"},
		{"star", "feeds.*.12345", "feeds.breaking-news.12345"},
		{"hash", "feeds.#", "feeds.breaking-news.12345"},
		{"hashes", "#.a.#.b.#", "x.a.y.z.b.w.v.u"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := MustParsePattern(c.pattern)
			b.ReportAllocs()
			for b.Loop() {
				if !p.Match(c.path) {
					b.Fatal("no match")
				}
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	path := "sensors.berlin-mitte.temperature.2014-02-01T09:39Z"
	b.ReportAllocs()
	for b.Loop() {
		if Validate(path) != nil {
			b.Fatal("invalid")
		}
	}
}
