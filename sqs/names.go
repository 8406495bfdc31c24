package sqs

import (
	"net/url"
	"strings"

	"github.com/heraldmq/herald"
)

// FIFOSuffix ends the name of every FIFO queue; it counts toward the
// 80-character limit.
const FIFOSuffix = ".fifo"

// MaxQueueNameLength is the longest queue name SQS accepts, suffix included.
const MaxQueueNameLength = 80

// isNameChar reports whether c may appear in a queue name (before any .fifo
// suffix): ASCII letters, digits, hyphen and underscore.
func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// IsFIFOName reports whether name ends in the .fifo suffix.
func IsFIFOName(name string) bool { return strings.HasSuffix(name, FIFOSuffix) }

// ValidateQueueName checks a queue name: 1 to 80 characters of alphanumerics,
// hyphens and underscores, where a FIFO queue's name ends in ".fifo" (the
// suffix counts toward the 80). It returns InvalidParameterValue otherwise.
func ValidateQueueName(name string) error {
	if err := checkQueueName(name); err != nil {
		return err
	}
	return nil
}

func checkQueueName(name string) *Error {
	bad := func() *Error {
		if IsFIFOName(name) {
			return ErrInvalidParameterValue("The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.")
		}
		return ErrInvalidParameterValue("Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")
	}
	if len(name) == 0 || len(name) > MaxQueueNameLength {
		return bad()
	}
	base := strings.TrimSuffix(name, FIFOSuffix)
	if base == "" {
		return bad()
	}
	for i := 0; i < len(base); i++ {
		if !isNameChar(base[i]) {
			return bad()
		}
	}
	return nil
}

// validAccount reports whether s can serve as the account part of a queue URL
// or ARN. AWS uses 12 digits; Herald accepts any 1 to 64 alphanumerics,
// hyphens or underscores so that deployments may name their tenants.
func validAccount(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

// QueueARN returns arn:aws:sqs:<region>:<account>:<name>.
func QueueARN(region, account, name string) string {
	return "arn:aws:sqs:" + region + ":" + account + ":" + name
}

// ParseQueueARN splits an SQS queue ARN into region, account and name. Any
// AWS partition (aws, aws-cn, aws-us-gov, ...) is accepted. The error is
// InvalidParameterValue.
func ParseQueueARN(arn string) (region, account, name string, err error) {
	parts := strings.Split(arn, ":")
	if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[2] != "sqs" ||
		parts[3] == "" || !validAccount(parts[4]) || checkQueueName(parts[5]) != nil {
		return "", "", "", ErrInvalidParameterValue("Invalid queue ARN: %s", arn)
	}
	return parts[3], parts[4], parts[5], nil
}

// QueueURL returns <scheme>://<host>/<account>/<name>. host is the request's
// Host (with port if any); scheme defaults to "http" when empty.
func QueueURL(scheme, host, account, name string) string {
	if scheme == "" {
		scheme = "http"
	}
	return scheme + "://" + host + "/" + account + "/" + name
}

// ParseQueueURL extracts (region, account, name) from a queue URL. It
// accepts "http(s)://host/account/name" and the bare path "/account/name"
// (with or without the leading slash); a single trailing slash is
// tolerated. region is the one the host names (RegionOfHost), "" when it
// names none (path style: the request's region applies). The host is not
// otherwise checked: any host that reached Herald addresses Herald. The
// error is InvalidAddress for anything else.
func ParseQueueURL(raw string) (region, account, name string, err error) {
	bad := func() (string, string, string, error) {
		return "", "", "", NewError(CodeInvalidAddress, "The address %s is not valid for this endpoint.", herald.Clip(raw))
	}
	path := raw
	if strings.Contains(raw, "://") {
		host, p, ok := splitPlainURL(raw)
		if !ok { // anything unusual: net/url decides
			u, perr := url.Parse(raw)
			if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
				u.RawQuery != "" || u.Fragment != "" {
				return bad()
			}
			host, p = u.Host, u.Path
		}
		path, region = p, RegionOfHost(host)
	}
	path = strings.TrimPrefix(path, "/")
	path = strings.TrimSuffix(path, "/")
	account, name, ok := strings.Cut(path, "/")
	if !ok || strings.Contains(name, "/") || !validAccount(account) || checkQueueName(name) != nil {
		return bad()
	}
	return region, account, name, nil
}
