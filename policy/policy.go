package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// maxDocumentSize is the largest policy Parse accepts, AWS's limit for an
// SQS queue's Policy attribute.
const maxDocumentSize = 20480

// Effect is the outcome of evaluating a policy.
type Effect int

// The outcomes of Evaluate.
const (
	NotApplicable Effect = iota // no statement matched
	Allow
	Deny
)

// String returns the name of the effect.
func (e Effect) String() string {
	switch e {
	case NotApplicable:
		return "NotApplicable"
	case Allow:
		return "Allow"
	case Deny:
		return "Deny"
	}
	return "Effect(" + strconv.Itoa(int(e)) + ")"
}

// Request is one action on one resource.
type Request struct {
	Account  string            // the caller's account ("" when anonymous)
	Service  string            // a service principal acting, e.g. "sns.amazonaws.com" ("" for accounts)
	Action   string            // "sqs:SendMessage", "sns:Publish" (service prefix, action name)
	Resource string            // the resource ARN
	Context  map[string]string // condition keys, e.g. "aws:SourceArn"; keys compared case-insensitively
}

// Policy is a parsed policy document. The nil *Policy and the policy parsed
// from "" have no statements and apply to nothing. A Policy is immutable
// and safe for concurrent use.
type Policy struct {
	statements []statement
}

// Len is the number of statements.
func (p *Policy) Len() int {
	if p == nil {
		return 0
	}
	return len(p.statements)
}

// Error is a policy document that Parse refuses. Message names the member
// at fault; it quotes at most a couple of hundred bytes of the document and
// is never longer than 512 bytes.
type Error struct {
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Parse reads a policy document; "" is an empty policy. Errors are of type
// *Error.
func Parse(doc string) (*Policy, error) {
	p, err := parse(doc)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func parse(doc string) (*Policy, *Error) {
	if doc == "" {
		return &Policy{}, nil
	}
	if len(doc) > maxDocumentSize {
		return nil, newError("", fmt.Sprintf("the policy is %d bytes long; at most %d are allowed", len(doc), maxDocumentSize))
	}
	var raw json.RawMessage
	if err := json.Unmarshal([]byte(doc), &raw); err != nil {
		return nil, syntaxError(doc, err)
	}
	if kindOf(raw) != '{' {
		return nil, newError("", "the policy must be a JSON object, got "+describe(raw))
	}
	members, perr := objectMembers(raw, "")
	if perr != nil {
		return nil, perr
	}
	var stmts json.RawMessage
	for _, m := range members {
		switch m.name {
		case "Version":
			v, err := stringValue(m.value, "Version")
			if err != nil {
				return nil, err
			}
			if v != "2012-10-17" && v != "2008-10-17" {
				return nil, newError("Version", `must be "2012-10-17" or "2008-10-17", got `+echo(v, 60))
			}
		case "Id":
			if _, err := stringValue(m.value, "Id"); err != nil {
				return nil, err
			}
		case "Statement":
			stmts = m.value
		default:
			return nil, newError("", "unknown member "+echo(m.name, 60)+" (a policy has Version, Id and Statement)")
		}
	}
	if stmts == nil {
		return nil, newError("Statement", "missing: a policy needs at least one statement")
	}
	p := &Policy{}
	switch kindOf(stmts) {
	case '{':
		st, err := parseStatement(stmts, "Statement")
		if err != nil {
			return nil, err
		}
		p.statements = append(p.statements, st)
	case '[':
		var list []json.RawMessage
		if err := json.Unmarshal(stmts, &list); err != nil {
			return nil, newError("Statement", "cannot be read: "+err.Error())
		}
		if len(list) == 0 {
			return nil, newError("Statement", "must not be empty")
		}
		p.statements = make([]statement, 0, len(list))
		for i, raw := range list {
			st, err := parseStatement(raw, "Statement["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			p.statements = append(p.statements, st)
		}
	default:
		return nil, newError("Statement", "must be an object or an array of objects, got "+describe(stmts))
	}
	return p, nil
}

// syntaxError reports a document that is not JSON, quoting a little of the
// text around the fault.
func syntaxError(doc string, err error) *Error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return newError("", "the policy is not valid JSON: "+err.Error())
	}
	off := int(se.Offset)
	off = min(max(off, 0), len(doc))
	from := max(off-40, 0)
	to := min(off+40, len(doc))
	what := strconv.QuoteToASCII(se.Error()) // the text may quote a non-ASCII byte
	what = what[1 : len(what)-1]
	return newError("", fmt.Sprintf("the policy is not valid JSON: %s (at byte %d, near %s)", what, off, echo(doc[from:to], 120)))
}
