package sns

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// validatePublish checks one message for topic t as AWS does.
func validatePublish(t *Topic, en PublishBatchEntry) *Error {
	if e := requestError(t, en); e != nil {
		return e
	}
	return entryError(t, en)
}

// requestError checks what AWS refuses a whole PublishBatch for when one
// entry breaks it: its MessageStructure, its message attributes, and on a
// FIFO topic a missing MessageGroupId or deduplication ID.
func requestError(t *Topic, en PublishBatchEntry) *Error {
	switch en.MessageStructure {
	case "":
	case "json":
		if _, e := parseStructure(en.Message); e != nil {
			return e
		}
	default:
		return ErrInvalidParameter("MessageStructure")
	}
	for name, v := range en.MessageAttributes {
		if e := validateAttribute(name, v); e != nil {
			return e
		}
	}
	if topicFIFO(t) {
		if en.MessageGroupID == "" {
			return ErrInvalidParameter("The MessageGroupId parameter is required for FIFO topics")
		}
		if en.MessageDeduplicationID == "" && !boolAttr(t.Attributes, AttrContentBasedDeduplication) {
			return ErrInvalidParameter("The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
		}
	}
	return nil
}

// entryError checks the rest of one message: in a PublishBatch these fail
// the entry alone.
func entryError(t *Topic, en PublishBatchEntry) *Error {
	if en.Message == "" {
		return ErrInvalidParameter("Empty message")
	}
	if messageSize(en.Message, en.MessageAttributes) > MaxMessageBytes {
		return ErrInvalidParameter("Message too long")
	}
	if en.Subject != nil && !validSubject(*en.Subject) {
		return errSubject()
	}
	if len(en.MessageGroupID) > MaxGroupIDLength || !printableASCII(en.MessageGroupID) {
		return ErrInvalidParameter("MessageGroupId")
	}
	if !topicFIFO(t) {
		if en.MessageDeduplicationID != "" {
			return ErrInvalidParameter("MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type")
		}
		return nil
	}
	if len(en.MessageDeduplicationID) > MaxDedupIDLength || !printableASCII(en.MessageDeduplicationID) {
		return ErrInvalidParameter("MessageDeduplicationId")
	}
	return nil
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// validSubject: 1 to 100 ASCII characters, starting with a letter, digit
// or punctuation, no line breaks or control characters.
func validSubject(s string) bool {
	if s == "" || len(s) > MaxSubjectLength || s[0] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// parseStructure reads a MessageStructure=json message: a JSON object
// whose string members are each a protocol's text, with a "default" one.
// As on AWS, members whose values are not strings are ignored (a
// non-string "default" is no default).
func parseStructure(msg string) (map[string]string, *Error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(msg), &m); err != nil || m == nil {
		return nil, errStructureUnparsable()
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if str, ok := v.(string); ok {
			out[k] = str
		}
	}
	if _, ok := out["default"]; !ok {
		return nil, errStructureNoDefault()
	}
	return out, nil
}

// validateAttributeName checks a message attribute's name as AWS does,
// with its words: at most 256 bytes, letters, digits, hyphens,
// underscores and dots, no dot first, last or after another.
func validateAttributeName(name string) *Error {
	bad := func(format string, args ...any) *Error { return NewError(CodeInvalidParameterValue, format, args...) }
	switch {
	case len(name) > 256:
		return bad("Length of message attribute name must be less than 256 bytes.")
	case name == "":
		return bad("The message attribute name '' is invalid.")
	case name[0] == '.':
		return bad("Invalid message attribute name starting with character '.' was found.")
	case name[len(name)-1] == '.':
		return bad("Invalid message attribute name ending with character '.' was found.")
	}
	prev := rune(0)
	for _, r := range name {
		if r >= utf8.RuneSelf || (!isNameChar(byte(r)) && r != '.') {
			return bad("Invalid non-alphanumeric character '#x%X' was found in the message attribute name. "+
				"Can only include alphanumeric characters, hyphens, underscores, or dots.", r)
		}
		if r == '.' && prev == '.' {
			return bad("Message attribute name can not have successive '.' character.")
		}
		prev = r
	}
	return nil
}

// validateAttribute checks one message attribute.
func validateAttribute(name string, v MessageAttributeValue) *Error {
	bad := func(format string, args ...any) *Error { return NewError(CodeInvalidParameterValue, format, args...) }
	if e := validateAttributeName(name); e != nil {
		return e
	}
	lower := strings.ToLower(name)
	if (strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon.")) && !smsMessageAttrs[name] {
		return bad("The message attribute name '%s' is reserved.", name)
	}
	base := attributeBaseType(v.DataType)
	switch base {
	case "String", "Number", "String.Array":
		if v.StringValue == "" && len(v.BinaryValue) > 0 {
			return bad("The message attribute '%s' with type '%s' must use field 'String'.", name, v.DataType)
		}
		if v.StringValue == "" {
			return bad("The message attribute '%s' must contain non-empty message attribute value for message attribute type '%s'.", name, v.DataType)
		}
		if !utf8.ValidString(v.StringValue) {
			return bad("The message attribute '%s' contains invalid characters.", name)
		}
	case "Binary":
		if len(v.BinaryValue) == 0 && v.StringValue != "" {
			return bad("The message attribute '%s' with type '%s' must use field 'Binary'.", name, v.DataType)
		}
		if len(v.BinaryValue) == 0 {
			return bad("The message attribute '%s' must contain non-empty message attribute value for message attribute type '%s'.", name, v.DataType)
		}
	default:
		return bad("The message attribute '%s' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.", name)
	}
	switch base {
	case "Number":
		if _, err := strconv.ParseFloat(v.StringValue, 64); err != nil {
			return bad("The message attribute '%s' with type 'Number' must have a valid numeric value.", name)
		}
	case "String.Array":
		var arr []any
		if err := json.Unmarshal([]byte(v.StringValue), &arr); err != nil {
			return bad("The message attribute '%s' with type 'String.Array' must be a valid JSON array.", name)
		}
	}
	return nil
}

func validBatchID(id string) bool {
	if id == "" || len(id) > MaxBatchEntryIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isNameChar(id[i]) {
			return false
		}
	}
	return true
}

// attributeBaseType is the type a message attribute's DataType names:
// String.Array, String, Number or Binary, alone or followed by a dot and a
// non-empty custom suffix ("Number.float"); "" for anything else,
// "String." included.
func attributeBaseType(dataType string) string {
	for _, base := range []string{"String.Array", "String", "Number", "Binary"} {
		if dataType == base {
			return base
		}
		if custom, ok := strings.CutPrefix(dataType, base+"."); ok && custom != "" {
			return base
		}
	}
	return ""
}
