package filter

import "testing"

func TestMatchBody(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		body   string
		want   bool
	}{
		{"exact", `{"store":["example_corp"]}`, `{"store":"example_corp"}`, true},
		{"exact mismatch", `{"store":["example_corp"]}`, `{"store":"other"}`, false},
		{"missing key", `{"store":["example_corp"]}`, `{"other":"example_corp"}`, false},
		{"not JSON", `{"store":["x"]}`, `store=x`, false},
		{"JSON array body", `{"store":["x"]}`, `[{"store":"x"}]`, false},
		{"JSON string body", `{"store":["x"]}`, `"x"`, false},
		{"empty object body", `{"store":[{"exists":false}]}`, `{}`, false},
		{"string does not match number", `{"n":["5"]}`, `{"n":5}`, false},
		{"number exact", `{"price_usd":[301.5]}`, `{"price_usd":3.015e2}`, true},
		{"number range", `{"p":[{"numeric":[">",0,"<=",150]}]}`, `{"p":42}`, true},
		{"number range outside", `{"p":[{"numeric":[">",0,"<=",150]}]}`, `{"p":151}`, false},
		{"quoted number is a string", `{"p":[{"numeric":[">",0]}]}`, `{"p":"42"}`, false},
		{"true literal", `{"ok":[true]}`, `{"ok":true}`, true},
		{"true is not the string", `{"ok":[true]}`, `{"ok":"true"}`, false},
		{"false literal", `{"ok":[false]}`, `{"ok":false}`, true},
		{"null literal", `{"v":[null]}`, `{"v":null}`, true},
		{"null does not match absent", `{"v":[null]}`, `{"w":1}`, false},
		{"array any element", `{"i":["rugby","tennis"]}`, `{"i":["golf","tennis"]}`, true},
		{"array no element", `{"i":["rugby","tennis"]}`, `{"i":["golf"]}`, false},
		{"nested arrays flatten", `{"i":["x"]}`, `{"i":[["a"],["b",["x"]]]}`, true},
		{"anything-but array none excluded", `{"i":[{"anything-but":["rugby"]}]}`, `{"i":["golf","polo"]}`, true},
		{"anything-but array one excluded", `{"i":[{"anything-but":["rugby"]}]}`, `{"i":["golf","rugby"]}`, false},
		{"anything-but other type", `{"i":[{"anything-but":["rugby"]}]}`, `{"i":7}`, true},
		{"anything-but prefix on number", `{"i":[{"anything-but":{"prefix":"r"}}]}`, `{"i":7}`, false},
		{"prefix", `{"s":[{"prefix":"us-"}]}`, `{"s":"us-east-1"}`, true},
		{"suffix", `{"s":[{"suffix":".png"}]}`, `{"s":"cat.png"}`, true},
		{"ignore case", `{"s":[{"equals-ignore-case":"ÉTÉ"}]}`, `{"s":"été"}`, true},
		{"cidr", `{"ip":[{"cidr":"192.168.0.0/16"}]}`, `{"ip":"192.168.4.2"}`, true},
		{"exists true", `{"store":[{"exists":true}]}`, `{"store":"fans"}`, true},
		{"exists true null", `{"store":[{"exists":true}]}`, `{"store":null}`, false},
		{"exists true object is not a leaf", `{"store":[{"exists":true}]}`, `{"store":{"a":1}}`, false},
		{"exists false", `{"store":[{"exists":false}]}`, `{"other":1}`, true},
		{"exists false present", `{"store":[{"exists":false}]}`, `{"store":"x"}`, false},
		// nesting
		{"nested match", `{"a":{"b":{"c":["x"]}}}`, `{"a":{"b":{"c":"x","d":1}}}`, true},
		{"nested mismatch", `{"a":{"b":{"c":["x"]}}}`, `{"a":{"b":{"c":"y"}}}`, false},
		{"nested missing intermediate", `{"a":{"b":["x"]}}`, `{"b":"x"}`, false},
		{"nested intermediate scalar", `{"a":{"b":["x"]}}`, `{"a":"x"}`, false},
		{"nested exists false missing intermediate", `{"a":{"b":[{"exists":false}]}}`, `{"z":1}`, true},
		{"nested keys AND", `{"a":{"b":["1"],"c":[2]}}`, `{"a":{"b":"1","c":2}}`, true},
		{"nested keys AND fails", `{"a":{"b":["1"],"c":[2]}}`, `{"a":{"b":"1","c":3}}`, false},
		{"array of objects", `{"a":{"b":["x"]}}`, `{"a":[{"b":"y"},{"b":"x"}]}`, true},
		{"array of objects, same element", `{"a":{"b":["1"],"c":["2"]}}`, `{"a":[{"b":"1","c":"9"},{"b":"9","c":"2"}]}`, false},
		{"array of objects, one element has both", `{"a":{"b":["1"],"c":["2"]}}`, `{"a":[{"b":"1","c":"9"},{"b":"1","c":"2"}]}`, true},
		{"top-level and nested", `{"t":["A"],"a":{"b":[{"numeric":[">=",10]}]}}`, `{"t":"A","a":{"b":10}}`, true},
		// $or
		{"$or top-level", `{"$or":[{"a":["1"]},{"b":["2"]}]}`, `{"b":"2"}`, true},
		{"$or top-level none", `{"$or":[{"a":["1"]},{"b":["2"]}]}`, `{"b":"3"}`, false},
		{"$or nested", `{"a":{"$or":[{"b":["1"]},{"c":["2"]}]}}`, `{"a":{"c":"2"}}`, true},
		{"$or with nested branches", `{"$or":[{"a":{"b":["1"]}},{"c":["2"]}]}`, `{"a":{"b":"1"}}`, true},
		{"$or AND sibling", `{"x":["y"],"$or":[{"a":["1"]},{"b":["2"]}]}`, `{"x":"z","a":"1"}`, false},
		{"duplicate body key, last wins", `{"a":["2"]}`, `{"a":"1","a":"2"}`, true},
		{"empty policy", `{}`, `not json`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, tt.policy, ScopeMessageBody)
			if got := p.MatchBody(tt.body); got != tt.want {
				t.Fatalf("MatchBody(%s) with %s = %v, want %v", tt.body, tt.policy, got, tt.want)
			}
			if got := p.Match(nil, tt.body); got != tt.want {
				t.Fatalf("Match = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatchConcurrent(t *testing.T) {
	p := mustParse(t, `{"a":{"b":[{"prefix":"x"}]},"$or":[{"c":[1]},{"d":[{"exists":false}]}]}`, ScopeMessageBody)
	done := make(chan bool)
	for range 4 {
		go func() {
			ok := true
			for range 200 {
				ok = ok && p.MatchBody(`{"a":{"b":"xy"},"c":1}`) && !p.MatchBody(`{"a":{"b":"y"}}`)
			}
			done <- ok
		}()
	}
	for range 4 {
		if !<-done {
			t.Fatal("concurrent matches disagreed")
		}
	}
}
