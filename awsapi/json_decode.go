package awsapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/heraldmq/herald/internal/jsonobj"
	"github.com/heraldmq/herald/sqs"
)

// jsonDecoder reads the JSON 1.0 body of one request.
type jsonDecoder struct {
	body    []byte
	pathURL string // the queue URL of the request path, or ""
}

func newJSONDecoder(c *Call) *jsonDecoder {
	return &jsonDecoder{body: c.Body, pathURL: pathQueueURL(c)}
}

// decode reads the request object into fields (member name → pointer).
// Any decoding failure is a SerializationException.
func (d *jsonDecoder) decode(fields map[string]any) error {
	body := d.body
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}") // curl and hand-written clients may send nothing
	}
	if err := decodeMembers(body, fields); err != nil {
		return errSerialization("%s", describeJSONError(err))
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

// decodeMembers decodes the JSON object data member by member into the
// targets of fields. Names match exactly (encoding/json would match
// "queueurl" too), a name may appear once, null means absent, and members
// Herald does not know are ignored, as newer SDKs may send them.
func decodeMembers(data []byte, fields map[string]any) error {
	return jsonobj.Members(data, func(name string, value json.RawMessage) error {
		target, ok := fields[name]
		if !ok || string(value) == "null" {
			return nil
		}
		if err := json.Unmarshal(value, target); err != nil {
			return &memberError{name: name, err: err}
		}
		return nil
	})
}

// memberError locates a decoding failure at a member, nested members
// building a path like Entries.MessageAttributes.color.DataType.
type memberError struct {
	name string
	err  error
}

func (e *memberError) Error() string { return e.name + ": " + e.err.Error() }
func (e *memberError) Unwrap() error { return e.err }

// describeJSONError says what is wrong without Go type names.
func describeJSONError(err error) string {
	path := ""
	for {
		var me *memberError
		if !errors.As(err, &me) {
			break
		}
		if path != "" {
			path += "."
		}
		path += me.name
		err = me.err
	}
	msg := err.Error()
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		msg = fmt.Sprintf("expected %s, found %s", jsonKind(typeErr.Type), typeErr.Value)
	}
	if path == "" {
		return "malformed request: " + msg
	}
	return "malformed member " + path + ": " + msg
}

// jsonKind names the JSON type a Go type is read from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// stringMap is a JSON object of strings (queue attributes, tags) whose
// names must be distinct.
type stringMap map[string]string

func (m *stringMap) UnmarshalJSON(data []byte) error {
	out := stringMap{}
	err := jsonobj.Members(data, func(name string, value json.RawMessage) error {
		var s string
		if err := json.Unmarshal(value, &s); err != nil {
			return &memberError{name: name, err: err}
		}
		out[name] = s
		return nil
	})
	*m = out
	return err
}

// attributeMap is a JSON object of message attributes by name.
type attributeMap map[string]sqs.MessageAttributeValue

func (m *attributeMap) UnmarshalJSON(data []byte) error {
	out := attributeMap{}
	err := jsonobj.Members(data, func(name string, value json.RawMessage) error {
		var a sqs.MessageAttributeValue
		// StringListValues and BinaryListValues are reserved by AWS and
		// not implemented; they are ignored like any unknown member.
		err := decodeMembers(value, map[string]any{
			"DataType":    &a.DataType,
			"StringValue": &a.StringValue,
			"BinaryValue": &a.BinaryValue,
		})
		if err != nil {
			return &memberError{name: name, err: err}
		}
		out[name] = a
		return nil
	})
	*m = out
	return err
}

// sendEntry is one SendMessageBatchRequestEntry.
type sendEntry sqs.SendMessageBatchEntry

func (e *sendEntry) UnmarshalJSON(data []byte) error {
	return decodeMembers(data, map[string]any{
		"Id":                      &e.ID,
		"MessageBody":             &e.MessageBody,
		"DelaySeconds":            &e.DelaySeconds,
		"MessageAttributes":       (*attributeMap)(&e.MessageAttributes),
		"MessageSystemAttributes": (*attributeMap)(&e.MessageSystemAttributes),
		"MessageDeduplicationId":  &e.MessageDeduplicationID,
		"MessageGroupId":          &e.MessageGroupID,
	})
}

// handleEntry is one DeleteMessageBatch or ChangeMessageVisibilityBatch
// request entry.
type handleEntry sqs.BatchHandleEntry

func (e *handleEntry) UnmarshalJSON(data []byte) error {
	return decodeMembers(data, map[string]any{
		"Id":                &e.ID,
		"ReceiptHandle":     &e.ReceiptHandle,
		"VisibilityTimeout": &e.VisibilityTimeout,
	})
}

func sendEntries(in []sendEntry) []sqs.SendMessageBatchEntry {
	out := make([]sqs.SendMessageBatchEntry, len(in))
	for i, e := range in {
		out[i] = sqs.SendMessageBatchEntry(e)
	}
	return out
}

func handleEntries(in []handleEntry) []sqs.BatchHandleEntry {
	out := make([]sqs.BatchHandleEntry, len(in))
	for i, e := range in {
		out[i] = sqs.BatchHandleEntry(e)
	}
	return out
}
