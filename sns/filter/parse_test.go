package filter

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	manyValues := func(n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprintf("%q", fmt.Sprint("v", i))
		}
		return "[" + strings.Join(vals, ",") + "]"
	}
	deep := strings.Repeat(`{"a":`, MaxNestingDepth+1) + `["x"]` + strings.Repeat("}", MaxNestingDepth+1)
	tests := []struct {
		name, policy, scope, want string
	}{
		{"bad scope", `{"a":["x"]}`, "Body", "Invalid filter policy scope"},
		{"not JSON", `{"a":`, "", "failed to parse JSON"},
		{"trailing data", `{"a":["x"]} {}`, "", "failed to parse JSON"},
		{"invalid UTF-8", "{\"a\":[\"\xff\"]}", "", "valid UTF-8"},
		{"too long", `{"a":["` + strings.Repeat("x", MaxPolicyBytes) + `"]}`, "", "too long"},
		{"array policy", `["x"]`, "", "must be a JSON object"},
		{"scalar value", `{"a":"x"}`, "", `Value of "a" must be an array or an object`},
		{"empty array", `{"a":[]}`, "", "Empty arrays are not allowed"},
		{"nested array value", `{"a":[["x"]]}`, "", "Match value must be String"},
		{"nested in attribute scope", `{"a":{"b":["x"]}}`, "", "does not support nested filter policy"},
		{"nested in explicit attribute scope", `{"a":{"b":["x"]}}`, ScopeMessageAttributes, "does not support nested"},
		{"empty nested object", `{"a":{}}`, ScopeMessageBody, "Empty objects are not allowed"},
		{"too deep", deep, ScopeMessageBody, "nesting is too deep"},
		{"six keys", `{"a":["1"],"b":["1"],"c":["1"],"d":["1"],"e":["1"],"f":["1"]}`, "", "more than 5 keys"},
		{"six keys via $or", `{"a":["1"],"b":["1"],"c":["1"],"d":["1"],"$or":[{"e":["1"]},{"e":["1"],"f":["1"]}]}`, "", "more than 5 keys"},
		{"six top-level body keys", `{"a":{"x":["1"]},"b":["1"],"c":["1"],"d":["1"],"e":["1"],"f":["1"]}`, ScopeMessageBody, "more than 5 keys"},
		{"too complex", `{"a":` + manyValues(151) + `}`, "", "too complex"},
		{"too complex product", `{"a":` + manyValues(13) + `,"b":` + manyValues(12) + `}`, "", "too complex"},
		{"too complex nested", `{"a":{"b":` + manyValues(20) + `,"c":` + manyValues(8) + `}}`, ScopeMessageBody, "too complex"},
		{"too complex $or", `{"$or":[{"a":` + manyValues(100) + `},{"b":` + manyValues(51) + `}]}`, "", "too complex"},
		{"empty operator", `{"a":[{}]}`, "", "Empty objects are not allowed"},
		{"two operators", `{"a":[{"prefix":"x","suffix":"y"}]}`, "", "Only one key allowed"},
		{"unknown operator", `{"a":[{"prefi":"x"}]}`, "", "Unrecognized match type prefi"},
		{"prefix not string", `{"a":[{"prefix":1}]}`, "", "prefix match pattern must be a string"},
		{"suffix not string", `{"a":[{"suffix":["x"]}]}`, "", "suffix match pattern must be a string"},
		{"ignore case not string", `{"a":[{"equals-ignore-case":true}]}`, "", "equals-ignore-case match pattern must be a string"},
		{"exists not bool", `{"a":[{"exists":"true"}]}`, "", "exists match pattern must be either true or false"},
		{"anything-but bool", `{"a":[{"anything-but":true}]}`, "", "Value of anything-but must be"},
		{"anything-but empty list", `{"a":[{"anything-but":[]}]}`, "", "Empty arrays"},
		{"anything-but list of null", `{"a":[{"anything-but":[null]}]}`, "", "only strings and numbers"},
		{"anything-but unknown form", `{"a":[{"anything-but":{"wildcard":"x"}}]}`, "", "Unsupported anything-but pattern: wildcard"},
		{"anything-but prefix number", `{"a":[{"anything-but":{"prefix":1}}]}`, "", "must be a string"},
		{"anything-but number out of range", `{"a":[{"anything-but":[2e9]}]}`, "", "out of range"},
		{"numeric not array", `{"a":[{"numeric":5}]}`, "", "Value of numeric must be an array"},
		{"numeric three elements", `{"a":[{"numeric":[">",1,"<"]}]}`, "", "Bad numeric expression"},
		{"numeric bad operator", `{"a":[{"numeric":[">>",1]}]}`, "", "Bad numeric range operator: >>"},
		{"numeric value string", `{"a":[{"numeric":[">","1"]}]}`, "", "Value of > must be numeric"},
		{"numeric upper then lower", `{"a":[{"numeric":["<",5,">",1]}]}`, "", "Bad numeric range operator"},
		{"numeric equals in range", `{"a":[{"numeric":["=",5,"<",6]}]}`, "", "Bad numeric range operator: ="},
		{"numeric empty range", `{"a":[{"numeric":[">",5,"<",5]}]}`, "", "Bottom must be less than top"},
		{"numeric out of range", `{"a":[{"numeric":[">",1000000001]}]}`, "", "out of range"},
		{"number out of range", `{"a":[-1.5e9]}`, "", "out of range"},
		{"cidr malformed", `{"a":[{"cidr":"10.0.0.0"}]}`, "", "Malformed CIDR"},
		{"cidr not string", `{"a":[{"cidr":10}]}`, "", "cidr match pattern must be a string"},
		{"$or not array", `{"$or":{"a":["x"]}}`, "", "$or must be an array of at least 2"},
		{"$or one branch", `{"$or":[{"a":["x"]}]}`, "", "$or must be an array of at least 2"},
		{"$or scalar branch", `{"$or":[{"a":["x"]},"b"]}`, "", "$or must be an array of at least 2"},
		{"$or branch error", `{"$or":[{"a":["x"]},{"b":[]}]}`, "", "Empty arrays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.policy, tt.scope)
			if err == nil {
				t.Fatalf("Parse succeeded (%+v), want error containing %q", p, tt.want)
			}
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not *filter.Error", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		name, policy, scope string
	}{
		{"five keys", `{"a":["1"],"b":["1"],"c":["1"],"d":["1"],"e":["1"]}`, ""},
		{"150 combinations", `{"a":["1","2","3","4","5","6","7","8","9","10"],"b":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15"]}`, ""},
		{"nested keys do not count in body scope", `{"a":{"b":["1"],"c":["1"],"d":["1"],"e":["1"],"f":["1"],"g":["1"]}}`, ScopeMessageBody},
		{"$or branches counted separately", `{"a":["1"],"b":["1"],"c":["1"],"$or":[{"d":["1"],"e":["1"]},{"f":["1"],"g":["1"]}]}`, ""},
		{"boundary numbers", `{"a":[1e9,-1e9,{"numeric":[">=",-1000000000,"<=",1000000000]}]}`, ""},
		{"literals", `{"a":[true,false,null,"x",1.5]}`, ScopeMessageBody},
		{"ipv6 cidr", `{"a":[{"cidr":"2001:db8::/32"}]}`, ""},
		{"empty policy", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.policy, tt.scope)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := tt.scope
			if want == "" {
				want = ScopeMessageAttributes
			}
			if p.Scope() != want {
				t.Fatalf("Scope() = %q, want %q", p.Scope(), want)
			}
		})
	}
}
