package policy

import "strings"

// Evaluate returns Deny if any statement that applies to r denies, else
// Allow if any that applies allows, else NotApplicable.
func (p *Policy) Evaluate(r Request) Effect {
	if p == nil {
		return NotApplicable
	}
	result := NotApplicable
	for i := range p.statements {
		st := &p.statements[i]
		if !st.applies(&r) {
			continue
		}
		if st.effect == Deny {
			return Deny
		}
		result = Allow
	}
	return result
}

// applies reports whether the statement's principal, action, resource and
// conditions all match r.
func (st *statement) applies(r *Request) bool {
	if st.principal.matches(r) == st.notPrincipal {
		return false
	}
	if anyMatch(st.actions, r.Action, true) == st.notAction {
		return false
	}
	if st.resources != nil && anyMatch(st.resources, r.Resource, false) == st.notResource {
		return false
	}
	for i := range st.conditions {
		if !st.conditions[i].holds(r.Context) {
			return false
		}
	}
	return true
}

// matches reports whether r's caller is among the principals: "*" matches
// every request, an account entry the request's Account, a service entry
// (ignoring case) its Service.
func (p *principals) matches(r *Request) bool {
	if p.everyone {
		return true
	}
	if r.Account != "" {
		for _, a := range p.accounts {
			if a == r.Account {
				return true
			}
		}
	}
	if r.Service != "" {
		for _, s := range p.services {
			if strings.EqualFold(s, r.Service) {
				return true
			}
		}
	}
	return false
}

// anyMatch reports whether s matches one of the patterns.
func anyMatch(patterns []string, s string, fold bool) bool {
	for _, p := range patterns {
		if match(p, s, fold) {
			return true
		}
	}
	return false
}
