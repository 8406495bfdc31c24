package sqs

import (
	"net/url"
	"strings"
	"testing"

	"github.com/heraldmq/herald"
)

// refParseQueueURL is ParseQueueURL as it was before it had a fast path:
// every URL through net/url. The fast parser must answer exactly as it
// does.
func refParseQueueURL(raw string) (region, account, name string, err error) {
	bad := func() (string, string, string, error) {
		return "", "", "", NewError(CodeInvalidAddress, "The address %s is not valid for this endpoint.", herald.Clip(raw))
	}
	path := raw
	if strings.Contains(raw, "://") {
		u, perr := url.Parse(raw)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.RawQuery != "" || u.Fragment != "" {
			return bad()
		}
		path, region = u.Path, RegionOfHost(u.Host)
	}
	path = strings.TrimPrefix(path, "/")
	path = strings.TrimSuffix(path, "/")
	account, name, ok := strings.Cut(path, "/")
	if !ok || strings.Contains(name, "/") || !validAccount(account) || checkQueueName(name) != nil {
		return bad()
	}
	return region, account, name, nil
}

// queueURLSeeds are URL shapes clients send, and odd ones.
var queueURLSeeds = []string{
	"http://localhost:4566/000000000000/q",
	"https://localhost:4566/000000000000/q",
	"http://127.0.0.1:9324/000000000000/orders.fifo",
	"http://[::1]:4566/000000000000/q",
	"http://[fe80::1%25eth0]:4566/000000000000/q",
	"https://sqs.us-east-1.amazonaws.com/123456789012/orders",
	"https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo",
	"http://sqs.eu-west-1.localhost:4566/000000000000/q",
	"http://SQS.EU-WEST-1.LOCALHOST:4566/000000000000/q",
	"https://eu-central-1.queue.amazonaws.com/123456789012/q",
	"https://queue.amazonaws.com/123456789012/q",
	"http://sqs.localhost:4566/000000000000/q",
	"http://herald:4566/tenant_a/q-1",
	"http://h/123456789012/q/",
	"http://h/123456789012/q//",
	"http://h//123456789012/q",
	"http://h/123456789012",
	"http://h/a/b/c",
	"http://h",
	"http://h:",
	"http://h:abc/a/q",
	"http://h:80:80/a/q",
	"http://:80/a/q",
	"http:///a/q",
	"ftp://h/a/q",
	"HTTP://h/a/q",
	"Https://h/a/q",
	"http:/h/a/q",
	"http:h/a/q",
	"http://h/a/q?x=1",
	"http://h/a/q?",
	"http://h/a/q#frag",
	"http://h/a/q#",
	"http://user@h/a/q",
	"http://user:pw@h/a/q",
	"http://h/a/bad name",
	"http://h/a/%71",
	"http://h/%61/q",
	"http://h/a/q%2F",
	"http://h/a/q%zz",
	"http://h%2Ex/a/q",
	"http://h x/a/q",
	"http://h_x/a/q",
	"http://h~x/a/q",
	"http://h!x/a/q",
	"http://h/a/q\x00",
	"http://h\t/a/q",
	"http://h/a/qé",
	"http://hé/a/q",
	"http://h/a/q.fifo",
	"http://h/a/.fifo",
	"http://h/a/" + strings.Repeat("q", 81),
	"http://h/" + strings.Repeat("a", 65) + "/q",
	"x://y://h/a/q",
	"http://h/a/q://",
	"/123456789012/q",
	"123456789012/q",
	"/a/",
	"",
	"q",
	"://",
	"http://",
}

func TestParseQueueURLMatchesNetURL(t *testing.T) {
	for _, raw := range queueURLSeeds {
		checkParseQueueURL(t, raw)
	}
}

// FuzzParseQueueURL compares ParseQueueURL with the net/url reference on
// any input: go test ./sqs -run x -fuzz FuzzParseQueueURL.
func FuzzParseQueueURL(f *testing.F) {
	for _, raw := range queueURLSeeds {
		f.Add(raw)
	}
	f.Fuzz(checkParseQueueURL)
}

func checkParseQueueURL(t *testing.T, raw string) {
	r, a, n, err := ParseQueueURL(raw)
	wr, wa, wn, werr := refParseQueueURL(raw)
	if r != wr || a != wa || n != wn || (err == nil) != (werr == nil) ||
		(err != nil && err.Error() != werr.Error()) {
		t.Fatalf("ParseQueueURL(%q) = %q %q %q %v, net/url reference %q %q %q %v", raw, r, a, n, err, wr, wa, wn, werr)
	}
}

// BenchmarkParseQueueURL parses the URL shapes SDKs send.
func BenchmarkParseQueueURL(b *testing.B) {
	for name, raw := range map[string]string{
		"localhost":  "http://localhost:4566/000000000000/herald-bench-q",
		"aws":        "https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo",
		"path":       "/000000000000/herald-bench-q",
		"user-info":  "http://user@localhost:4566/000000000000/q", // the net/url path
		"percent":    "http://localhost:4566/000000000000/%71",    // likewise
		"not-an-url": "herald-bench-q",
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ParseQueueURL(raw)
			}
		})
	}
}
