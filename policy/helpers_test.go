package policy

import (
	"errors"
	"testing"
)

// check is one request and the effect a policy must give it.
type check struct {
	name string
	req  Request
	want Effect
}

// mustParse parses doc or fails the test.
func mustParse(t *testing.T, doc string) *Policy {
	t.Helper()
	p, err := Parse(doc)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	return p
}

// expect evaluates every check against p.
func expect(t *testing.T, p *Policy, checks []check) {
	t.Helper()
	for _, c := range checks {
		if got := p.Evaluate(c.req); got != c.want {
			t.Errorf("%s: Evaluate(%+v) = %v, want %v", c.name, c.req, got, c.want)
		}
	}
}

// parseError parses doc, which must fail, and returns the *Error.
func parseError(t *testing.T, doc string) *Error {
	t.Helper()
	p, err := Parse(doc)
	if err == nil {
		t.Fatalf("Parse succeeded (%d statements), want an error\n%s", p.Len(), doc)
	}
	if p != nil {
		t.Errorf("Parse returned a policy with its error %v", err)
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("Parse error %T %v, want *Error", err, err)
	}
	if len(pe.Message) > maxMessage {
		t.Errorf("message is %d bytes, more than %d: %s", len(pe.Message), maxMessage, pe.Message)
	}
	return pe
}
