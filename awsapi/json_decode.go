package awsapi

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/internal/jsonscan"
	"github.com/heraldmq/herald/sqs"
)

// jsonDecoder reads the JSON 1.0 body of one request in a single strict
// pass (internal/jsonscan): member names match exactly, a name may appear
// once per object, null means absent, and members Herald does not know are
// skipped (still validated), as newer SDKs may send them. Every string it
// returns is a copy, so the body may be reused once the action returns.
type jsonDecoder struct {
	r       jsonscan.Reader
	body    []byte
	pathURL string   // the queue URL of the request path, or ""
	path    []string // member names of a failure, innermost first
}

var jsonDecoders = sync.Pool{New: func() any { return new(jsonDecoder) }}

// newJSONDecoder returns a pooled decoder for c; release it when done.
func newJSONDecoder(c *Call) *jsonDecoder {
	d := jsonDecoders.Get().(*jsonDecoder)
	d.body = c.Body
	d.pathURL = pathQueueURL(c)
	d.path = d.path[:0]
	return d
}

func (d *jsonDecoder) release() {
	d.body = nil
	d.r.Reset(nil) // drop the body, keep the scratch buffer
	jsonDecoders.Put(d)
}

// decode reads the request object, calling member for each of its members
// that is not null; member reads the value with one of the decoder's value
// methods, or ignores it by returning nil. Any failure is a
// SerializationException naming the member path.
func (d *jsonDecoder) decode(member func(name []byte) error) error {
	body := d.body
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}") // curl and hand-written clients may send nothing
	}
	d.r.Reset(body)
	err := d.object(member)
	if err == nil {
		err = d.r.End()
	}
	if err != nil {
		return errSerialization("%s", d.describe(err))
	}
	return nil
}

// queueURL is the QueueUrl member when present, else the request path's.
func (d *jsonDecoder) queueURL(member string) string {
	if member != "" {
		return member
	}
	return d.pathURL
}

// describe says what is wrong and where, without Go type names.
func (d *jsonDecoder) describe(err error) string {
	if len(d.path) == 0 {
		return "malformed request: " + err.Error()
	}
	slices.Reverse(d.path)
	return "malformed member " + herald.Clip(strings.Join(d.path, ".")) + ": " + err.Error()
}

// object reads an object, calling member for each member whose value is
// not null. A failure records the member's name in d.path on its way out,
// so that the outermost caller can name the whole path.
func (d *jsonDecoder) object(member func(name []byte) error) error {
	if d.r.Kind() != jsonscan.Object {
		return d.mismatch("an object")
	}
	var names memberNames
	return d.r.ObjectBytes(func(name []byte) error {
		if !names.add(name) {
			return fmt.Errorf("member %q appears more than once", herald.Clip(string(name)))
		}
		if d.r.Null() {
			return nil
		}
		if err := member(name); err != nil {
			d.path = append(d.path, string(name))
			return err
		}
		return nil
	})
}

// array reads an array, calling element for each element, nulls included.
func (d *jsonDecoder) array(element func() error) error {
	if d.r.Kind() != jsonscan.Array {
		return d.mismatch("a list")
	}
	return d.r.Array(func(int) error { return element() })
}

// str reads a string.
func (d *jsonDecoder) str(dst *string) error {
	if d.r.Kind() != jsonscan.String {
		return d.mismatch("a string")
	}
	s, err := d.r.String()
	*dst = s
	return err
}

// optStr reads a string that may be absent (then *dst stays nil), so that
// an empty value is told from a missing one.
func (d *jsonDecoder) optStr(dst **string) error {
	var s string
	if err := d.str(&s); err != nil {
		return err
	}
	*dst = &s
	return nil
}

// integer reads an integer. As with encoding/json, a number with a
// fraction, an exponent or beyond int's range is the wrong type.
func (d *jsonDecoder) integer(dst **int) error {
	if d.r.Kind() != jsonscan.Number {
		return d.mismatch("an integer")
	}
	text, err := d.r.Number()
	if err != nil {
		return err
	}
	n, ok := parseInt(text)
	if !ok {
		return &typeError{want: "an integer", found: "number " + herald.Clip(string(text))}
	}
	*dst = &n
	return nil
}

// parseInt parses the text of a JSON number as an int, reporting false
// for fractions, exponents and overflow.
func parseInt(text []byte) (int, bool) {
	neg := len(text) > 0 && text[0] == '-'
	if neg {
		text = text[1:]
	}
	const limit = uint64(1<<63 - 1)
	var n uint64
	for _, c := range text {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (limit+1-d)/10 { // limit+1 admits -(1<<63)
			return 0, false
		}
		n = n*10 + d
	}
	if !neg && n > limit {
		return 0, false
	}
	if neg {
		return int(-n), true
	}
	return int(n), true
}

// binary reads a base64 string (standard alphabet, padded). An empty
// string is an empty, non-nil value, as encoding/json decodes it.
func (d *jsonDecoder) binary(dst *[]byte) error {
	if d.r.Kind() != jsonscan.String {
		return d.mismatch("a base64 string")
	}
	text, err := d.r.StringBytes()
	if err != nil {
		return err
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(out, text)
	if err != nil {
		return err
	}
	*dst = out[:n]
	return nil
}

// stringList reads a list of strings; a null element is "", as
// encoding/json reads it.
func (d *jsonDecoder) stringList(dst *[]string) error {
	list := []string{}
	err := d.array(func() error {
		var s string
		if !d.r.Null() {
			if err := d.str(&s); err != nil {
				return err
			}
		}
		list = append(list, s)
		return nil
	})
	*dst = list
	return err
}

// stringMap reads an object of strings (queue attributes, tags); a null
// value is "", as encoding/json reads it.
func (d *jsonDecoder) stringMap(dst *map[string]string) error {
	if d.r.Kind() != jsonscan.Object {
		return d.mismatch("an object")
	}
	out := map[string]string{}
	*dst = out
	return d.r.ObjectBytes(func(name []byte) error {
		if _, dup := out[string(name)]; dup {
			return fmt.Errorf("member %q appears more than once", herald.Clip(string(name)))
		}
		var s string
		if !d.r.Null() {
			if err := d.str(&s); err != nil {
				d.path = append(d.path, string(name))
				return err
			}
		}
		out[string(name)] = s
		return nil
	})
}

// attributes reads message attributes by name.
func (d *jsonDecoder) attributes(dst *map[string]sqs.MessageAttributeValue) error {
	if d.r.Kind() != jsonscan.Object {
		return d.mismatch("an object")
	}
	out := map[string]sqs.MessageAttributeValue{}
	*dst = out
	return d.r.ObjectBytes(func(name []byte) error {
		if _, dup := out[string(name)]; dup {
			return fmt.Errorf("member %q appears more than once", herald.Clip(string(name)))
		}
		var a sqs.MessageAttributeValue
		// StringListValues and BinaryListValues are reserved by AWS and
		// not implemented; they are ignored like any unknown member.
		err := d.object(func(member []byte) error {
			switch string(member) {
			case "DataType":
				return d.str(&a.DataType)
			case "StringValue":
				return d.str(&a.StringValue)
			case "BinaryValue":
				return d.binary(&a.BinaryValue)
			}
			return nil
		})
		if err != nil {
			d.path = append(d.path, string(name))
			return err
		}
		out[string(name)] = a
		return nil
	})
}

// sendEntries reads SendMessageBatchRequestEntry values.
func (d *jsonDecoder) sendEntries(dst *[]sqs.SendMessageBatchEntry) error {
	entries := []sqs.SendMessageBatchEntry{}
	err := d.array(func() error {
		var e sqs.SendMessageBatchEntry
		err := d.object(func(name []byte) error {
			switch string(name) {
			case "Id":
				return d.str(&e.ID)
			case "MessageBody":
				return d.str(&e.MessageBody)
			case "DelaySeconds":
				return d.integer(&e.DelaySeconds)
			case "MessageAttributes":
				return d.attributes(&e.MessageAttributes)
			case "MessageSystemAttributes":
				return d.attributes(&e.MessageSystemAttributes)
			case "MessageDeduplicationId":
				return d.optStr(&e.MessageDeduplicationID)
			case "MessageGroupId":
				return d.optStr(&e.MessageGroupID)
			}
			return nil
		})
		entries = append(entries, e)
		return err
	})
	*dst = entries
	return err
}

// handleEntries reads DeleteMessageBatch and ChangeMessageVisibilityBatch
// request entries.
func (d *jsonDecoder) handleEntries(dst *[]sqs.BatchHandleEntry) error {
	entries := []sqs.BatchHandleEntry{}
	err := d.array(func() error {
		var e sqs.BatchHandleEntry
		err := d.object(func(name []byte) error {
			switch string(name) {
			case "Id":
				return d.str(&e.ID)
			case "ReceiptHandle":
				return d.str(&e.ReceiptHandle)
			case "VisibilityTimeout":
				return d.integer(&e.VisibilityTimeout)
			}
			return nil
		})
		entries = append(entries, e)
		return err
	})
	*dst = entries
	return err
}

// mismatch reports a value of the wrong JSON type, or the syntax error
// that makes it no value at all.
func (d *jsonDecoder) mismatch(want string) error {
	found := d.r.Kind()
	if err := d.r.Skip(); err != nil {
		return err
	}
	return &typeError{want: want, found: found.String()}
}

// typeError is a member of the wrong JSON type, worded as
// encoding/json's UnmarshalTypeError was: "expected an integer, found
// string".
type typeError struct {
	want, found string
}

func (e *typeError) Error() string { return "expected " + e.want + ", found " + e.found }

// memberNames remembers the member names of one object to reject
// repeats. Objects in requests have a handful of members, compared
// linearly without allocating; a map takes over for hostile ones with
// many.
type memberNames struct {
	few  [16][]byte
	n    int
	many map[string]struct{}
}

// add records name and reports whether it is new.
func (s *memberNames) add(name []byte) bool {
	if s.many != nil {
		if _, dup := s.many[string(name)]; dup {
			return false
		}
		s.many[string(name)] = struct{}{}
		return true
	}
	for _, seen := range s.few[:s.n] {
		if bytes.Equal(seen, name) {
			return false
		}
	}
	if s.n < len(s.few) {
		s.few[s.n] = name
		s.n++
		return true
	}
	s.many = make(map[string]struct{}, 2*len(s.few))
	for _, seen := range s.few {
		s.many[string(seen)] = struct{}{}
	}
	s.many[string(name)] = struct{}{}
	return true
}
