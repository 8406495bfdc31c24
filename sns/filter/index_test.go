package filter

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestIndexKeysOfPolicyShapes(t *testing.T) {
	tests := []struct {
		policy string
		keys   []string // nil: not indexed
	}{
		{`{}`, nil},
		{`{"state": ["CA"]}`, []string{"state=CA"}},
		{`{"state": ["NY", "CA", "CA"]}`, []string{"state=CA", "state=NY"}},
		{`{"state": ["CA", "NY"], "zip": ["94103"]}`, []string{"zip=94103"}}, // the key with fewer values
		{`{"state": ["CA", {"prefix": "N"}]}`, nil},
		{`{"state": ["CA", {"prefix": "N"}], "kind": ["alert"]}`, []string{"kind=alert"}},
		{`{"price": [{"numeric": [">", 0]}]}`, nil},
		{`{"price": [5]}`, nil}, // numbers are not indexed
		{`{"state": [{"anything-but": "CA"}]}`, nil},
		{`{"state": [{"exists": true}]}`, nil},
		{`{"$or": [{"state": ["CA"]}, {"zip": ["10001"]}]}`, []string{"state=CA", "zip=10001"}},
		{`{"$or": [{"state": ["CA"]}, {"price": [{"numeric": [">", 0]}]}]}`, nil},
		{`{"kind": ["alert"], "$or": [{"state": ["CA"]}, {"zip": ["1", "2"]}]}`, []string{"kind=alert"}},
		{`{"a=b": ["c"]}`, nil}, // a key with '=' is never indexed
	}
	for _, tc := range tests {
		p, err := Parse(tc.policy, ScopeMessageAttributes)
		if err != nil {
			t.Fatalf("%s: %v", tc.policy, err)
		}
		keys, ok := p.IndexKeys()
		if ok != (tc.keys != nil) || !slices.Equal(keys, tc.keys) {
			t.Errorf("IndexKeys(%s) = %q, %v; want %q", tc.policy, keys, ok, tc.keys)
		}
	}
	body, err := Parse(`{"state": ["CA"]}`, ScopeMessageBody)
	if err != nil {
		t.Fatal(err)
	}
	if keys, ok := body.IndexKeys(); ok {
		t.Errorf("a MessageBody policy is indexed under %q", keys)
	}
}

func TestMessageKeys(t *testing.T) {
	got := MessageKeys(map[string]Attribute{
		"state": {DataType: "String", Value: "CA"},
		"zips":  {DataType: "String.Array", Value: `["1", "2", 3, ["4"]]`},
		"label": {DataType: "String.custom", Value: "x"},
		"n":     {DataType: "Number", Value: "5"},
		"b":     {DataType: "Binary", Value: "AAA="},
	})
	want := []string{"label=x", "state=CA", "zips=1", "zips=2", "zips=4"}
	if !slices.Equal(got, want) {
		t.Fatalf("MessageKeys = %q, want %q", got, want)
	}
}

// TestIndexKeysNeverMissAMatch checks the index's one promise against a
// brute-force evaluation: of random policies and random messages, every
// message a policy matches carries one of the policy's index keys.
func TestIndexKeysNeverMissAMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"state", "zip", "kind"}
	words := []string{"CA", "NY", "TX", "1", "2"}
	cond := func() any {
		switch r.IntN(6) {
		case 0:
			return map[string]any{"prefix": words[r.IntN(len(words))][:1]}
		case 1:
			return map[string]any{"anything-but": words[r.IntN(len(words))]}
		case 2:
			return map[string]any{"exists": r.IntN(2) == 0}
		case 3:
			return r.IntN(3)
		default:
			return words[r.IntN(len(words))]
		}
	}
	object := func(exactOnly bool) map[string]any {
		obj := map[string]any{}
		for range 1 + r.IntN(2) {
			var leaf []any
			for range 1 + r.IntN(3) {
				if exactOnly || r.IntN(3) > 0 {
					leaf = append(leaf, words[r.IntN(len(words))])
				} else {
					leaf = append(leaf, cond())
				}
			}
			obj[names[r.IntN(len(names))]] = leaf
		}
		return obj
	}
	matched, indexed := 0, 0
	for i := range 3000 {
		pol := object(r.IntN(2) == 0)
		if r.IntN(3) == 0 {
			pol["$or"] = []any{object(r.IntN(2) == 0), object(r.IntN(2) == 0)}
		}
		text, _ := json.Marshal(pol)
		p, err := Parse(string(text), ScopeMessageAttributes)
		if err != nil {
			continue // too many keys or combinations
		}
		keys, ok := p.IndexKeys()
		if ok {
			indexed++
		}
		for range 40 {
			attrs := map[string]Attribute{}
			for _, n := range names {
				switch r.IntN(4) {
				case 0:
					attrs[n] = Attribute{DataType: "String", Value: words[r.IntN(len(words))]}
				case 1:
					attrs[n] = Attribute{DataType: "String.Array", Value: fmt.Sprintf(`[%q, %q]`, words[r.IntN(len(words))], words[r.IntN(len(words))])}
				case 2:
					attrs[n] = Attribute{DataType: "Number", Value: fmt.Sprint(r.IntN(3))}
				}
			}
			if !p.MatchAttributes(attrs) {
				continue
			}
			matched++
			if !ok {
				continue
			}
			mk := MessageKeys(attrs)
			if !slices.ContainsFunc(keys, func(k string) bool { _, found := slices.BinarySearch(mk, k); return found }) {
				t.Fatalf("policy %d %s matches %v, which carries none of its keys %q (message keys %q)", i, text, attrs, keys, mk)
			}
		}
	}
	if matched < 1000 || indexed < 500 {
		t.Fatalf("the generator is too weak: %d matches, %d indexed policies", matched, indexed)
	}
	t.Logf("%d matches checked, %d policies indexed", matched, indexed)
}
