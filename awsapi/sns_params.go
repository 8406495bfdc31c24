package awsapi

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// snsParams reads the parameters of one SNS Query request. SNS serializes
// its collections the non-flattened Query way:
//
//   - lists as "Name.member.N" (N from 1), structures in them as
//     "Name.member.N.Field": Tags.member.1.Key, TagKeys.member.1;
//   - maps as "Name.entry.N.<key>" / "Name.entry.N.<value>", the key and
//     value names being "key"/"value" unless the model renames them:
//     Attributes.entry.1.key, MessageAttributes.entry.1.Name with
//     MessageAttributes.entry.1.Value.DataType.
//
// An empty collection is sent as the bare parameter with an empty value.
// Errors are *sns.Error values.
type snsParams struct {
	form   url.Values
	prefix string // the path of a nested structure, e.g. "PublishBatchRequestEntries.member.2."
}

// str returns parameter name ("" when absent).
func (p *snsParams) str(name string) string { return p.form.Get(p.prefix + name) }

// optStr returns parameter name, nil when absent (an empty value is
// given, and not absent).
func (p *snsParams) optStr(name string) *string {
	v, ok := p.form[p.prefix+name]
	if !ok {
		return nil
	}
	return &v[0]
}

// optBool returns parameter name as a boolean, false when absent.
func (p *snsParams) optBool(name string) (bool, error) {
	v, ok := p.form[p.prefix+name]
	if !ok {
		return false, nil
	}
	switch strings.ToLower(v[0]) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, sns.ErrInvalidParameter("%s: %q is not a boolean", herald.Clip(p.prefix+name), herald.Clip(v[0]))
}

// indexes returns the N of every parameter "<prefix><name>.<kind>.N[.rest]",
// in order. N must be a canonical positive decimal so that "1" and "01"
// cannot name one member twice.
func (p *snsParams) indexes(name, kind string) ([]int, error) {
	full := p.prefix + name + "." + kind + "."
	seen := map[int]bool{}
	for key := range p.form {
		rest, ok := strings.CutPrefix(key, full)
		if !ok {
			continue
		}
		digits, _, _ := strings.Cut(rest, ".")
		n, err := strconv.Atoi(digits)
		if err != nil || n < 1 || strconv.Itoa(n) != digits {
			return nil, sns.ErrInvalidParameter("%s: %q is not a member index", herald.Clip(key), herald.Clip(digits))
		}
		seen[n] = true
	}
	out := make([]int, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// members returns a reader for each structure "<name>.member.N.", in
// index order.
func (p *snsParams) members(name string) ([]*snsParams, error) {
	return p.nested(name, "member")
}

// entries returns a reader for each map entry "<name>.entry.N.", in index
// order.
func (p *snsParams) entries(name string) ([]*snsParams, error) {
	return p.nested(name, "entry")
}

func (p *snsParams) nested(name, kind string) ([]*snsParams, error) {
	idx, err := p.indexes(name, kind)
	if err != nil {
		return nil, err
	}
	out := make([]*snsParams, 0, len(idx))
	for _, n := range idx {
		out = append(out, &snsParams{form: p.form, prefix: p.prefix + name + "." + kind + "." + strconv.Itoa(n) + "."})
	}
	return out, nil
}

// stringList reads the list "<name>.member.N" of strings.
func (p *snsParams) stringList(name string) ([]string, error) {
	idx, err := p.indexes(name, "member")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range idx {
		key := p.prefix + name + ".member." + strconv.Itoa(n)
		v, ok := p.form[key]
		if !ok {
			return nil, sns.ErrInvalidParameter("%s has fields but no value", herald.Clip(key))
		}
		out = append(out, v[0])
	}
	if out == nil && p.form.Has(p.prefix+name) {
		out = []string{} // given, and empty
	}
	return out, nil
}

// stringMap reads the map "<name>.entry.N.key/value" (Attributes).
func (p *snsParams) stringMap(name string) (map[string]string, error) {
	entries, err := p.entries(name)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		key, err := e.required("key")
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, sns.ErrInvalidParameter("%s: key %s is given more than once", name, herald.Clip(key))
		}
		out[key] = e.str("value")
	}
	return out, nil
}

// tags reads the list of tags "<name>.member.N.Key/Value".
func (p *snsParams) tags(name string) (map[string]string, error) {
	members, err := p.members(name)
	if err != nil || len(members) == 0 {
		return nil, err
	}
	out := make(map[string]string, len(members))
	for _, m := range members {
		key, err := m.required("Key")
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, sns.ErrInvalidParameter("%s: tag key %s is given more than once", name, herald.Clip(key))
		}
		out[key] = m.str("Value")
	}
	return out, nil
}

// messageAttributes reads "<name>.entry.N.Name" with
// "<name>.entry.N.Value.DataType/StringValue/BinaryValue" (base64).
func (p *snsParams) messageAttributes(name string) (map[string]sns.MessageAttributeValue, error) {
	entries, err := p.entries(name)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	out := make(map[string]sns.MessageAttributeValue, len(entries))
	for _, e := range entries {
		attr, err := e.required("Name")
		if err != nil {
			return nil, err
		}
		if _, dup := out[attr]; dup {
			return nil, sns.ErrInvalidParameter("message attribute %s is given more than once", herald.Clip(attr))
		}
		v := sns.MessageAttributeValue{DataType: e.str("Value.DataType"), StringValue: e.str("Value.StringValue")}
		if b64, ok := e.form[e.prefix+"Value.BinaryValue"]; ok {
			if v.BinaryValue, err = base64.StdEncoding.DecodeString(b64[0]); err != nil {
				return nil, sns.NewError(sns.CodeInvalidParameterValue,
					"The binary value of message attribute %s is not valid base64.", herald.Clip(attr))
			}
		}
		out[attr] = v
	}
	return out, nil
}

// required returns parameter name, which must be present.
func (p *snsParams) required(name string) (string, error) {
	v, ok := p.form[p.prefix+name]
	if !ok {
		return "", sns.ErrInvalidParameter("%s is required", herald.Clip(p.prefix+name))
	}
	return v[0], nil
}
