package policy

import (
	"encoding/json"
	"strings"
)

// statement is one parsed statement of a policy.
type statement struct {
	effect Effect

	principal    principals
	notPrincipal bool

	actions   []string // patterns, compared ignoring case
	notAction bool

	resources   []string // patterns; nil with notResource false: every resource
	notResource bool

	conditions []condition // all must hold
}

// principals is the content of a Principal or NotPrincipal element.
type principals struct {
	everyone bool     // "*" or {"AWS": "*"}
	accounts []string // from AWS entries
	services []string // from Service entries
}

// parseStatement reads the statement raw found at path.
func parseStatement(raw json.RawMessage, path string) (statement, *Error) {
	var st statement
	members, err := objectMembers(raw, path)
	if err != nil {
		return st, err
	}
	var hasPrincipal, hasAction, hasResource bool
	for _, m := range members {
		at := path + "." + name(m.name)
		switch m.name {
		case "Sid":
			if _, err := stringValue(m.value, at); err != nil {
				return st, err
			}
		case "Effect":
			s, err := stringValue(m.value, at)
			if err != nil {
				return st, err
			}
			switch s {
			case "Allow":
				st.effect = Allow
			case "Deny":
				st.effect = Deny
			default:
				return st, newError(at, `must be "Allow" or "Deny", got `+echo(s, 60))
			}
		case "Principal", "NotPrincipal":
			if hasPrincipal {
				return st, newError(path, "has both Principal and NotPrincipal")
			}
			hasPrincipal = true
			st.notPrincipal = m.name == "NotPrincipal"
			if st.principal, err = parsePrincipals(m.value, at); err != nil {
				return st, err
			}
		case "Action", "NotAction":
			if hasAction {
				return st, newError(path, "has both Action and NotAction")
			}
			hasAction = true
			st.notAction = m.name == "NotAction"
			if st.actions, err = parsePatterns(m.value, at, validAction, `"*" or SERVICE:ACTION, such as "sqs:SendMessage"`); err != nil {
				return st, err
			}
		case "Resource", "NotResource":
			if hasResource {
				return st, newError(path, "has both Resource and NotResource")
			}
			hasResource = true
			st.notResource = m.name == "NotResource"
			if st.resources, err = parsePatterns(m.value, at, validResource, `"*" or an ARN`); err != nil {
				return st, err
			}
		case "Condition":
			if st.conditions, err = parseConditions(m.value, at); err != nil {
				return st, err
			}
		default:
			return st, newError(path, "unknown member "+echo(m.name, 60)+
				" (a statement has Sid, Effect, Principal or NotPrincipal, Action or NotAction, Resource or NotResource, and Condition)")
		}
	}
	switch {
	case st.effect == NotApplicable:
		return st, newError(path, "missing Effect")
	case !hasPrincipal:
		return st, newError(path, "missing Principal (or NotPrincipal)")
	case !hasAction:
		return st, newError(path, "missing Action (or NotAction)")
	}
	return st, nil
}

// parsePatterns reads the values of Action, Resource and their negations,
// checking each with valid.
func parsePatterns(raw json.RawMessage, path string, valid func(string) bool, want string) ([]string, *Error) {
	list, err := stringList(raw, path)
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		if !valid(s) {
			return nil, newError(path, "must be "+want+", got "+echo(s, 80))
		}
	}
	return list, nil
}

// validAction accepts "*" and SERVICE:ACTION patterns.
func validAction(s string) bool {
	if s == "*" {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && i < len(s)-1
}

// validResource accepts "*" and ARN patterns.
func validResource(s string) bool {
	return s == "*" || strings.HasPrefix(s, "arn:")
}

// parsePrincipals reads a Principal or NotPrincipal element.
func parsePrincipals(raw json.RawMessage, path string) (principals, *Error) {
	var p principals
	if kindOf(raw) == '"' {
		s, err := stringValue(raw, path)
		if err != nil {
			return p, err
		}
		if s != "*" {
			return p, newError(path, `as a string must be "*", got `+echo(s, 60)+` (name accounts as {"AWS": [...]})`)
		}
		p.everyone = true
		return p, nil
	}
	if kindOf(raw) != '{' {
		return p, newError(path, `must be "*" or an object, got `+describe(raw))
	}
	members, err := objectMembers(raw, path)
	if err != nil {
		return p, err
	}
	if len(members) == 0 {
		return p, newError(path, "names no principal")
	}
	for _, m := range members {
		at := path + "." + name(m.name)
		switch m.name {
		case "AWS":
			list, err := stringList(m.value, at)
			if err != nil {
				return p, err
			}
			for _, s := range list {
				if s == "*" {
					p.everyone = true
					continue
				}
				account, ok := principalAccount(s)
				if !ok {
					return p, newError(at, `must be "*", an account ID or an IAM ARN such as "arn:aws:iam::111122223333:root", got `+echo(s, 80))
				}
				p.accounts = append(p.accounts, account)
			}
		case "Service":
			list, err := stringList(m.value, at)
			if err != nil {
				return p, err
			}
			p.services = append(p.services, list...)
		default:
			return p, newError(path, "principal type "+echo(m.name, 60)+" is not supported (use AWS or Service)")
		}
	}
	return p, nil
}

// principalAccount returns the account an AWS principal entry names: an
// account ID, or an IAM or STS ARN of the account, its root, a user or a
// role.
func principalAccount(s string) (string, bool) {
	if validAccountID(s) {
		return s, true
	}
	rest, ok := strings.CutPrefix(s, "arn:")
	if !ok {
		return "", false
	}
	parts := strings.SplitN(rest, ":", 5) // partition, service, region, account, resource
	if len(parts) != 5 || parts[0] == "" || parts[2] != "" || !validAccountID(parts[3]) {
		return "", false
	}
	if strings.ContainsAny(parts[0], "*?") || strings.ContainsAny(parts[4], "*?") {
		return "", false
	}
	resource := parts[4]
	switch parts[1] {
	case "iam":
		if resource == "root" || hasNamedPrefix(resource, "user/") || hasNamedPrefix(resource, "role/") {
			return parts[3], true
		}
	case "sts":
		if hasNamedPrefix(resource, "assumed-role/") {
			return parts[3], true
		}
	}
	return "", false
}

// hasNamedPrefix reports whether s is prefix followed by a name.
func hasNamedPrefix(s, prefix string) bool {
	return len(s) > len(prefix) && strings.HasPrefix(s, prefix)
}

// validAccountID accepts AWS's twelve-digit IDs and Herald's account names:
// 1 to 64 letters, digits, '-' and '_'.
func validAccountID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
