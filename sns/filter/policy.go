package filter

import "fmt"

// Filter policy scopes, as the FilterPolicyScope subscription attribute
// names them.
const (
	ScopeMessageAttributes = "MessageAttributes"
	ScopeMessageBody       = "MessageBody"
)

// Limits AWS documents for filter policies, and Herald's own nesting limit
// (AWS documents none; it keeps hostile policies cheap).
const (
	MaxPolicyBytes   = 256 * 1024
	MaxKeys          = 5
	MaxCombinations  = 150
	MaxNumeric       = 1e9
	MaxNestingDepth  = 32
	numericPrecision = 1e5 // five decimal places
)

// Attribute is one message attribute as the matcher sees it. DataType is
// "String", "Number", "String.Array" or "Binary", optionally followed by a
// custom label ("Number.float"); Value is the string value (a JSON array
// for String.Array).
type Attribute struct {
	DataType string
	Value    string
}

// Policy is a compiled filter policy. The nil *Policy and a policy parsed
// from "{}" match every message.
type Policy struct {
	scope string
	root  *node
	shape *shape // what MatchBody decodes
	// existsFalse is set when some condition is {"exists": false}, the only
	// condition that can hold for an absent key.
	existsFalse bool
}

// Scope reports the policy's scope (ScopeMessageAttributes or
// ScopeMessageBody).
func (p *Policy) Scope() string {
	if p == nil || p.scope == "" {
		return ScopeMessageAttributes
	}
	return p.scope
}

// Match applies the policy to a message according to its scope: the
// attributes for ScopeMessageAttributes, the body for ScopeMessageBody.
func (p *Policy) Match(attrs map[string]Attribute, body string) bool {
	if p.Scope() == ScopeMessageBody {
		return p.MatchBody(body)
	}
	return p.MatchAttributes(attrs)
}

// Error is an invalid filter policy. Its text is what AWS puts after
// "Invalid parameter: FilterPolicy: ".
type Error struct {
	Msg string
}

func (e *Error) Error() string { return e.Msg }

func errf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}
