package sqs

import (
	"strings"
	"testing"
)

func TestValidateBody(t *testing.T) {
	tests := []struct {
		name, body, code string
	}{
		{"ascii", "hello", ""},
		{"whitespace", "\t\n\r ", ""},
		{"bmp edge", "\uD7FF\uE000\uFFFD", ""},
		{"astral", "\U00010000\U0010FFFF 😀", ""},
		{"empty", "", CodeMissingParameter},
		{"nul", "a\x00b", CodeInvalidMessageContents},
		{"control", "a\x1fb", CodeInvalidMessageContents},
		{"fffe", "a\uFFFEb", CodeInvalidMessageContents},
		{"ffff", "\uFFFF", CodeInvalidMessageContents},
		{"invalid utf8", "a\xffb", CodeInvalidMessageContents},
		{"surrogate bytes", "\xed\xa0\x80", CodeInvalidMessageContents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, ValidateBody(tt.body), tt.code)
		})
	}
}

func TestAllowedRune(t *testing.T) {
	tests := []struct {
		r  rune
		ok bool
	}{
		{0x8, false}, {0x9, true}, {0xA, true}, {0xB, false}, {0xD, true}, {0x1F, false}, {0x20, true},
		{0xD7FF, true}, {0xD800, false}, {0xDFFF, false}, {0xE000, true}, {0xFFFD, true}, {0xFFFE, false},
		{0x10000, true}, {0x10FFFF, true}, {0x110000, false},
	}
	for _, tt := range tests {
		if got := AllowedRune(tt.r); got != tt.ok {
			t.Errorf("AllowedRune(%#x) = %v", tt.r, got)
		}
	}
}

func TestMessageSize(t *testing.T) {
	attrs := map[string]MessageAttributeValue{
		"n": {DataType: "Number", StringValue: "12"},            // 1+6+2
		"b": {DataType: "Binary", BinaryValue: []byte{1, 2, 3}}, // 1+6+3
	}
	if got := MessageSize("héllo", attrs); got != 6+9+10 {
		t.Errorf("MessageSize = %d", got)
	}
	wantCode(t, CheckMessageSize(262144, 262144), "")
	wantCode(t, CheckMessageSize(262145, 262144), CodeInvalidParameterValue)
}

func TestValidateMessageAttributeName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"a", true}, {"my.attr-1_x", true}, {strings.Repeat("a", 256), true},
		{"", false}, {strings.Repeat("a", 257), false},
		{"AWS.x", false}, {"aws.x", false}, {"Amazon.x", false}, {"AMAZON.x", false}, {"AWSx", true},
		{".a", false}, {"a.", false}, {"a..b", false}, {"a b", false}, {"a/b", false},
		// Letters and digits of any script, as AWS accepts them; the
		// length counts characters, not bytes.
		{"ü", true}, {"größe", true}, {"名前", true}, {"имя.2", true}, {"٣", true}, {strings.Repeat("é", 256), true},
		{strings.Repeat("é", 257), false}, {"a\u00a0b", false}, {"emoji😀", false}, {"bad\xffutf8", false}, {"a\x00", false},
	}
	for _, tt := range tests {
		err := ValidateMessageAttributeName(tt.name, 256)
		if tt.ok {
			wantCode(t, err, "")
		} else {
			wantCode(t, err, CodeInvalidParameterValue)
		}
	}
}

func TestValidateMessageAttributes(t *testing.T) {
	lim := DefaultLimits()
	type a = MessageAttributeValue
	type m = map[string]MessageAttributeValue
	many := m{}
	for i := range 11 {
		many[string(rune('a'+i))] = a{DataType: "String", StringValue: "v"}
	}
	tests := []struct {
		name  string
		attrs m
		code  string
	}{
		{"none", nil, ""},
		{"all kinds", m{"s": {DataType: "String", StringValue: "x"}, "n": {DataType: "Number", StringValue: "-1.5e3"},
			"b": {DataType: "Binary", BinaryValue: []byte{0}}, "c": {DataType: "String.custom", StringValue: "x"},
			"f": {DataType: "Number.float", StringValue: "42"}, "g": {DataType: "Binary.gif", BinaryValue: []byte{1}}}, ""},
		{"eleven", many, CodeInvalidParameterValue},
		{"bad name", m{"AWS.x": {DataType: "String", StringValue: "x"}}, CodeInvalidParameterValue},
		{"bad type", m{"x": {DataType: "Text", StringValue: "x"}}, CodeInvalidParameterValue},
		{"empty type", m{"x": {StringValue: "x"}}, CodeInvalidParameterValue},
		{"empty custom", m{"x": {DataType: "String.", StringValue: "x"}}, CodeInvalidParameterValue},
		{"bad custom", m{"x": {DataType: "String.a b", StringValue: "x"}}, CodeInvalidParameterValue},
		{"type too long", m{"x": {DataType: "String." + strings.Repeat("t", 250), StringValue: "x"}}, CodeInvalidParameterValue},
		{"empty string", m{"x": {DataType: "String"}}, CodeInvalidParameterValue},
		{"empty binary", m{"x": {DataType: "Binary"}}, CodeInvalidParameterValue},
		{"binary with string", m{"x": {DataType: "Binary", StringValue: "x"}}, CodeInvalidParameterValue},
		{"string with binary", m{"x": {DataType: "String", StringValue: "x", BinaryValue: []byte{1}}}, CodeInvalidParameterValue},
		{"bad number", m{"x": {DataType: "Number", StringValue: "12abc"}}, CodeInvalidParameterValue},
		{"bad chars", m{"x": {DataType: "String", StringValue: "a\x00"}}, CodeInvalidParameterValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, ValidateMessageAttributes(tt.attrs, lim), tt.code)
		})
	}
}

func TestBaseDataType(t *testing.T) {
	tests := map[string]string{"String": "String", "Number.int": "Number", "Binary.x.y": "Binary", "Str": "", "": "", "string": ""}
	for in, want := range tests {
		if got := BaseDataType(in); got != want {
			t.Errorf("BaseDataType(%q) = %q, want %q", in, got, want)
		}
	}
}
