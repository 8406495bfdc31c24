package policy

import (
	"strings"
	"testing"
)

// stmt wraps statement members into a policy with that one statement.
func stmt(members string) string {
	return `{"Version": "2012-10-17", "Statement": [{` + members + `}]}`
}

// base are the members of a minimal valid statement.
const base = `"Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage"`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string // a part of the message
	}{
		{"malformed JSON", `{"Statement": [`, "not valid JSON"},
		{"malformed JSON names the place", `{"Statement": x}`, "invalid character 'x'"},
		{"trailing data", `{"Statement": {}} {}`, "not valid JSON"},
		{"whitespace only", ` `, "not valid JSON"},
		{"array document", `[]`, "the policy must be a JSON object, got an array"},
		{"string document", `"policy"`, `got the string "policy"`},
		{"null document", `null`, "must be a JSON object, got null"},
		{"too large", `{"Id": "` + strings.Repeat("x", maxDocumentSize) + `"}`, "at most 20480"},
		{"unknown document member", `{"Statement": {` + base + `}, "Statements": []}`, `unknown member "Statements"`},
		{"member names are case-sensitive", `{"statement": {` + base + `}}`, `unknown member "statement"`},
		{"duplicate document member", `{"Id": "a", "Id": "b", "Statement": {` + base + `}}`, `member "Id" appears more than once`},
		{"bad Version", `{"Version": "2013-01-01", "Statement": {` + base + `}}`, `Version: must be "2012-10-17" or "2008-10-17", got "2013-01-01"`},
		{"empty Version", `{"Version": "", "Statement": {` + base + `}}`, `Version: must be`},
		{"Version not a string", `{"Version": 2012, "Statement": {` + base + `}}`, `Version: must be a string, got the number "2012"`},
		{"Id not a string", `{"Id": ["a"], "Statement": {` + base + `}}`, `Id: must be a string, got an array`},
		{"missing Statement", `{"Version": "2012-10-17"}`, "Statement: missing"},
		{"empty Statement", `{"Statement": []}`, "Statement: must not be empty"},
		{"Statement a string", `{"Statement": "allow"}`, "Statement: must be an object or an array of objects"},
		{"Statement null", `{"Statement": null}`, "Statement: must be an object or an array of objects, got null"},
		{"statement not an object", `{"Statement": [{` + base + `}, 7]}`, "Statement[1]: must be an object"},
		{"unknown statement member", stmt(base + `, "Actions": "sqs:*"`), `Statement[0]: unknown member "Actions"`},
		{"statement members are case-sensitive", stmt(base + `, "resource": "*"`), `unknown member "resource"`},
		{"duplicate statement member", stmt(base + `, "Effect": "Deny"`), `Statement[0]: member "Effect" appears more than once`},
		{"Sid not a string", stmt(base + `, "Sid": 1`), "Statement[0].Sid: must be a string"},
		{"bad Effect", stmt(`"Effect": "Permit", "Principal": "*", "Action": "*"`), `Statement[0].Effect: must be "Allow" or "Deny", got "Permit"`},
		{"Effect case", stmt(`"Effect": "allow", "Principal": "*", "Action": "*"`), `Statement[0].Effect: must be "Allow" or "Deny", got "allow"`},
		{"Effect not a string", stmt(`"Effect": true, "Principal": "*", "Action": "*"`), `Statement[0].Effect: must be a string, got a boolean`},
		{"missing Effect", stmt(`"Principal": "*", "Action": "*"`), "Statement[0]: missing Effect"},
		{"missing Principal", stmt(`"Effect": "Allow", "Action": "*"`), "Statement[0]: missing Principal"},
		{"Principal and NotPrincipal", stmt(base + `, "NotPrincipal": {"AWS": "1"}`), "Statement[0]: has both Principal and NotPrincipal"},
		{"missing Action", stmt(`"Effect": "Allow", "Principal": "*"`), "Statement[0]: missing Action"},
		{"Action and NotAction", stmt(base + `, "NotAction": "sqs:*"`), "Statement[0]: has both Action and NotAction"},
		{"Resource and NotResource", stmt(base + `, "Resource": "*", "NotResource": "arn:aws:sqs:*:1:q"`), "Statement[0]: has both Resource and NotResource"},
		{"Principal a plain string", stmt(`"Effect": "Allow", "Principal": "111122223333", "Action": "*"`), `Statement[0].Principal: as a string must be "*", got "111122223333"`},
		{"Principal an array", stmt(`"Effect": "Allow", "Principal": ["*"], "Action": "*"`), `Statement[0].Principal: must be "*" or an object, got an array`},
		{"Principal empty", stmt(`"Effect": "Allow", "Principal": {}, "Action": "*"`), "Statement[0].Principal: names no principal"},
		{"Principal type", stmt(`"Effect": "Allow", "Principal": {"CanonicalUser": "abc"}, "Action": "*"`), `Statement[0].Principal: principal type "CanonicalUser" is not supported`},
		{"Principal type case", stmt(`"Effect": "Allow", "Principal": {"aws": "1"}, "Action": "*"`), `principal type "aws" is not supported`},
		{"bad AWS principal", stmt(`"Effect": "Allow", "Principal": {"AWS": "not an account"}, "Action": "*"`), `Statement[0].Principal.AWS: must be "*", an account ID or an IAM ARN`},
		{"wildcard account", stmt(`"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::*:root"}, "Action": "*"`), `got "arn:aws:iam::*:root"`},
		{"wildcard user", stmt(`"Effect": "Allow", "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:user/*"}, "Action": "*"`), `Statement[0].NotPrincipal.AWS: must be`},
		{"not an IAM ARN", stmt(`"Effect": "Allow", "Principal": {"AWS": "arn:aws:sqs:us-east-1:111122223333:q"}, "Action": "*"`), `Statement[0].Principal.AWS: must be`},
		{"IAM group", stmt(`"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:group/g"}, "Action": "*"`), `Statement[0].Principal.AWS: must be`},
		{"empty AWS list", stmt(`"Effect": "Allow", "Principal": {"AWS": []}, "Action": "*"`), "Statement[0].Principal.AWS: must not be an empty array"},
		{"AWS list member", stmt(`"Effect": "Allow", "Principal": {"AWS": ["1", 2]}, "Action": "*"`), `Statement[0].Principal.AWS[1]: must be a string, got the number "2"`},
		{"empty Service", stmt(`"Effect": "Allow", "Principal": {"Service": ""}, "Action": "*"`), "Statement[0].Principal.Service: must not be an empty string"},
		{"Action empty", stmt(`"Effect": "Allow", "Principal": "*", "Action": ""`), "Statement[0].Action: must not be an empty string"},
		{"Action without service", stmt(`"Effect": "Allow", "Principal": "*", "Action": "SendMessage"`), `Statement[0].Action: must be "*" or SERVICE:ACTION, such as "sqs:SendMessage", got "SendMessage"`},
		{"NotAction not a string", stmt(`"Effect": "Allow", "Principal": "*", "NotAction": {}`), `Statement[0].NotAction: must be a string or an array of strings, got an object`},
		{"Action list member", stmt(`"Effect": "Allow", "Principal": "*", "Action": ["sqs:*", null]`), "Statement[0].Action[1]: must be a string, got null"},
		{"Resource not an ARN", stmt(base + `, "Resource": "/444455556666/queue1"`), `Statement[0].Resource: must be "*" or an ARN, got "/444455556666/queue1"`},
		{"NotResource empty", stmt(base + `, "NotResource": []`), "Statement[0].NotResource: must not be an empty array"},
		{"Condition not an object", stmt(base + `, "Condition": []`), "Statement[0].Condition: must be an object, got an array"},
		{"unknown operator", stmt(base + `, "Condition": {"DateLessThan": {"aws:CurrentTime": "2030-01-01T00:00:00Z"}}`), `Statement[0].Condition: operator "DateLessThan" is not supported`},
		{"IpAddress", stmt(base + `, "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}`), `operator "IpAddress" is not supported`},
		{"set operator", stmt(base + `, "Condition": {"ForAnyValue:StringEquals": {"k": "v"}}`), `operator "ForAnyValue:StringEquals" is not supported (the set operators`},
		{"set operator all", stmt(base + `, "Condition": {"ForAllValues:StringLike": {"k": "v"}}`), `operator "ForAllValues:StringLike" is not supported`},
		{"NullIfExists", stmt(base + `, "Condition": {"NullIfExists": {"k": "true"}}`), `operator "NullIfExists" is not supported`},
		{"operator case", stmt(base + `, "Condition": {"stringEquals": {"k": "v"}}`), `operator "stringEquals" is not supported`},
		{"operator not an object", stmt(base + `, "Condition": {"StringEquals": "v"}`), "Statement[0].Condition.StringEquals: must be an object, got the string"},
		{"operator without keys", stmt(base + `, "Condition": {"StringEquals": {}}`), "Statement[0].Condition.StringEquals: names no condition key"},
		{"empty key", stmt(base + `, "Condition": {"StringEquals": {"": "v"}}`), `Statement[0].Condition.StringEquals."": the condition key must not be empty`},
		{"duplicate key", stmt(base + `, "Condition": {"StringEquals": {"k": "v", "k": "w"}}`), `Statement[0].Condition.StringEquals: member "k" appears more than once`},
		{"object value", stmt(base + `, "Condition": {"StringEquals": {"aws:SourceArn": {"a": 1}}}`), "Statement[0].Condition.StringEquals.aws:SourceArn: must be a string, number or boolean, or an array of them, got an object"},
		{"null value", stmt(base + `, "Condition": {"StringLike": {"k": null}}`), "Statement[0].Condition.StringLike.k: must be a string, number or boolean, or an array of them, got null"},
		{"nested array", stmt(base + `, "Condition": {"StringLike": {"k": ["a", ["b"]]}}`), "Statement[0].Condition.StringLike.k[1]: must be a string, number or boolean"},
		{"empty values", stmt(base + `, "Condition": {"StringLike": {"k": []}}`), "Statement[0].Condition.StringLike.k: must not be an empty array"},
		{"Bool value", stmt(base + `, "Condition": {"Bool": {"aws:SecureTransport": "yes"}}`), `Statement[0].Condition.Bool.aws:SecureTransport: must be "true" or "false", got "yes"`},
		{"Null value", stmt(base + `, "Condition": {"Null": {"k": 1}}`), `Statement[0].Condition.Null.k: must be "true" or "false", got "1"`},
		{"Numeric value", stmt(base + `, "Condition": {"NumericLessThan": {"n": "ten"}}`), `Statement[0].Condition.NumericLessThan.n: must be a number, got "ten"`},
		{"Numeric infinity", stmt(base + `, "Condition": {"NumericLessThan": {"n": "Inf"}}`), `must be a number, got "Inf"`},
		{"Numeric overflow", stmt(base + `, "Condition": {"NumericLessThan": {"n": 1e999}}`), `must be a number, got "1e999"`},
		{"odd key quoted in path", stmt(base + `, "Condition": {"StringEquals": {"a.b c": []}}`), `Statement[0].Condition.StringEquals."a.b c": must not be an empty array`},
		{"second statement", `{"Statement": [{` + base + `}, {"Effect": "Deny", "Principal": "*"}]}`, "Statement[1]: missing Action"},
		{"single statement path", `{"Statement": {"Effect": "Deny", "Principal": "*"}}`, "Statement: missing Action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseError(t, tt.doc)
			if !strings.Contains(e.Message, tt.want) {
				t.Errorf("message %q\ndoes not contain %q", e.Message, tt.want)
			}
			if e.Error() != e.Message {
				t.Errorf("Error() = %q, want the message", e.Error())
			}
		})
	}
}

// TestParseErrorEcho checks that an error quotes little of a long input and
// stays short, whatever the input holds.
func TestParseErrorEcho(t *testing.T) {
	long := strings.Repeat("\u00e9\x01\"", 3000)
	tests := []struct {
		name string
		doc  string
	}{
		{"long Effect", stmt(`"Effect": "` + strings.Repeat("A", 5000) + `", "Principal": "*", "Action": "*"`)},
		{"escaped Effect", stmt(`"Effect": "` + strings.Repeat(`\u0001\u00e9`, 1000) + `", "Principal": "*", "Action": "*"`)},
		{"long member name", stmt(base + `, "` + strings.Repeat("M", 3000) + `": 1`)},
		{"long operator and key", stmt(base + `, "Condition": {"` + strings.Repeat("O", 3000) + `": {}}`)},
		{"long key", stmt(base + `, "Condition": {"StringEquals": {"` + strings.Repeat("k.", 2000) + `": null}}`)},
		{"long number", stmt(base + `, "Condition": {"NumericEquals": {"n": ` + strings.Repeat("9", 5000) + `e9999}}`)},
		{"syntax error in a long line", `{"Id": "` + strings.Repeat("x", 5000) + `" ` + long[:1000]},
		{"invalid UTF-8", "{\"Statement\": {\"Effect\": \"\xff\xfe\", \"Principal\": \"*\", \"Action\": \"*\"}}"},
		{"not JSON at all", long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseError(t, tt.doc)
			if n := longestQuote(e.Message); n > 210 {
				t.Errorf("message quotes %d bytes: %s", n, e.Message)
			}
			for i := 0; i < len(e.Message); i++ {
				if c := e.Message[i]; c < ' ' || c > '~' {
					t.Fatalf("message has byte %#x: %q", c, e.Message)
				}
			}
		})
	}
}

// longestQuote returns the length of the longest run of the message
// between double quotes.
func longestQuote(msg string) int {
	longest, start := 0, -1
	for i := 0; i < len(msg); i++ {
		switch {
		case msg[i] == '\\':
			i++
		case msg[i] == '"' && start < 0:
			start = i
		case msg[i] == '"':
			longest = max(longest, i-start+1)
			start = -1
		}
	}
	return longest
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want int // statements
	}{
		{"empty policy", ``, 0},
		{"no Version", `{"Statement": {` + base + `}}`, 1},
		{"2008 Version", `{"Version": "2008-10-17", "Statement": [{` + base + `}]}`, 1},
		{"padded", " \n\t" + `{"Statement": [{` + base + `}, {` + base + `}]}` + "\n ", 2},
		{"escaped names", `{"\u0053tatement": {"Effect": "\u0041llow", "Principal": "*", "Action": "*"}}`, 1},
		{"empty Sid and Id", `{"Id": "", "Statement": {"Sid": "", ` + base + `}}`, 1},
		{"Resource list", stmt(base + `, "Resource": ["*", "arn:aws:sqs:*:1:q"]`), 1},
		{"Service list", stmt(`"Effect": "Deny", "Principal": {"Service": ["sns.amazonaws.com", "events.amazonaws.com"], "AWS": "*"}, "Action": "*"`), 1},
		{"sts principal", stmt(`"Effect": "Deny", "Principal": {"AWS": "arn:aws:sts::111122223333:assumed-role/r/s"}, "Action": "*"`), 1},
		{"China partition", stmt(`"Effect": "Deny", "Principal": {"AWS": "arn:aws-cn:iam::111122223333:root"}, "Action": "*"`), 1},
		{"values of every type", stmt(base + `, "Condition": {"StringEquals": {"a": ["x", 1, -2.5e3, true, false]}, "NumericEquals": {"n": [1, "2", -3.5]}}`), 1},
		{"largest size", `{"Statement": {` + base + `}, "Id": "` + strings.Repeat("x", maxDocumentSize-len(`{"Statement": {`+base+`}, "Id": ""}`)) + `"}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustParse(t, tt.doc).Len(); got != tt.want {
				t.Errorf("Len() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEmptyPolicies(t *testing.T) {
	var nilPolicy *Policy
	r := Request{Account: "1", Action: "sqs:SendMessage", Resource: queueARN}
	for name, p := range map[string]*Policy{"parsed from empty": mustParse(t, ""), "nil": nilPolicy} {
		if got := p.Evaluate(r); got != NotApplicable {
			t.Errorf("%s: Evaluate = %v", name, got)
		}
		if p.Len() != 0 {
			t.Errorf("%s: Len = %d", name, p.Len())
		}
	}
}

func TestEffectString(t *testing.T) {
	tests := []struct {
		e    Effect
		want string
	}{
		{NotApplicable, "NotApplicable"},
		{Allow, "Allow"},
		{Deny, "Deny"},
		{Effect(7), "Effect(7)"},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("Effect(%d).String() = %q, want %q", int(tt.e), got, tt.want)
		}
	}
}
