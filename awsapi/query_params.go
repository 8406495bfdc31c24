package awsapi

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// queryParams reads the parameters of one Query request. Lists and maps
// are flattened the Query way: "Name.N" for list members and
// "Name.N.Field" for members of structures, N counting from 1.
type queryParams struct {
	form    url.Values
	prefix  string // the path of a nested structure, e.g. "SendMessageBatchRequestEntry.2."
	pathURL string // the queue URL of the request path, or ""
}

func newQueryParams(c *Call) *queryParams {
	return &queryParams{form: c.Form, pathURL: pathQueueURL(c)}
}

// str returns parameter name ("" when absent).
func (p *queryParams) str(name string) string { return p.form.Get(p.prefix + name) }

// optStr returns parameter name, nil when absent (an empty value is given,
// not absent).
func (p *queryParams) optStr(name string) *string {
	v, ok := p.form[p.prefix+name]
	if !ok {
		return nil
	}
	return &v[0]
}

// queueURL is the QueueUrl parameter when present, else the request path's.
func (p *queryParams) queueURL() string {
	if u := p.str("QueueUrl"); u != "" {
		return u
	}
	return p.pathURL
}

// optInt returns parameter name as an integer, nil when absent.
func (p *queryParams) optInt(name string) (*int, error) {
	v, ok := p.form[p.prefix+name]
	if !ok {
		return nil, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil {
		return nil, sqs.ErrInvalidParameterValue("Value %s for parameter %s is invalid. Reason: must be an integer.", herald.Clip(v[0]), herald.Clip(p.prefix+name))
	}
	return &n, nil
}

// indexes returns the N of every parameter "<prefix><name>.N[.rest]", in
// order. N must be a canonical positive decimal, so that "1" and "01"
// cannot name the same member twice. Parameters "<prefix><name>.<field>"
// for one of fields are the un-indexed form of a structure and skipped.
func (p *queryParams) indexes(name string, fields ...string) ([]int, error) {
	full := p.prefix + name + "."
	seen := map[int]bool{}
	for key := range p.form {
		rest, ok := strings.CutPrefix(key, full)
		if !ok {
			continue
		}
		digits, _, _ := strings.Cut(rest, ".")
		if slices.Contains(fields, digits) {
			continue
		}
		n, err := strconv.Atoi(digits)
		if err != nil || n < 1 || strconv.Itoa(n) != digits {
			return nil, sqs.ErrInvalidParameterValue("The parameter %s is not valid: %q is not a member index.", herald.Clip(key), herald.Clip(digits))
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

// list returns the values of "<name>.N", in index order, after that of a
// bare "<name>": the SQS Query reference still documents that un-indexed
// form for one-member lists ("AttributeName=All").
func (p *queryParams) list(name string) ([]string, error) {
	idx, err := p.indexes(name)
	if err != nil {
		return nil, err
	}
	var out []string
	if v, ok := p.form[p.prefix+name]; ok {
		out = append(out, v[0])
	}
	for _, n := range idx {
		key := name + "." + strconv.Itoa(n)
		if _, ok := p.form[p.prefix+key]; !ok {
			return nil, sqs.ErrInvalidParameterValue("The parameter %s has members but no value.", herald.Clip(p.prefix+key))
		}
		out = append(out, p.str(key))
	}
	return out, nil
}

// structs returns a reader for each "<name>.N." structure, in index order.
// When fields are given, parameters "<name>.<field>" form one more,
// un-indexed structure, read first: the SQS Query reference still
// documents "Attribute.Name=...&Attribute.Value=..." for one attribute.
func (p *queryParams) structs(name string, fields ...string) ([]*queryParams, error) {
	idx, err := p.indexes(name, fields...)
	if err != nil {
		return nil, err
	}
	out := make([]*queryParams, 0, len(idx)+1)
	for _, f := range fields {
		if _, ok := p.form[p.prefix+name+"."+f]; ok {
			out = append(out, &queryParams{form: p.form, prefix: p.prefix + name + ".", pathURL: p.pathURL})
			break
		}
	}
	for _, n := range idx {
		out = append(out, &queryParams{form: p.form, prefix: p.prefix + name + "." + strconv.Itoa(n) + ".", pathURL: p.pathURL})
	}
	return out, nil
}

// required returns parameter name, which must be present.
func (p *queryParams) required(name string) (string, error) {
	v, ok := p.form[p.prefix+name]
	if !ok {
		return "", sqs.ErrMissingParameter(herald.Clip(p.prefix + name))
	}
	return v[0], nil
}

// stringMap reads "<name>.N.<keyField>" / "<name>.N.<valueField>" pairs,
// such as Attribute.N.Name/Value or Tag.N.Key/Value, and the un-indexed
// "<name>.<keyField>" / "<name>.<valueField>" pair.
func (p *queryParams) stringMap(name, keyField, valueField string) (map[string]string, error) {
	entries, err := p.structs(name, keyField, valueField)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		key, err := e.required(keyField)
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, sqs.ErrInvalidParameterValue("%s %s is given more than once.", name, herald.Clip(key))
		}
		out[key] = e.str(valueField)
	}
	return out, nil
}

// attributes reads message attributes "<name>.N.Name" with
// "<name>.N.Value.DataType/StringValue/BinaryValue" (base64).
func (p *queryParams) attributes(name string) (map[string]sqs.MessageAttributeValue, error) {
	entries, err := p.structs(name)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	out := make(map[string]sqs.MessageAttributeValue, len(entries))
	for _, e := range entries {
		attrName, err := e.required("Name")
		if err != nil {
			return nil, err
		}
		if _, dup := out[attrName]; dup {
			return nil, sqs.ErrInvalidParameterValue("Message attribute name '%s' is given more than once.", herald.Clip(attrName))
		}
		a := sqs.MessageAttributeValue{DataType: e.str("Value.DataType"), StringValue: e.str("Value.StringValue")}
		if b64, ok := e.form[e.prefix+"Value.BinaryValue"]; ok {
			a.BinaryValue, err = base64.StdEncoding.DecodeString(b64[0])
			if err != nil {
				return nil, sqs.ErrInvalidParameterValue("The binary value of message attribute '%s' is not valid base64.", herald.Clip(attrName))
			}
		}
		out[attrName] = a
	}
	return out, nil
}
