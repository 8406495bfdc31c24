package policy

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// opKind is a condition operator, without its IfExists suffix.
type opKind uint8

const (
	opStringEquals opKind = iota
	opStringNotEquals
	opStringEqualsIgnoreCase
	opStringNotEqualsIgnoreCase
	opStringLike
	opStringNotLike
	opArnEquals
	opArnNotEquals
	opArnLike
	opArnNotLike
	opBool
	opNull
	opNumericEquals
	opNumericNotEquals
	opNumericLessThan
	opNumericLessThanEquals
	opNumericGreaterThan
	opNumericGreaterThanEquals
)

// operators maps the supported operator names to their kinds.
var operators = map[string]opKind{
	"StringEquals":              opStringEquals,
	"StringNotEquals":           opStringNotEquals,
	"StringEqualsIgnoreCase":    opStringEqualsIgnoreCase,
	"StringNotEqualsIgnoreCase": opStringNotEqualsIgnoreCase,
	"StringLike":                opStringLike,
	"StringNotLike":             opStringNotLike,
	"ArnEquals":                 opArnEquals,
	"ArnNotEquals":              opArnNotEquals,
	"ArnLike":                   opArnLike,
	"ArnNotLike":                opArnNotLike,
	"Bool":                      opBool,
	"Null":                      opNull,
	"NumericEquals":             opNumericEquals,
	"NumericNotEquals":          opNumericNotEquals,
	"NumericLessThan":           opNumericLessThan,
	"NumericLessThanEquals":     opNumericLessThanEquals,
	"NumericGreaterThan":        opNumericGreaterThan,
	"NumericGreaterThanEquals":  opNumericGreaterThanEquals,
}

// negated reports whether the operator holds when none of its values
// match, and so also when the key is missing.
func (k opKind) negated() bool {
	switch k {
	case opStringNotEquals, opStringNotEqualsIgnoreCase, opStringNotLike,
		opArnNotEquals, opArnNotLike, opNumericNotEquals:
		return true
	}
	return false
}

// numeric reports whether the operator compares numbers.
func (k opKind) numeric() bool {
	return k >= opNumericEquals && k <= opNumericGreaterThanEquals
}

// condition is one key tested by one operator.
type condition struct {
	op       opKind
	ifExists bool
	key      string    // the context key, compared ignoring case
	values   []string  // alternatives
	numbers  []float64 // values as numbers, for the Numeric operators
}

// parseOperator splits an operator name into its kind and IfExists suffix.
func parseOperator(s string) (opKind, bool, bool) {
	if k, ok := operators[s]; ok {
		return k, false, true
	}
	if base, ok := strings.CutSuffix(s, "IfExists"); ok {
		if k, ok := operators[base]; ok && k != opNull {
			return k, true, true
		}
	}
	return 0, false, false
}

// parseConditions reads a Condition element.
func parseConditions(raw json.RawMessage, path string) ([]condition, *Error) {
	ops, err := objectMembers(raw, path)
	if err != nil {
		return nil, err
	}
	var out []condition
	for _, op := range ops {
		kind, ifExists, ok := parseOperator(op.name)
		if !ok {
			msg := "operator " + echo(op.name, 60) + " is not supported"
			if strings.HasPrefix(op.name, "ForAllValues:") || strings.HasPrefix(op.name, "ForAnyValue:") {
				msg += " (the set operators ForAllValues: and ForAnyValue: are not)"
			}
			return nil, newError(path, msg)
		}
		at := path + "." + name(op.name)
		keys, err := objectMembers(op.value, at)
		if err != nil {
			return nil, err
		}
		if len(keys) == 0 {
			return nil, newError(at, "names no condition key")
		}
		for _, k := range keys {
			c, err := parseCondition(kind, ifExists, k, at+"."+name(k.name))
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// parseCondition reads the values of one key under one operator.
func parseCondition(kind opKind, ifExists bool, k member, path string) (condition, *Error) {
	c := condition{op: kind, ifExists: ifExists, key: k.name}
	if k.name == "" {
		return c, newError(path, "the condition key must not be empty")
	}
	values, err := conditionValues(k.value, path)
	if err != nil {
		return c, err
	}
	c.values = values
	for i, v := range values {
		switch {
		case kind == opBool || kind == opNull:
			lv := strings.ToLower(v)
			if lv != "true" && lv != "false" {
				return c, newError(path, `must be "true" or "false", got `+echo(v, 60))
			}
			values[i] = lv
		case kind.numeric():
			n, ok := parseNumber(v)
			if !ok {
				return c, newError(path, "must be a number, got "+echo(v, 60))
			}
			c.numbers = append(c.numbers, n)
		}
	}
	return c, nil
}

// conditionValues reads a string, number or boolean, or a non-empty array
// of them, as strings.
func conditionValues(raw json.RawMessage, path string) ([]string, *Error) {
	if kindOf(raw) == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, newError(path, "cannot be read: "+err.Error())
		}
		if len(items) == 0 {
			return nil, newError(path, "must not be an empty array")
		}
		out := make([]string, 0, len(items))
		for i, item := range items {
			v, err := scalar(item, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	v, err := scalar(raw, path)
	if err != nil {
		return nil, err
	}
	return []string{v}, nil
}

// scalar reads a condition value: a string as it is, a number as written,
// a boolean as "true" or "false".
func scalar(raw json.RawMessage, path string) (string, *Error) {
	switch k := kindOf(raw); {
	case k == '"':
		return stringValue(raw, path)
	case k == 't', k == 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return "", newError(path, "cannot be read: "+err.Error())
		}
		return strconv.FormatBool(b), nil
	case k == '-' || k >= '0' && k <= '9':
		return string(bytes.TrimSpace(raw)), nil
	}
	return "", newError(path, "must be a string, number or boolean, or an array of them, got "+describe(raw))
}

// parseNumber reads a finite decimal number.
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "xXpP_") { // no hexadecimal forms or digit separators
		return 0, false
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, false
	}
	return n, true
}

// holds reports whether the condition holds in ctx.
func (c *condition) holds(ctx map[string]string) bool {
	v, present := lookup(ctx, c.key)
	if c.op == opNull {
		for _, want := range c.values {
			if (want == "true") != present {
				return true
			}
		}
		return false
	}
	if !present {
		return c.ifExists || c.op.negated()
	}
	if c.op.numeric() {
		return c.holdsNumber(v)
	}
	matched := false
	for _, want := range c.values {
		if c.test(want, v) {
			matched = true
			break
		}
	}
	return matched != c.op.negated()
}

// test compares one policy value with the context value, for the string,
// ARN and Bool operators, before negation.
func (c *condition) test(want, v string) bool {
	switch c.op {
	case opStringEquals, opStringNotEquals:
		return v == want
	case opStringEqualsIgnoreCase, opStringNotEqualsIgnoreCase, opBool:
		return strings.EqualFold(v, want)
	case opStringLike, opStringNotLike:
		return match(want, v, false)
	case opArnEquals, opArnNotEquals, opArnLike, opArnNotLike:
		return matchARN(want, v)
	}
	return false
}

// holdsNumber evaluates a Numeric operator against the context value v. A
// value that is not a number fails every one of them.
func (c *condition) holdsNumber(v string) bool {
	x, ok := parseNumber(v)
	if !ok {
		return false
	}
	if c.op == opNumericNotEquals {
		for _, n := range c.numbers {
			if x == n {
				return false
			}
		}
		return true
	}
	for _, n := range c.numbers {
		var hit bool
		switch c.op {
		case opNumericEquals:
			hit = x == n
		case opNumericLessThan:
			hit = x < n
		case opNumericLessThanEquals:
			hit = x <= n
		case opNumericGreaterThan:
			hit = x > n
		case opNumericGreaterThanEquals:
			hit = x >= n
		}
		if hit {
			return true
		}
	}
	return false
}

// lookup finds key in ctx ignoring case. When several keys of ctx differ
// only in case, the one that sorts first wins, so that the answer does not
// depend on map order.
func lookup(ctx map[string]string, key string) (string, bool) {
	var best, value string
	found := false
	for k, v := range ctx {
		if strings.EqualFold(k, key) && (!found || k < best) {
			best, value, found = k, v, true
		}
	}
	return value, found
}
