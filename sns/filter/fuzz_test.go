package filter

import (
	"encoding/json"
	"testing"
)

var fuzzPolicies = []struct{ policy, scope string }{
	{`{"a":["x",1,true,null,{"prefix":"p"},{"suffix":"s"},{"equals-ignore-case":"X"}]}`, ScopeMessageBody},
	{`{"a":{"b":[{"numeric":[">",0,"<=",5]}],"$or":[{"c":[{"exists":false}]},{"d":[{"anything-but":["q",3]}]}]}}`, ScopeMessageBody},
	{`{"a":[{"cidr":"10.0.0.0/8"},{"anything-but":{"prefix":"z"}},{"anything-but":{"suffix":"z"}}],"b":[{"exists":true}]}`, ScopeMessageBody},
	{`{"a":["x",{"numeric":["=",2]}],"b":[{"exists":false}],"$or":[{"c":["1"]},{"d":[{"prefix":""}]}]}`, ScopeMessageAttributes},
}

// FuzzParse checks that Parse never panics and that whatever it accepts
// can be matched against bodies and attributes without panicking.
func FuzzParse(f *testing.F) {
	for _, p := range fuzzPolicies {
		f.Add(p.policy, p.scope == ScopeMessageBody)
	}
	f.Add(`{"a":[{"numeric":[">",1e9,"<",-1e9]}]}`, false)
	f.Add(`{"$or":[{"$or":[{"a":["1"]},{"b":["1"]}]},{"c":{"d":["x"]}}]}`, true)
	f.Fuzz(func(t *testing.T, policy string, body bool) {
		scope := ScopeMessageAttributes
		if body {
			scope = ScopeMessageBody
		}
		p, err := Parse(policy, scope)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error", err)
			}
			return
		}
		p.MatchBody(`{"a":"x","b":[1,{"c":null}],"c":{"d":"x"}}`)
		p.MatchBody(policy)
		p.MatchAttributes(attrs("a", "String", "x", "b", "Number", "1", "c", "String.Array", `["1",2,null]`))
	})
}

// FuzzMatchBody checks that matching arbitrary bodies never panics.
func FuzzMatchBody(f *testing.F) {
	compiled := make([]*Policy, len(fuzzPolicies))
	for i, p := range fuzzPolicies {
		compiled[i] = mustParse(f, p.policy, p.scope)
	}
	f.Add(`{"a":"x"}`)
	f.Add(`{"a":{"b":3,"c":null,"d":[1,"q"]}}`)
	f.Add(`{"a":[{"b":1},[{"b":2}],"10.1.2.3"]}`)
	f.Add(`{"a":1e400}`)
	f.Fuzz(func(t *testing.T, body string) {
		valid := json.Valid([]byte(body))
		for _, p := range compiled {
			if p.MatchBody(body) && !valid {
				t.Fatalf("invalid JSON body %q matched", body)
			}
			p.MatchAttributes(map[string]Attribute{
				"a": {DataType: "String.Array", Value: body},
				"b": {DataType: "Number", Value: body},
				"c": {DataType: "String", Value: body},
				"d": {DataType: "Binary", Value: body},
			})
		}
	})
}
