package filter

import "testing"

func mustParse(t testing.TB, policy, scope string) *Policy {
	t.Helper()
	p, err := Parse(policy, scope)
	if err != nil {
		t.Fatalf("Parse(%s): %v", policy, err)
	}
	return p
}

// attrs builds an attribute map from name, type, value triples.
func attrs(triples ...string) map[string]Attribute {
	m := make(map[string]Attribute, len(triples)/3)
	for i := 0; i+2 < len(triples); i += 3 {
		m[triples[i]] = Attribute{DataType: triples[i+1], Value: triples[i+2]}
	}
	return m
}
