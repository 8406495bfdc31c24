package policy

import (
	"strings"
	"testing"
)

func FuzzParseEvaluate(f *testing.F) {
	for _, ex := range awsExamples {
		for _, c := range ex.checks {
			key, value := "aws:SourceArn", ""
			for k, v := range c.req.Context {
				key, value = k, v
				break
			}
			f.Add(ex.doc, c.req.Account, c.req.Service, c.req.Action, c.req.Resource, key, value)
		}
	}
	seeds := []string{
		"",
		"{}",
		`{"Statement": []}`,
		stmt(base),
		stmt(base + `, "Condition": {"NumericLessThanIfExists": {"n": [1, "2e3"]}, "Null": {"k": true}}`),
		stmt(`"Effect": "Deny", "NotPrincipal": {"AWS": ["1", "arn:aws:iam::2:user/u"], "Service": "s"}, "NotAction": "sqs:*", "NotResource": "arn:*"`),
		conditionPolicy(`{"StringNotLikeIfExists": {"k": "a*?b"}, "ArnNotLike": {"aws:SourceArn": "arn:aws:sns:*:*:*"}}`),
		conditionPolicy(`{"ForAnyValue:StringEquals": {"k": "v"}}`),
		`{"Statement": {"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"`,
	}
	for _, doc := range seeds {
		f.Add(doc, "111122223333", "", "sqs:SendMessage", queueARN, "k", "a-b")
	}
	f.Fuzz(func(t *testing.T, doc, account, service, action, resource, key, value string) {
		p, err := Parse(doc)
		if err != nil {
			pe, ok := err.(*Error)
			switch {
			case !ok:
				t.Fatalf("error of type %T: %v", err, err)
			case p != nil:
				t.Fatalf("a policy came with the error %v", err)
			case pe.Message == "" || len(pe.Message) > maxMessage:
				t.Fatalf("message of %d bytes: %q", len(pe.Message), pe.Message)
			}
			return
		}
		if p == nil {
			t.Fatal("no policy and no error")
		}
		if (p.Len() == 0) != (doc == "") {
			t.Fatalf("Len() = %d for %q", p.Len(), doc)
		}
		r := Request{Account: account, Service: service, Action: action, Resource: resource,
			Context: map[string]string{
				key:                  value,
				strings.ToUpper(key): value + "1",
				strings.ToLower(key): "2",
				"aws:SourceArn":      resource,
				"aws:SourceAccount":  account,
			}}
		first := p.Evaluate(r)
		if first != NotApplicable && first != Allow && first != Deny {
			t.Fatalf("Evaluate = %v", first)
		}
		for range 4 {
			if again := p.Evaluate(r); again != first {
				t.Fatalf("Evaluate gave %v, then %v", first, again)
			}
		}
		r.Context = nil
		p.Evaluate(r)
	})
}

func FuzzMatch(f *testing.F) {
	seeds := []struct {
		pattern, s string
		fold       bool
	}{
		{"*", "", false},
		{"a*b?c", "aXXbYc", false},
		{"*ab*ab", "xabyabab", false},
		{"SQS:Send*", "sqs:sendmessage", true},
		{"\u212a*", "k", true},
		{"*??", "\xe2\x82\xac", false},
		{"?", "\xff", false},
		{"arn:aws:sns:*:1:t*", "arn:aws:sns:us-east-1:1:topic", false},
		{"arn:aws:s3:*:*:b", "arn:aws:s3:::b", false},
	}
	for _, s := range seeds {
		f.Add(s.pattern, s.s, s.fold)
	}
	f.Fuzz(func(t *testing.T, pattern, s string, fold bool) {
		got := match(pattern, s, fold)
		if len(pattern) > 256 || len(s) > 1024 {
			return // the reference is slow on long inputs, which slows minimizing
		}
		if want, ok := refMatch(pattern, s, fold); ok && got != want {
			t.Fatalf("match(%q, %q, %v) = %v, the reference says %v", pattern, s, fold, got, want)
		}
		got = matchARN(pattern, s)
		if want, ok := refMatchARN(pattern, s); ok && got != want {
			t.Fatalf("matchARN(%q, %q) = %v, the reference says %v", pattern, s, got, want)
		}
	})
}
