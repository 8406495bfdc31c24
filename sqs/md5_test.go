package sqs

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"sort"
	"strings"
	"testing"
)

func TestMD5OfBody(t *testing.T) {
	tests := []struct{ body, want string }{
		// The value aws-sdk-go-v2's SQS checksum tests expect for "test".
		{"test", "098f6bcd4621d373cade4e832627b4f6"},
		{"", "d41d8cd98f00b204e9800998ecf8427e"}, // RFC 1321 test suite
		{"abc", "900150983cd24fb0d6963f7d28e17f72"},
	}
	for _, tt := range tests {
		if got := MD5OfBody(tt.body); got != tt.want {
			t.Errorf("MD5OfBody(%q) = %s, want %s", tt.body, got, tt.want)
		}
	}
}

// refAttributesMD5 is a second, deliberately plain implementation of the
// encoding, used to cross-check MD5OfMessageAttributes.
func refAttributesMD5(t *testing.T, attrs map[string]MessageAttributeValue) string {
	t.Helper()
	if len(attrs) == 0 {
		return ""
	}
	var names []string
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	put := func(b []byte) {
		l := len(b)
		buf.Write([]byte{byte(l >> 24), byte(l >> 16), byte(l >> 8), byte(l)})
		buf.Write(b)
	}
	for _, n := range names {
		a := attrs[n]
		put([]byte(n))
		put([]byte(a.DataType))
		if a.BinaryValue != nil {
			buf.WriteByte(2)
			put(a.BinaryValue)
		} else {
			buf.WriteByte(1)
			put([]byte(a.StringValue))
		}
	}
	sum := md5.Sum(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

func TestMD5OfMessageAttributes(t *testing.T) {
	str := MessageAttributeValue{DataType: "String", StringValue: "attribValue 1"}
	num := MessageAttributeValue{DataType: "Number.float", StringValue: "4563442423554324324264524243.32543234"}
	bin := MessageAttributeValue{DataType: "Binary", BinaryValue: []byte("Hello binary world!")}
	tests := []struct {
		name  string
		attrs map[string]MessageAttributeValue
		want  string // published vector, "" to rely on the reference only
	}{
		{"none", nil, ""},
		// Vectors published with the npm package aws-md5-of-message-attributes.
		{"string", map[string]MessageAttributeValue{"attribName1": str}, "19e27d4e946b072f3f58da80d94fd778"},
		{"custom number", map[string]MessageAttributeValue{"customNumberTypeAttrib": num}, "9fe1b90bbd9965bdf77bac517c7d2495"},
		{"binary", map[string]MessageAttributeValue{"binaryAttribute": bin}, "31a92b15d92f8db860eda32aceb656c3"},
		{"three", map[string]MessageAttributeValue{"attribName1": str, "customNumberTypeAttrib": num, "binaryAttribute": bin}, "c932db14a896c663f83c260297d594ff"},
		{"unicode", map[string]MessageAttributeValue{"b": {DataType: "String.ü", StringValue: "héllo ✓"}, "a": {DataType: "Binary.gif", BinaryValue: []byte{0, 1, 2}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MD5OfMessageAttributes(tt.attrs)
			if ref := refAttributesMD5(t, tt.attrs); got != ref {
				t.Errorf("got %s, reference implementation %s", got, ref)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("got %s, published vector %s", got, tt.want)
			}
		})
	}
}

// The body's digest must not depend on how it is fed to MD5: bodies of
// every length around the block size and beyond agree with md5.Sum of a
// copy.
func TestMD5OfBodyMatchesCopy(t *testing.T) {
	for n := range 300 {
		body := strings.Repeat("héllo ✓ ", n)[:n*3/2]
		sum := md5.Sum([]byte(body))
		if got, want := MD5OfBody(body), hex.EncodeToString(sum[:]); got != want {
			t.Fatalf("MD5OfBody(%d bytes) = %s, want %s", len(body), got, want)
		}
	}
}

// BenchmarkMD5OfBody digests a 1 KiB body, the size of herald bench's
// messages; it should allocate only the 32-byte answer.
func BenchmarkMD5OfBody(b *testing.B) {
	body := strings.Repeat("0123456789abcdef", 64)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		MD5OfBody(body)
	}
}

// BenchmarkMD5OfMessageAttributes digests two attributes, as a message
// carrying a trace id and a type might.
func BenchmarkMD5OfMessageAttributes(b *testing.B) {
	attrs := map[string]MessageAttributeValue{
		"trace": {DataType: "String", StringValue: "1-5759e988-bd862e3fe1be46a994272793"},
		"kind":  {DataType: "Binary", BinaryValue: []byte("order.created")},
	}
	b.ReportAllocs()
	for b.Loop() {
		MD5OfMessageAttributes(attrs)
	}
}

func TestBodyDigest(t *testing.T) {
	body := "hello"
	sum := MD5OfBody(body)
	tests := []struct {
		name, kept, want string
	}{
		{"kept at send", sum, sum},
		{"not kept", "", sum},
		{"kept digest of another body wins (taken at send)", MD5OfBody("other"), MD5OfBody("other")},
		{"malformed kept digest is ignored", "abc", sum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Message{Body: body, BodyMD5: tt.kept}
			if got := m.BodyDigest(); got != tt.want {
				t.Errorf("BodyDigest() = %q, want %q", got, tt.want)
			}
		})
	}
}
