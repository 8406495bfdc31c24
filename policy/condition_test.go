package policy

import (
	"strings"
	"testing"
)

// conditionPolicy is a policy allowing everything under one Condition.
func conditionPolicy(cond string) string {
	return `{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Principal": "*", "Action": "*", "Condition": ` + cond + `}}`
}

// ctx builds a request context from key, value pairs.
func ctx(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestConditions(t *testing.T) {
	const arn = "arn:aws:sns:us-east-1:111122223333:orders"
	tests := []struct {
		name string
		cond string
		ctx  map[string]string
		want bool
	}{
		// String operators.
		{"StringEquals equal", `{"StringEquals": {"k": "v"}}`, ctx("k", "v"), true},
		{"StringEquals case matters", `{"StringEquals": {"k": "v"}}`, ctx("k", "V"), false},
		{"StringEquals missing", `{"StringEquals": {"k": "v"}}`, nil, false},
		{"StringEquals no wildcards", `{"StringEquals": {"k": "v*"}}`, ctx("k", "vv"), false},
		{"values are alternatives", `{"StringEquals": {"k": ["a", "b"]}}`, ctx("k", "b"), true},
		{"keys must all hold", `{"StringEquals": {"k": "a", "j": "b"}}`, ctx("k", "a", "j", "c"), false},
		{"keys all hold", `{"StringEquals": {"k": "a", "j": "b"}}`, ctx("k", "a", "j", "b"), true},
		{"operators must all hold", `{"StringEquals": {"k": "a"}, "StringLike": {"j": "x*"}}`, ctx("k", "a", "j", "y"), false},
		{"operators all hold", `{"StringEquals": {"k": "a"}, "StringLike": {"j": "x*"}}`, ctx("k", "a", "j", "xy"), true},
		{"key case ignored", `{"StringEquals": {"AWS:SourceAccount": "1"}}`, ctx("aws:sourceaccount", "1"), true},
		{"number value", `{"StringEquals": {"k": 12.50}}`, ctx("k", "12.50"), true},
		{"boolean value", `{"StringEquals": {"k": [true, "x"]}}`, ctx("k", "true"), true},
		{"StringNotEquals different", `{"StringNotEquals": {"k": "v"}}`, ctx("k", "w"), true},
		{"StringNotEquals equal", `{"StringNotEquals": {"k": "v"}}`, ctx("k", "v"), false},
		{"StringNotEquals one of the values", `{"StringNotEquals": {"k": ["a", "b"]}}`, ctx("k", "b"), false},
		{"StringNotEquals missing holds", `{"StringNotEquals": {"k": "v"}}`, nil, true},
		{"StringEqualsIgnoreCase", `{"StringEqualsIgnoreCase": {"k": "HeLLo"}}`, ctx("k", "hello"), true},
		{"StringEqualsIgnoreCase differs", `{"StringEqualsIgnoreCase": {"k": "hello"}}`, ctx("k", "help"), false},
		{"StringNotEqualsIgnoreCase same", `{"StringNotEqualsIgnoreCase": {"k": "HELLO"}}`, ctx("k", "hello"), false},
		{"StringNotEqualsIgnoreCase missing", `{"StringNotEqualsIgnoreCase": {"k": "HELLO"}}`, nil, true},
		{"StringLike", `{"StringLike": {"k": "ord*-?"}}`, ctx("k", "orders-1"), true},
		{"StringLike case matters", `{"StringLike": {"k": "ord*"}}`, ctx("k", "Orders"), false},
		{"StringLike * crosses colons", `{"StringLike": {"k": "arn:aws:sns:*:orders"}}`, ctx("k", arn), true},
		{"StringLike missing", `{"StringLike": {"k": "*"}}`, nil, false},
		{"StringNotLike", `{"StringNotLike": {"k": ["a*", "b*"]}}`, ctx("k", "cat"), true},
		{"StringNotLike matching", `{"StringNotLike": {"k": ["a*", "b*"]}}`, ctx("k", "bat"), false},
		{"StringNotLike missing", `{"StringNotLike": {"k": "a*"}}`, nil, true},

		// ARN operators.
		{"ArnEquals", `{"ArnEquals": {"aws:SourceArn": "` + arn + `"}}`, ctx("aws:SourceArn", arn), true},
		{"ArnEquals takes wildcards too", `{"ArnEquals": {"aws:SourceArn": "arn:aws:sns:*:111122223333:ord*"}}`, ctx("aws:SourceArn", arn), true},
		{"ArnLike", `{"ArnLike": {"aws:SourceArn": "arn:aws:sns:us-?ast-1:*:orders"}}`, ctx("aws:SourceArn", arn), true},
		{"ArnLike part by part", `{"ArnLike": {"aws:SourceArn": "arn:aws:sns:*:orders"}}`, ctx("aws:SourceArn", arn), false},
		{"ArnLike * does not cross a colon", `{"ArnLike": {"k": "arn:aws:sns:*:111122223333:orders"}}`, ctx("k", "arn:aws:sns:us-east-1:9:111122223333:orders"), false},
		{"ArnLike last part holds colons", `{"ArnLike": {"k": "arn:aws:sqs:r:1:q:*"}}`, ctx("k", "arn:aws:sqs:r:1:q:a:b"), true},
		{"ArnLike case matters", `{"ArnLike": {"k": "arn:aws:sns:*:*:Orders"}}`, ctx("k", arn), false},
		{"ArnLike value not an ARN", `{"ArnLike": {"k": "arn:aws:sns:*:*:*"}}`, ctx("k", "arn:aws:sns"), false},
		{"ArnLike pattern not an ARN", `{"ArnLike": {"k": "*"}}`, ctx("k", arn), false},
		{"ArnLike missing", `{"ArnLike": {"k": "arn:*:*:*:*:*"}}`, nil, false},
		{"ArnNotEquals other", `{"ArnNotEquals": {"k": "` + arn + `"}}`, ctx("k", arn+"2"), true},
		{"ArnNotEquals same", `{"ArnNotEquals": {"k": "` + arn + `"}}`, ctx("k", arn), false},
		{"ArnNotLike missing", `{"ArnNotLike": {"k": "arn:*:*:*:*:*"}}`, nil, true},
		{"ArnNotLike matching", `{"ArnNotLike": {"k": "arn:aws:sns:*:*:*"}}`, ctx("k", arn), false},
		{"ArnNotLike not an ARN", `{"ArnNotLike": {"k": "arn:aws:sns:*:*:*"}}`, ctx("k", "nope"), true},

		// Bool and Null.
		{"Bool true", `{"Bool": {"aws:SecureTransport": "true"}}`, ctx("aws:SecureTransport", "true"), true},
		{"Bool JSON boolean", `{"Bool": {"aws:SecureTransport": true}}`, ctx("aws:SecureTransport", "TRUE"), true},
		{"Bool mismatch", `{"Bool": {"aws:SecureTransport": "True"}}`, ctx("aws:SecureTransport", "false"), false},
		{"Bool missing", `{"Bool": {"aws:SecureTransport": "false"}}`, nil, false},
		{"BoolIfExists missing", `{"BoolIfExists": {"aws:SecureTransport": "false"}}`, nil, true},
		{"Null true, absent", `{"Null": {"k": "true"}}`, nil, true},
		{"Null true, present", `{"Null": {"k": "true"}}`, ctx("k", ""), false},
		{"Null false, present", `{"Null": {"k": false}}`, ctx("K", "x"), true},
		{"Null false, absent", `{"Null": {"k": "false"}}`, ctx("j", "x"), false},

		// Numeric operators.
		{"NumericEquals", `{"NumericEquals": {"n": 10}}`, ctx("n", "10.0"), true},
		{"NumericEquals string value", `{"NumericEquals": {"n": "1e1"}}`, ctx("n", "10"), true},
		{"NumericEquals differs", `{"NumericEquals": {"n": 10}}`, ctx("n", "11"), false},
		{"NumericNotEquals", `{"NumericNotEquals": {"n": [1, 2]}}`, ctx("n", "3"), true},
		{"NumericNotEquals equal", `{"NumericNotEquals": {"n": [1, 2]}}`, ctx("n", "2"), false},
		{"NumericNotEquals missing", `{"NumericNotEquals": {"n": 1}}`, nil, true},
		{"NumericNotEquals not a number", `{"NumericNotEquals": {"n": 1}}`, ctx("n", "one"), false},
		{"NumericLessThan", `{"NumericLessThan": {"n": 5}}`, ctx("n", "4.9"), true},
		{"NumericLessThan equal", `{"NumericLessThan": {"n": 5}}`, ctx("n", "5"), false},
		{"NumericLessThanEquals", `{"NumericLessThanEquals": {"n": 5}}`, ctx("n", "5"), true},
		{"NumericGreaterThan", `{"NumericGreaterThan": {"n": -1}}`, ctx("n", "0"), true},
		{"NumericGreaterThan less", `{"NumericGreaterThan": {"n": 3}}`, ctx("n", "2"), false},
		{"NumericGreaterThanEquals", `{"NumericGreaterThanEquals": {"n": 3}}`, ctx("n", "3"), true},
		{"Numeric values are alternatives", `{"NumericGreaterThan": {"n": [100, 1]}}`, ctx("n", "2"), true},
		{"Numeric not a number", `{"NumericLessThan": {"n": 5}}`, ctx("n", "NaN"), false},
		{"Numeric hex refused", `{"NumericEquals": {"n": 16}}`, ctx("n", "0x10"), false},
		{"Numeric missing", `{"NumericLessThan": {"n": 5}}`, nil, false},
		{"NumericLessThanIfExists missing", `{"NumericLessThanIfExists": {"n": 5}}`, nil, true},

		// IfExists on present keys tests as usual.
		{"StringEqualsIfExists missing", `{"StringEqualsIfExists": {"k": "v"}}`, ctx("j", "v"), true},
		{"StringEqualsIfExists equal", `{"StringEqualsIfExists": {"k": "v"}}`, ctx("k", "v"), true},
		{"StringEqualsIfExists differs", `{"StringEqualsIfExists": {"k": "v"}}`, ctx("k", "w"), false},
		{"StringNotEqualsIfExists equal", `{"StringNotEqualsIfExists": {"k": "v"}}`, ctx("k", "v"), false},
		{"StringNotEqualsIfExists missing", `{"StringNotEqualsIfExists": {"k": "v"}}`, nil, true},
		{"ArnLikeIfExists differs", `{"ArnLikeIfExists": {"k": "arn:aws:sns:*:*:x"}}`, ctx("k", arn), false},

		{"empty Condition", `{}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, conditionPolicy(tt.cond))
			want := NotApplicable
			if tt.want {
				want = Allow
			}
			expect(t, p, []check{{tt.cond, Request{Account: "1", Action: "sqs:SendMessage", Resource: queueARN, Context: tt.ctx}, want}})
		})
	}
}

// TestContextKeySpellings checks that a context holding one key under
// several spellings gives the same answer every time: the spelling that
// sorts first wins.
func TestContextKeySpellings(t *testing.T) {
	p := mustParse(t, conditionPolicy(`{"StringEquals": {"aws:SourceAccount": "1"}}`))
	tests := []struct {
		name string
		ctx  map[string]string
		want Effect
	}{
		{"first spelling matches", ctx("AWS:SourceAccount", "1", "aws:SourceAccount", "2", "aws:sourceaccount", "3"), Allow},
		{"first spelling differs", ctx("AWS:SourceAccount", "2", "aws:SourceAccount", "1"), NotApplicable},
	}
	for _, tt := range tests {
		for range 20 {
			expect(t, p, []check{{tt.name, Request{Action: "sqs:SendMessage", Context: tt.ctx}, tt.want}})
		}
	}
}

func TestOperatorNames(t *testing.T) {
	for op := range operators {
		t.Run(op, func(t *testing.T) {
			value := `"1"`
			if op == "Bool" || op == "Null" {
				value = `"true"`
			}
			mustParse(t, conditionPolicy(`{"`+op+`": {"k": `+value+`}}`))
			ifExists := op + "IfExists"
			_, err := Parse(conditionPolicy(`{"` + ifExists + `": {"k": ` + value + `}}`))
			if (err == nil) == (op == "Null") {
				t.Errorf("Parse with %s: error %v", ifExists, err)
			}
			lower := strings.ToLower(op)
			if e := parseError(t, conditionPolicy(`{"`+lower+`": {"k": `+value+`}}`)); !strings.Contains(e.Message, "not supported") {
				t.Errorf("lower-case operator: %v", e)
			}
		})
	}
}
