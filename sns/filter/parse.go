package filter

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"
)

// Parse validates and compiles a filter policy for scope, which is
// ScopeMessageAttributes, ScopeMessageBody, or "" (MessageAttributes). An
// invalid policy yields an *Error.
func Parse(policy, scope string) (*Policy, error) {
	switch scope {
	case "":
		scope = ScopeMessageAttributes
	case ScopeMessageAttributes, ScopeMessageBody:
	default:
		return nil, errf("Invalid filter policy scope %q: must be MessageAttributes or MessageBody", scope)
	}
	if len(policy) > MaxPolicyBytes {
		return nil, errf("Filter policy is too long: %d bytes, at most %d allowed", len(policy), MaxPolicyBytes)
	}
	if !utf8.ValidString(policy) {
		return nil, errf("Filter policy must be valid UTF-8")
	}
	doc, err := decodeJSON(policy)
	if err != nil {
		return nil, errf("failed to parse JSON. %v", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errf("Filter policy must be a JSON object")
	}
	p := &Policy{scope: scope}
	if len(obj) == 0 {
		return p, nil
	}
	c := compiler{scope: scope}
	root, err := c.object(obj, 1)
	if err != nil {
		return nil, err
	}
	if n := root.maxKeys(); n > MaxKeys {
		return nil, errf("Filter policy can not have more than %d keys (has %d)", MaxKeys, n)
	}
	if n := root.combinations(); n > MaxCombinations {
		return nil, errf("Filter policy is too complex: %d value combinations, at most %d allowed", n, MaxCombinations)
	}
	p.root, p.existsFalse, p.shape = root, c.existsFalse, shapeOf(root)
	return p, nil
}

// decodeJSON decodes one JSON value, numbers kept as json.Number, and
// rejects trailing data.
func decodeJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

type compiler struct {
	scope       string
	existsFalse bool
}

func (c *compiler) object(obj map[string]any, depth int) (*node, error) {
	if depth > MaxNestingDepth {
		return nil, errf("Filter policy nesting is too deep: at most %d levels allowed", MaxNestingDepth)
	}
	n := &node{}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic errors and evaluation order
	for _, key := range keys {
		raw := obj[key]
		if key == "$or" {
			group, err := c.or(raw, depth)
			if err != nil {
				return nil, err
			}
			n.ors = append(n.ors, group)
			continue
		}
		switch v := raw.(type) {
		case []any:
			conds, err := c.leaf(key, v)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, field{key: key, leaf: conds})
		case map[string]any:
			if c.scope != ScopeMessageBody {
				return nil, errf("Filter policy scope MessageAttributes does not support nested filter policy")
			}
			if len(v) == 0 {
				return nil, errf("Empty objects are not allowed (key %q)", key)
			}
			child, err := c.object(v, depth+1)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, field{key: key, child: child})
		default:
			return nil, errf("Value of %q must be an array or an object", key)
		}
	}
	return n, nil
}

func (c *compiler) or(raw any, depth int) ([]*node, error) {
	arr, ok := raw.([]any)
	if !ok || len(arr) < 2 {
		return nil, errf("$or must be an array of at least 2 filter policies")
	}
	group := make([]*node, 0, len(arr))
	for _, elem := range arr {
		obj, ok := elem.(map[string]any)
		if !ok || len(obj) == 0 {
			return nil, errf("$or must be an array of at least 2 filter policies")
		}
		alt, err := c.object(obj, depth)
		if err != nil {
			return nil, err
		}
		group = append(group, alt)
	}
	return group, nil
}

func (c *compiler) leaf(key string, arr []any) ([]cond, error) {
	if len(arr) == 0 {
		return nil, errf("Empty arrays are not allowed (key %q)", key)
	}
	conds := make([]cond, 0, len(arr))
	for _, elem := range arr {
		var cd cond
		switch v := elem.(type) {
		case string:
			cd = cond{op: opString, s: v}
		case json.Number:
			f, err := policyNumber(v)
			if err != nil {
				return nil, err
			}
			cd = cond{op: opNumber, n: f}
		case bool:
			cd = cond{op: opBool, b: v}
		case nil:
			cd = cond{op: opNull}
		case map[string]any:
			var err error
			if cd, err = c.operator(v); err != nil {
				return nil, err
			}
		default:
			return nil, errf("Match value must be String, number, true, false, or null")
		}
		conds = append(conds, cd)
	}
	return conds, nil
}

// policyNumber checks a number of the policy against the documented range
// and returns it canonical.
func policyNumber(n json.Number) (float64, error) {
	f, ok := parseNumber(string(n))
	if !ok || math.Abs(f) > MaxNumeric {
		return 0, errf("Numeric value %s is out of range: must be between -1.0E9 and 1.0E9", n)
	}
	return canonical(f), nil
}

func (c *compiler) operator(m map[string]any) (cond, error) {
	if len(m) != 1 {
		if len(m) == 0 {
			return cond{}, errf("Empty objects are not allowed")
		}
		return cond{}, errf("Only one key allowed in match expression")
	}
	for name, arg := range m {
		switch name {
		case "prefix", "suffix", "equals-ignore-case":
			s, ok := arg.(string)
			if !ok {
				return cond{}, errf("%s match pattern must be a string", name)
			}
			o := opPrefix
			switch name {
			case "suffix":
				o = opSuffix
			case "equals-ignore-case":
				o = opIgnoreCase
			}
			return cond{op: o, s: s}, nil
		case "exists":
			b, ok := arg.(bool)
			if !ok {
				return cond{}, errf("exists match pattern must be either true or false.")
			}
			if !b {
				c.existsFalse = true
			}
			return cond{op: opExists, b: b}, nil
		case "anything-but":
			return anythingBut(arg)
		case "numeric":
			return numeric(arg)
		case "cidr":
			s, ok := arg.(string)
			if !ok {
				return cond{}, errf("cidr match pattern must be a string")
			}
			pfx, err := netip.ParsePrefix(s)
			if err != nil {
				return cond{}, errf("Malformed CIDR %q", s)
			}
			return cond{op: opCIDR, pfx: pfx.Masked()}, nil
		default:
			return cond{}, errf("Unrecognized match type %s", name)
		}
	}
	panic("unreachable")
}

func anythingBut(arg any) (cond, error) {
	c := cond{op: opAnyBut}
	add := func(v any) error {
		switch v := v.(type) {
		case string:
			c.strs = append(c.strs, v)
		case json.Number:
			f, err := policyNumber(v)
			if err != nil {
				return err
			}
			c.nums = append(c.nums, f)
		default:
			return errf("Inside anything-but list, only strings and numbers are supported")
		}
		return nil
	}
	switch v := arg.(type) {
	case string, json.Number:
		if err := add(v); err != nil {
			return cond{}, err
		}
	case []any:
		if len(v) == 0 {
			return cond{}, errf("Empty arrays are not allowed (anything-but)")
		}
		for _, e := range v {
			if err := add(e); err != nil {
				return cond{}, err
			}
		}
	case map[string]any:
		if len(v) != 1 {
			return cond{}, errf("Only one key allowed in anything-but match expression")
		}
		for name, x := range v {
			s, ok := x.(string)
			if !ok {
				return cond{}, errf("anything-but %s match pattern must be a string", name)
			}
			switch name {
			case "prefix":
				return cond{op: opAnyButPrefix, s: s}, nil
			case "suffix":
				return cond{op: opAnyButSuffix, s: s}, nil
			default:
				return cond{}, errf("Unsupported anything-but pattern: %s", name)
			}
		}
	default:
		return cond{}, errf("Value of anything-but must be an array or single string/number value.")
	}
	return c, nil
}

func numeric(arg any) (cond, error) {
	arr, ok := arg.([]any)
	if !ok {
		return cond{}, errf("Value of numeric must be an array.")
	}
	if len(arr) != 2 && len(arr) != 4 {
		return cond{}, errf("Bad numeric expression: expected [op, value] or [>|>=, value, <|<=, value]")
	}
	c := cond{op: opRange, lo: math.Inf(-1), hi: math.Inf(1), loIncl: true, hiIncl: true}
	for i := 0; i < len(arr); i += 2 {
		opName, ok := arr[i].(string)
		if !ok {
			return cond{}, errf("Bad numeric range operator: %v", arr[i])
		}
		num, ok := arr[i+1].(json.Number)
		if !ok {
			return cond{}, errf("Value of %s must be numeric", opName)
		}
		f, err := policyNumber(num)
		if err != nil {
			return cond{}, err
		}
		switch {
		case opName == "=" && len(arr) == 2:
			return cond{op: opNumber, n: f}, nil
		case (opName == ">" || opName == ">=") && i == 0:
			c.lo, c.loIncl = f, opName == ">="
		case (opName == "<" || opName == "<=") && (i == 2 || len(arr) == 2):
			c.hi, c.hiIncl = f, opName == "<="
		default:
			return cond{}, errf("Bad numeric range operator: %s", opName)
		}
	}
	if c.lo >= c.hi {
		return cond{}, errf("Bottom must be less than top")
	}
	return c, nil
}

// maxKeys counts the keys of the largest conjunction the policy expands
// to: the keys of this object plus, for each $or group, those of its
// largest alternative. Nested objects count as one (top-level) key.
func (n *node) maxKeys() int {
	k := len(n.fields)
	for _, group := range n.ors {
		most := 0
		for _, alt := range group {
			most = max(most, alt.maxKeys())
		}
		k += most
	}
	return k
}

// combinations multiplies the number of values of every key, nested keys
// included, and adds up the alternatives of each $or group. The result
// saturates just above MaxCombinations.
func (n *node) combinations() int {
	const limit = MaxCombinations + 1
	mul := func(a, b int) int {
		if a == 0 || b == 0 {
			return 0
		}
		if a > limit/b {
			return limit
		}
		return min(a*b, limit)
	}
	total := 1
	for _, f := range n.fields {
		if f.child != nil {
			total = mul(total, f.child.combinations())
		} else {
			total = mul(total, len(f.leaf))
		}
	}
	for _, group := range n.ors {
		sum := 0
		for _, alt := range group {
			sum = min(sum+alt.combinations(), limit)
		}
		total = mul(total, sum)
	}
	return total
}
