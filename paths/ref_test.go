package paths

import (
	"math/rand/v2"
	"strings"
)

// refMatch is the test oracle: a direct recursive reading of the matching
// rules, independent of the package's NFA. It is memoised on (pattern word,
// path word) so that patterns full of "#" cannot make it exponential.
func refMatch(pattern, path string) bool {
	return refMatchWords(strings.Split(pattern, "."), strings.Split(path, "."))
}

func refMatchWords(pat, path []string) bool {
	memo := make(map[[2]int]bool)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if i == len(pat) {
			return j == len(path)
		}
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		ok := false
		switch pat[i] {
		case "#":
			for k := j; k <= len(path) && !ok; k++ {
				ok = match(i+1, k)
			}
		case "*":
			ok = j < len(path) && match(i+1, j+1)
		default:
			ok = j < len(path) && path[j] == pat[i] && match(i+1, j+1)
		}
		memo[key] = ok
		return ok
	}
	return match(0, 0)
}

// randWords returns between 1 and maxWords words drawn from alphabet.
func randWords(r *rand.Rand, maxWords int, alphabet []string) []string {
	words := make([]string, 1+r.IntN(maxWords))
	for i := range words {
		words[i] = alphabet[r.IntN(len(alphabet))]
	}
	return words
}

var (
	testPathAlphabet    = []string{"a", "b", "c"}
	testPatternAlphabet = []string{"a", "b", "c", "*", "#", "#"}
)

// wordsFromBytes turns arbitrary bytes into words of alphabet, one word per
// byte, at most MaxWords. It lets fuzz targets reach interesting patterns and
// paths even from inputs that are not valid text.
func wordsFromBytes(s string, alphabet []string) string {
	if s == "" {
		return alphabet[0]
	}
	var words []string
	for i := 0; i < len(s) && i < MaxWords; i++ {
		words = append(words, alphabet[int(s[i])%len(alphabet)])
	}
	return strings.Join(words, ".")
}

func joinWords(w []string) string { return strings.Join(w, ".") }
