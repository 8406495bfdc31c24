package paths

import (
	"testing"
)

// FuzzContainsIsSound checks Contains against pattern matching on
// arbitrary patterns and paths: a pattern contains itself, and when outer
// contains inner, every path inner matches is matched by outer. (A false
// answer is always allowed: Contains may be conservative.)
//
//	go test -fuzz FuzzContainsIsSound ./wsauth/
func FuzzContainsIsSound(f *testing.F) {
	for _, s := range [][3]string{
		{"#", "a.b", "a.b"}, {"a.#", "a.*.c", "a.x.c"}, {"*.b", "a.b", "a.b"}, {"a.#.c", "a.*.c", "a.b.c"},
		{"#.c", "*.#.c", "x.y.c"}, {"a.*", "a.#", "a"}, {"dev.42.#", "dev.42.*", "dev.42.x"}, {"*.*", "#", "a.b.c"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, outer, inner, path string) {
		if ValidatePattern(outer) != nil || ValidatePattern(inner) != nil {
			if Contains(outer, inner) {
				t.Fatalf("Contains(%q, %q) with an invalid pattern", outer, inner)
			}
			return
		}
		if !Contains(inner, inner) {
			t.Fatalf("Contains(%q, %q) = false: a pattern must contain itself", inner, inner)
		}
		if Validate(path) != nil || !match(inner, path) {
			return
		}
		if Contains(outer, inner) && !match(outer, path) {
			t.Fatalf("Contains(%q, %q) = true, yet %q matches the inner pattern and not the outer one", outer, inner, path)
		}
	})
}
