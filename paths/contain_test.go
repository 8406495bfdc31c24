package paths

import "testing"

func TestContains(t *testing.T) {
	tests := []struct {
		outer, inner string
		want         bool
	}{
		{"feeds.#", "feeds.a.*", true},
		{"feeds.#", "feeds.#", true},
		{"feeds.#", "feeds", true},
		{"feeds.*", "feeds.#", false},
		{"feeds.*", "feeds.a", true},
		{"feeds.*", "feeds.*", true},
		{"feeds.*", "feeds.a.b", false},
		{"#", "a", true},
		{"#", "a.*.#.b", true},
		{"#", "#", true},
		{"*.#", "#", true}, // paths have at least one word
		{"#.*", "#", true},
		{"a.*.c", "a.b.c", true},
		{"a.*.c", "a.*.c", true},
		{"a.*.c", "a.#.c", false},
		{"a.b.c", "a.*.c", false},
		{"a.#", "a", true},
		{"a.#", "a.b.c.d", true},
		{"a.#", "b.#", false},
		{"a.#", "#", false},
		{"a.#", "*", false},
		{"*", "#", false},
		{"*.*", "*.#", false},
		{"*.#", "*.*", true},
		{"#.b", "a.#.b", true},
		{"#.b", "a.#", false},
		{"a.#.b", "a.b", true},
		{"a.#.b", "a.*.*.b", true},
		{"a.#.b", "a.#.x.b", true},
		{"a.#.b", "a.#.b.c", false},
		{"a.#.#", "a.#", true},
		{"a.#", "a.#.#", true},
		{"#.a.#", "x.a.y", true},
		{"#.a.#", "x.*.y", false},
		{"#.a.#", "#.a.*.#", true},
		{"devices.42.*", "devices.42.temp", true},
		{"devices.42.*", "devices.43.temp", false},
		{"", "a", false},
		{"a", "a..b", false},
		{"a.#", "a.b#", false},
	}
	for _, tt := range tests {
		if got := Contains(tt.outer, tt.inner); got != tt.want {
			t.Errorf("Contains(%q, %q) = %v, want %v", tt.outer, tt.inner, got, tt.want)
		}
	}
}

// TestContainsMatchesPaths cross-checks Contains against Pattern matching:
// when outer contains inner, every sample path inner matches outer matches.
func TestContainsAgreesWithSamples(t *testing.T) {
	patterns := []string{"#", "*", "a", "a.#", "a.*", "*.b", "a.*.c", "#.c", "a.#.c", "*.#", "#.*", "a.b", "a.b.c", "*.*"}
	samples := []string{"a", "b", "c", "a.b", "a.c", "b.c", "x.b", "a.b.c", "a.x.c", "a.b.b", "a.x.y.c", "x.y.z.w"}
	for _, outer := range patterns {
		for _, inner := range patterns {
			want := true
			for _, s := range samples {
				if match(inner, s) && !match(outer, s) {
					want = false
				}
			}
			if got := Contains(outer, inner); got && !want {
				t.Errorf("Contains(%q, %q) = true, but a sample path contradicts it", outer, inner)
			}
		}
	}
}

func match(pattern, path string) bool {
	p, err := ParsePattern(pattern)
	return err == nil && Validate(path) == nil && p.Match(path)
}

func TestContainsBudget(t *testing.T) {
	// A hostile inner pattern must answer quickly.
	outer := "#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#.a.#"
	inner := "#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#.*.#"
	_ = Contains(outer, inner)
}
