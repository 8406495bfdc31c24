package sns

import (
	"encoding/base64"
	"strings"

	"github.com/heraldmq/herald/sns/filter"
)

// FilterPolicies is the default FilterFunc: AWS's filter policy semantics
// from package filter.
func FilterPolicies(policy, scope string) (Matcher, error) {
	p, err := filter.Parse(policy, scope)
	if err != nil {
		return nil, err
	}
	return filterMatcher{p: p, body: scope == ScopeMessageBody}, nil
}

type filterMatcher struct {
	p    *filter.Policy
	body bool
}

func (m filterMatcher) Match(attrs map[string]MessageAttributeValue, body string) bool {
	if m.body {
		return m.p.MatchBody(body)
	}
	return m.p.MatchAttributes(filterAttributes(attrs))
}

// filterAttributes is a message's attributes as package filter reads
// them (Binary values in base64).
func filterAttributes(attrs map[string]MessageAttributeValue) map[string]filter.Attribute {
	fa := make(map[string]filter.Attribute, len(attrs))
	for k, v := range attrs {
		val := v.StringValue
		if strings.HasPrefix(v.DataType, "Binary") {
			val = base64.StdEncoding.EncodeToString(v.BinaryValue)
		}
		fa[k] = filter.Attribute{DataType: v.DataType, Value: val}
	}
	return fa
}
