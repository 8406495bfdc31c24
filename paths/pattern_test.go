package paths

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// matchCases follow RabbitMQ's topic exchange.
var matchCases = []struct {
	pattern, path string
	want          bool
}{
	{"a.b.c", "a.b.c", true},
	{"a.b.c", "a.b", false},
	{"a.b.c", "a.b.c.d", false},
	{"a.b.c", "a.b.x", false},
	{"*", "a", true},
	{"*", "a.b", false},
	{"a.*", "a", false},
	{"a.*", "a.b", true},
	{"a.*", "a.b.c", false},
	{"*.*", "a.b", true},
	{"*.*", "a", false},
	{"*.*", "a.b.c", false},
	{"*.b.*", "a.b.c", true},
	{"*.b.*", "a.x.c", false},
	{"#", "a", true},
	{"#", "a.b.c", true},
	{"#.#", "a", true},
	{"#.#", "a.b.c.d", true},
	{"a.#", "a", true},
	{"a.#", "a.b.c", true},
	{"a.#", "b", false},
	{"a.#", "b.a", false},
	{"#.a", "a", true},
	{"#.a", "x.y.a", true},
	{"#.a", "a.x", false},
	{"a.#.b", "a.b", true},
	{"a.#.b", "a.x.y.b", true},
	{"a.#.b", "a.x.y", false},
	{"a.#.b", "b", false},
	{"a.#.#.b", "a.b", true},
	{"a.#.#.b", "a.x.b", true},
	{"a.#.#.b", "a.x.y.z.b", true},
	{"a.#.#.b", "a.b.c", false},
	{"#.*.#", "a", true},
	{"#.*.#", "a.b.c", true},
	{"*.#", "a", true},
	{"*.#", "a.b.c", true},
	{"#.*", "a", true},
	{"#.*", "a.b", true},
	{"*.*.#", "a", false},
	{"*.*.#", "a.b", true},
	{"#.*.*", "a", false},
	{"#.*.*", "a.b.c", true},
	{"a.*.#.c", "a.b.c", true},
	{"a.*.#.c", "a.c", false},
	{"a.*.#.c", "a.b.x.y.c", true},
	{"#.b.#", "b", true},
	{"#.b.#", "a.b.c", true},
	{"#.b.#", "a.c", false},
	{"#.a.#.a.#", "a", false},
	{"#.a.#.a.#", "a.a", true},
	{"#.a.#.a.#", "b.a.c.a.d", true},
	{"#.a.#.a.#", "b.a.c.d", false},
	{"a.#.a", "a", false},
	{"a.#.a", "a.a", true},
	{"a.#.a", "a.a.a.a", true},
	{"#.#.#.#.x", "a.b.c.d.e.f.g.h", false},
	{"#.#.#.#.h", "a.b.c.d.e.f.g.h", true},
	{"sensors.*.2014-02-01T09:39Z", "sensors.berlin.2014-02-01T09:39Z", true},
	{"sensors.*.2014-02-01T09:39Z", "sensors.berlin.2014-02-01T09:40Z", false},
	{"*.#.*", "a", false},
	{"*.#.*", "a.b", true},
	{"*.#.*", "a.b.c.d", true},
	{"a.#.b.c", "a.b.c", true},
	{"a.#.b.c", "a.c", false},
	{"a.b.#", "a.b", true},
	{"a.b.#", "a", false},
	{"A", "a", false}, // case matters
}

func TestPatternMatch(t *testing.T) {
	for _, tt := range matchCases {
		t.Run(tt.pattern+" "+tt.path, func(t *testing.T) {
			p := MustParsePattern(tt.pattern)
			if got := p.Match(tt.path); got != tt.want {
				t.Errorf("Match = %v, want %v", got, tt.want)
			}
			if got := refMatch(tt.pattern, tt.path); got != tt.want {
				t.Errorf("reference matcher = %v, want %v (the table or the oracle is wrong)", got, tt.want)
			}
			if got := matchByState(p, tt.path); got != tt.want {
				t.Errorf("State API = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPatternMatchRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		pat := joinWords(randWords(r, 7, testPatternAlphabet))
		path := joinWords(randWords(r, 8, testPathAlphabet))
		p := MustParsePattern(pat)
		if got, want := p.Match(path), refMatch(pat, path); got != want {
			t.Fatalf("%q.Match(%q) = %v, want %v", pat, path, got, want)
		}
	}
}

func TestParsePattern(t *testing.T) {
	p, err := ParsePattern("a.*.#")
	if err != nil {
		t.Fatal(err)
	}
	if p.String() != "a.*.#" {
		t.Errorf("String = %q", p.String())
	}
	if _, err := ParsePattern("a.b*"); err == nil {
		t.Error("ParsePattern(\"a.b*\") succeeded")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParsePattern did not panic on an invalid pattern")
		}
	}()
	MustParsePattern("a..b")
}

func TestZeroPattern(t *testing.T) {
	var p Pattern
	if p.String() != "" || p.Match("a") || p.Match("") || len(p.LiteralPrefix()) != 0 {
		t.Error("zero Pattern should be empty and match nothing")
	}
	s := p.Start()
	if p.Accepts(s) || p.Alive(s) || p.Accepts(p.Step(s, "a")) {
		t.Error("zero Pattern's states should be dead")
	}
}

func TestLiteralPrefix(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{"a.b.c", []string{"a", "b", "c"}},
		{"a.b.*", []string{"a", "b"}},
		{"a.#.c", []string{"a"}},
		{"*.b", []string{}},
		{"#", []string{}},
		{"feeds.breaking-news.#", []string{"feeds", "breaking-news"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			p := MustParsePattern(tt.pattern)
			got := p.LiteralPrefix()
			if !slices.Equal(got, tt.want) {
				t.Fatalf("LiteralPrefix = %q, want %q", got, tt.want)
			}
			if len(got) > 0 {
				got[0] = "changed"
				if p.LiteralPrefix()[0] == "changed" {
					t.Error("LiteralPrefix shares memory with the pattern")
				}
			}
		})
	}
}
