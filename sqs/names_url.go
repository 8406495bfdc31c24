package sqs

import "strings"

// splitPlainURL splits the queue URLs clients send,
// http(s)://host[:port]/path with a host of letters, digits, dots and
// hyphens and a path of queue-name characters and slashes, into host and
// path without net/url, which costs an allocation and most of a
// microsecond per call. It answers only where net/url.Parse would give
// that scheme, Host and Path, no query nor fragment, and no error; for
// anything else (upper-case schemes, user info, IPv6 literals, escapes,
// queries, other characters) ok is false and ParseQueueURL asks net/url.
// names_url_test.go compares the two on fuzzed input.
func splitPlainURL(raw string) (host, path string, ok bool) {
	rest, found := strings.CutPrefix(raw, "http://")
	if !found {
		if rest, found = strings.CutPrefix(raw, "https://"); !found {
			return "", "", false
		}
	}
	host, path = rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if !plainHost(host) {
		return "", "", false
	}
	for i := 0; i < len(path); i++ {
		if c := path[i]; !isNameChar(c) && c != '.' && c != '/' {
			return "", "", false
		}
	}
	return host, path, true
}

// plainHost reports whether host is a name of letters, digits, dots and
// hyphens that begins with a letter or digit, optionally followed by a
// colon and a port of digits (possibly none, as net/url allows).
func plainHost(host string) bool {
	name, port, _ := strings.Cut(host, ":")
	if name == "" || !isAlnum(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '.' && c != '-' {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
