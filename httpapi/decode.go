package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/internal/jsonscan"
)

// DecodePutRequest reads one message as POST /v1/messages reads its body:
// strictly (unknown or repeated members refused, body base64), with the
// same errors (herald.EInvalid). The WebSocket gateway's publish frames
// read their message with it, so the two cannot drift apart.
func DecodePutRequest(data []byte) (api.PutRequest, error) {
	var req api.PutRequest
	err := decodeStrict(data, &req)
	return req, err
}

// maxJSONDepth is how deeply a request's values may nest: the request
// object around metadata nested as deeply as the cache takes it.
const maxJSONDepth = cache.MaxMetadataDepth + 1

// jsonReaders recycles the readers of request bodies (and their scratch
// buffers for escaped strings).
var jsonReaders = sync.Pool{New: func() any { return new(jsonscan.Reader) }}

// decodeStrict decodes the JSON object body into the struct v (a pointer),
// strictly and in one pass (internal/jsonscan): member names must match v's
// JSON names exactly and once each, no unknown members, valid UTF-8 and
// nothing after the object. A null member leaves its field as it is, as
// encoding/json does, except a raw JSON field, which keeps the null.
// Nothing in v aliases body, which the caller may reuse.
func decodeStrict(body []byte, v any) error {
	fields := jsonFields(v)
	r := jsonReaders.Get().(*jsonscan.Reader)
	defer func() {
		r.Reset(nil) // drop the body, keep the scratch buffer
		jsonReaders.Put(r)
	}()
	r.Reset(body)
	r.SetMaxDepth(maxJSONDepth)
	var seen jsonscan.Seen
	err := r.ObjectBytes(func(name []byte) error {
		i := fieldIndex(fields, name)
		if i < 0 {
			return fmt.Errorf("unknown field %q", herald.Clip(string(name)))
		}
		if !seen.Mark(uint(i)) {
			return fmt.Errorf("member %q appears more than once", fields[i].name)
		}
		return readField(r, body, fields[i])
	})
	if err == nil {
		err = r.End()
	}
	var nb notBase64Error
	if errors.As(err, &nb) {
		return herald.Errorf(herald.EInvalid, "%v", nb)
	}
	if err != nil {
		return herald.Errorf(herald.EInvalid, "malformed JSON: %v", err)
	}
	return nil
}

// field is a member of a request object: its JSON name and a pointer to
// the struct field its value goes to.
type field struct {
	name   string
	target any // *string, *[]byte, **int64, *json.RawMessage or *[]json.RawMessage
}

// jsonFields lists the JSON members of the request structs with pointers to
// their fields (at most 64, for jsonscan.Seen).
func jsonFields(v any) []field {
	switch v := v.(type) {
	case *api.PutRequest:
		return []field{{"message_uuid", &v.MessageUUID}, {"replica_uuid", &v.ReplicaUUID},
			{"metadata", &v.Metadata}, {"body", &v.Body}, {"ttl", &v.TTL}}
	case *api.BatchRequest:
		return []field{{"messages", &v.Messages}}
	case *api.DataCenter:
		return []field{{"dc", &v.DC}}
	}
	panic(fmt.Sprintf("httpapi: no JSON fields for %T", v))
}

// fieldIndex is the index of the field named name, or -1.
func fieldIndex(fields []field, name []byte) int {
	for i, f := range fields {
		if f.name == string(name) {
			return i
		}
	}
	return -1
}

// readField reads the next value of r into f's target. body is r's text,
// which raw JSON fields copy their value from.
func readField(r *jsonscan.Reader, body []byte, f field) error {
	if raw, ok := f.target.(*json.RawMessage); ok {
		v, err := rawValue(r, body)
		*raw = v
		return err
	}
	if r.Null() {
		return nil
	}
	if kind, want := r.Kind(), kindOf(f.target); kind != want && kind != jsonscan.Invalid {
		return fmt.Errorf("field %q: must be %s, not %s", f.name, describeKind(want), kind)
	}
	switch t := f.target.(type) {
	case *string:
		s, err := r.String()
		*t = s
		return err
	case *[]byte:
		s, err := r.StringBytes()
		if err != nil {
			return err
		}
		out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
		n, err := base64.StdEncoding.Decode(out, s)
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			return notBase64Error{f.name, int64(corrupt)}
		}
		*t = out[:n]
		return err
	case **int64:
		text, err := r.Number()
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil {
			return fmt.Errorf("field %q: must be a 64-bit integer, not %s", f.name, herald.Clip(string(text)))
		}
		*t = &n
		return nil
	case *[]json.RawMessage:
		*t = (*t)[:0]
		return r.Array(func(int) error {
			v, err := rawValue(r, body)
			*t = append(*t, v)
			return err
		})
	}
	panic(fmt.Sprintf("httpapi: no reader for %T", f.target))
}

// kindOf is the JSON kind a field's value must have.
func kindOf(target any) jsonscan.Kind {
	switch target.(type) {
	case **int64:
		return jsonscan.Number
	case *[]json.RawMessage:
		return jsonscan.Array
	}
	return jsonscan.String
}

// describeKind names a kind for an error: "a string", "an array".
func describeKind(k jsonscan.Kind) string {
	switch k {
	case jsonscan.Number:
		return "an integer"
	case jsonscan.Array:
		return "an array"
	}
	return "a " + k.String()
}

// rawValue reads the next value of r and returns a copy of its text, which
// is body's.
func rawValue(r *jsonscan.Reader, body []byte) (json.RawMessage, error) {
	r.Kind() // skips the whitespace before the value
	start := r.Offset()
	if err := r.Skip(); err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), body[start:r.Offset()]...), nil
}

// notBase64Error is a bytes field whose JSON string is not base64: well
// formed JSON, so not reported as malformed.
type notBase64Error struct {
	field  string
	offset int64
}

func (e notBase64Error) Error() string {
	return fmt.Sprintf("field %q is not base64 (bad data at byte %d): encode it in standard base64 with padding, as `base64` or btoa() do (\"hello\" is \"aGVsbG8=\")", e.field, e.offset)
}
