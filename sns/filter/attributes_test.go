package filter

import "testing"

func TestMatchAttributes(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		attrs  map[string]Attribute
		want   bool
	}{
		// exact strings, OR within a key, AND across keys
		{"exact match", `{"store":["example_corp"]}`, attrs("store", "String", "example_corp"), true},
		{"exact mismatch", `{"store":["example_corp"]}`, attrs("store", "String", "other"), false},
		{"exact is case-sensitive", `{"store":["example_corp"]}`, attrs("store", "String", "Example_Corp"), false},
		{"value list is OR", `{"i":["rugby","tennis"]}`, attrs("i", "String", "tennis"), true},
		{"keys are AND, both match", `{"a":["1"],"b":["2"]}`, attrs("a", "String", "1", "b", "String", "2"), true},
		{"keys are AND, one fails", `{"a":["1"],"b":["2"]}`, attrs("a", "String", "1", "b", "String", "3"), false},
		{"missing key", `{"a":["1"],"b":["2"]}`, attrs("a", "String", "1"), false},
		{"other attributes ignored", `{"a":["1"]}`, attrs("a", "String", "1", "z", "String", "9"), true},
		{"no attributes", `{"a":["1"]}`, nil, false},
		{"custom string type", `{"a":["1"]}`, attrs("a", "String.custom", "1"), true},
		{"string does not match number", `{"a":["100"]}`, attrs("a", "Number", "100"), false},
		// String.Array
		{"array any element", `{"i":["rugby","tennis"]}`, attrs("i", "String.Array", `["baseball","tennis"]`), true},
		{"array no element", `{"i":["rugby","tennis"]}`, attrs("i", "String.Array", `["baseball"]`), false},
		{"array numbers", `{"n":[{"numeric":[">",10]}]}`, attrs("n", "String.Array", `[1, 20]`), true},
		{"array literals", `{"n":[true]}`, attrs("n", "String.Array", `[false, true, null]`), true},
		{"array null literal", `{"n":[null]}`, attrs("n", "String.Array", `["x", null]`), true},
		{"malformed array is absent", `{"i":["x"]}`, attrs("i", "String.Array", `["x"`), false},
		// numbers
		{"number literal equals", `{"p":[301.5]}`, attrs("p", "Number", "3.015e2"), true},
		{"numeric = ", `{"p":[{"numeric":["=",301.5]}]}`, attrs("p", "Number", "301.50"), true},
		{"numeric = mismatch", `{"p":[{"numeric":["=",301.5]}]}`, attrs("p", "Number", "301.6"), false},
		{"five decimal places", `{"p":[{"numeric":["=",1.00001]}]}`, attrs("p", "Number", "1.000012"), true},
		{"sixth decimal ignored", `{"p":[1]}`, attrs("p", "Number", "1.000001"), true},
		{"fifth decimal counts", `{"p":[1]}`, attrs("p", "Number", "1.00001"), false},
		{"range inside", `{"p":[{"numeric":[">",0,"<=",150]}]}`, attrs("p", "Number", "150"), true},
		{"range exclusive bottom", `{"p":[{"numeric":[">",0,"<=",150]}]}`, attrs("p", "Number", "0"), false},
		{"range above", `{"p":[{"numeric":[">",0,"<=",150]}]}`, attrs("p", "Number", "150.00001"), false},
		{"range >= bottom", `{"p":[{"numeric":[">=",0,"<",1]}]}`, attrs("p", "Number", "0"), true},
		{"less than", `{"p":[{"numeric":["<",0]}]}`, attrs("p", "Number", "-0.5"), true},
		{"less or equal", `{"p":[{"numeric":["<=",-3]}]}`, attrs("p", "Number", "-2"), false},
		{"numeric on custom number type", `{"p":[{"numeric":[">",1]}]}`, attrs("p", "Number.float", "2"), true},
		{"numeric does not match string", `{"p":[{"numeric":[">",1]}]}`, attrs("p", "String", "2"), false},
		{"malformed number is absent", `{"p":[{"numeric":[">",1]}]}`, attrs("p", "Number", "0x10"), false},
		{"number beyond range compares", `{"p":[{"numeric":[">",1000000000]}]}`, attrs("p", "Number", "5e12"), true},
		// prefix, suffix, equals-ignore-case
		{"prefix", `{"i":[{"prefix":"bas"}]}`, attrs("i", "String", "basketball"), true},
		{"prefix mismatch", `{"i":[{"prefix":"bas"}]}`, attrs("i", "String", "rugby"), false},
		{"suffix", `{"i":[{"suffix":"ball"}]}`, attrs("i", "String", "baseball"), true},
		{"suffix mismatch", `{"i":[{"suffix":"ball"}]}`, attrs("i", "String", "rugby"), false},
		{"ignore case", `{"i":[{"equals-ignore-case":"RuGbY"}]}`, attrs("i", "String", "rugby"), true},
		{"ignore case mismatch", `{"i":[{"equals-ignore-case":"rugby"}]}`, attrs("i", "String", "rugby2"), false},
		// anything-but
		{"anything-but list", `{"i":[{"anything-but":["rugby","tennis"]}]}`, attrs("i", "String", "baseball"), true},
		{"anything-but list excluded", `{"i":[{"anything-but":["rugby","tennis"]}]}`, attrs("i", "String", "rugby"), false},
		{"anything-but single", `{"i":[{"anything-but":"rugby"}]}`, attrs("i", "String", "golf"), true},
		{"anything-but numeric", `{"p":[{"anything-but":[100,500]}]}`, attrs("p", "Number", "100.1"), true},
		{"anything-but numeric excluded", `{"p":[{"anything-but":[100,500]}]}`, attrs("p", "Number", "1e2"), false},
		{"anything-but single number", `{"p":[{"anything-but":100}]}`, attrs("p", "Number", "100"), false},
		{"anything-but absent key", `{"i":[{"anything-but":["rugby"]}]}`, attrs("x", "String", "1"), false},
		{"anything-but or exists false", `{"i":[{"anything-but":["rugby"]},{"exists":false}]}`, attrs("x", "String", "1"), true},
		{"anything-but array none excluded", `{"i":[{"anything-but":["rugby","tennis"]}]}`, attrs("i", "String.Array", `["golf","polo"]`), true},
		{"anything-but array one excluded", `{"i":[{"anything-but":["rugby","tennis"]}]}`, attrs("i", "String.Array", `["rugby","polo"]`), false},
		{"anything-but prefix", `{"i":[{"anything-but":{"prefix":"bas"}}]}`, attrs("i", "String", "rugby"), true},
		{"anything-but prefix excluded", `{"i":[{"anything-but":{"prefix":"bas"}}]}`, attrs("i", "String", "baseball"), false},
		{"anything-but suffix", `{"i":[{"anything-but":{"suffix":"ball"}}]}`, attrs("i", "String", "rugby"), true},
		{"anything-but suffix excluded", `{"i":[{"anything-but":{"suffix":"ball"}}]}`, attrs("i", "String", "football"), false},
		// exists
		{"exists true", `{"store":[{"exists":true}]}`, attrs("store", "String", "fans"), true},
		{"exists true absent", `{"store":[{"exists":true}]}`, attrs("other", "String", "fans"), false},
		{"exists false absent", `{"store":[{"exists":false}]}`, attrs("other", "String", "fans"), true},
		{"exists false present", `{"store":[{"exists":false}]}`, attrs("store", "String", "fans"), false},
		{"exists false needs some attribute", `{"store":[{"exists":false}]}`, map[string]Attribute{}, false},
		{"exists false, only binary attributes", `{"store":[{"exists":false}]}`, attrs("b", "Binary", "AAEC"), false},
		{"exists true empty array", `{"store":[{"exists":true}]}`, attrs("store", "String.Array", `[]`), false},
		// binary
		{"binary never matches", `{"b":["AAEC"]}`, attrs("b", "Binary", "AAEC"), false},
		{"binary is absent for exists", `{"b":[{"exists":true}]}`, attrs("b", "Binary", "AAEC"), false},
		// cidr
		{"cidr v4", `{"ip":[{"cidr":"10.0.0.0/24"}]}`, attrs("ip", "String", "10.0.0.255"), true},
		{"cidr v4 outside", `{"ip":[{"cidr":"10.0.0.0/24"}]}`, attrs("ip", "String", "10.0.1.0"), false},
		{"cidr v6", `{"ip":[{"cidr":"2001:db8::/32"}]}`, attrs("ip", "String", "2001:db8:1::1"), true},
		{"cidr v4-mapped v6 address", `{"ip":[{"cidr":"10.0.0.0/8"}]}`, attrs("ip", "String", "::ffff:10.1.2.3"), true},
		{"cidr on array", `{"ip":[{"cidr":"10.0.0.0/8"}]}`, attrs("ip", "String.Array", `["1.1.1.1","10.9.9.9"]`), true},
		{"array objects ignored", `{"i":["x"]}`, attrs("i", "String.Array", `[{"i":"x"}]`), false},
		{"cidr not an address", `{"ip":[{"cidr":"10.0.0.0/8"}]}`, attrs("ip", "String", "ten"), false},
		// $or
		{"$or first branch", `{"a":["1"],"$or":[{"b":["x"]},{"c":["y"]}]}`, attrs("a", "String", "1", "b", "String", "x"), true},
		{"$or second branch", `{"a":["1"],"$or":[{"b":["x"]},{"c":["y"]}]}`, attrs("a", "String", "1", "c", "String", "y"), true},
		{"$or no branch", `{"a":["1"],"$or":[{"b":["x"]},{"c":["y"]}]}`, attrs("a", "String", "1", "c", "String", "z"), false},
		{"$or AND outside fails", `{"a":["1"],"$or":[{"b":["x"]},{"c":["y"]}]}`, attrs("a", "String", "2", "b", "String", "x"), false},
		{"$or nested", `{"$or":[{"a":["1"]},{"$or":[{"b":["2"]},{"c":["3"]}]}]}`, attrs("c", "String", "3"), true},
		// empty policy
		{"empty policy matches all", `{}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, tt.policy, ScopeMessageAttributes)
			if got := p.MatchAttributes(tt.attrs); got != tt.want {
				t.Fatalf("MatchAttributes(%v) with %s = %v, want %v", tt.attrs, tt.policy, got, tt.want)
			}
			if got := p.Match(tt.attrs, `{"ignored":1}`); got != tt.want {
				t.Fatalf("Match = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNilPolicyMatchesAll(t *testing.T) {
	var p *Policy
	if !p.MatchAttributes(nil) || !p.MatchBody("not json") || p.Scope() != ScopeMessageAttributes {
		t.Fatal("nil policy should match everything with the default scope")
	}
}
