package sqs

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heraldmq/herald/internal/decimal"
)

// Base data types of a message attribute; a custom type appends ".label",
// e.g. "Number.float" or "Binary.gif".
const (
	DataTypeString = "String"
	DataTypeNumber = "Number"
	DataTypeBinary = "Binary"
)

// MessageAttributeValue is one user message attribute. String and Number
// types carry StringValue; Binary types carry BinaryValue (raw bytes, already
// base64-decoded by the protocol edge).
type MessageAttributeValue struct {
	DataType    string
	StringValue string
	BinaryValue []byte
}

// BaseDataType returns "String", "Number" or "Binary" for a data type with or
// without a custom label, and "" for anything else.
func BaseDataType(dataType string) string {
	base, _, _ := strings.Cut(dataType, ".")
	switch base {
	case DataTypeString, DataTypeNumber, DataTypeBinary:
		return base
	}
	return ""
}

// AllowedRune reports whether SQS accepts r in a message: #x9 | #xA | #xD |
// #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.
func AllowedRune(r rune) bool {
	switch {
	case r == 0x9 || r == 0xA || r == 0xD:
		return true
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// firstInvalid returns the byte offset of the first character SQS rejects in
// s (including invalid UTF-8), or -1.
func firstInvalid(s string) int {
	// Fast path: printable ASCII (and tab, newline, carriage return)
	// without decoding runes, eight bytes at a time while none is below
	// 0x20 or above 0x7f, else a byte at a time. Most bodies are all ASCII
	// and never leave this loop.
	start := 0
	for start < len(s) {
		if start+8 <= len(s) {
			b := s[start : start+8] // constant indices below: one bounds check, one load
			w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			// A byte >= 0x80 has its top bit set; a byte < 0x20 borrows
			// through its top bit when 0x20 is taken from it.
			if (w|(w-0x2020202020202020))&0x8080808080808080 == 0 {
				start += 8
				continue
			}
		}
		c := s[start]
		if c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			break
		}
		start++
	}
	if start == len(s) {
		return -1
	}
	for i, r := range s[start:] {
		i += start
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return i // invalid UTF-8, not a literal U+FFFD
			}
		}
		if !AllowedRune(r) {
			return i
		}
	}
	return -1
}

// ValidateBody checks a message body: it must be non-empty
// (MissingParameter) and contain only the characters SQS allows
// (InvalidMessageContents).
func ValidateBody(body string) error {
	if body == "" {
		return ErrMissingParameter("MessageBody")
	}
	if i := firstInvalid(body); i >= 0 {
		return NewError(CodeInvalidMessageContents, "Invalid binary character in the message body at byte offset %d. Valid characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF", i)
	}
	return nil
}

// MessageSize is the size SQS counts against MaximumMessageSize: the body's
// UTF-8 bytes plus, for each message attribute, the bytes of its name, data
// type and value.
func MessageSize(body string, attrs map[string]MessageAttributeValue) int {
	n := len(body)
	for name, a := range attrs {
		n += len(name) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}

// CheckMessageSize returns InvalidParameterValue when size exceeds max.
func CheckMessageSize(size, max int) error {
	if size > max {
		return ErrInvalidParameterValue("One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", max)
	}
	return nil
}

// ValidateMessageAttributeName checks a message attribute name: 1 to maxLen
// characters, letters and digits (of any script, as AWS accepts them), _ -
// and ., that do not start with "AWS." or "Amazon." (in any case), do not
// start or end with "." and contain no "..".
func ValidateMessageAttributeName(name string, maxLen int) error {
	bad := func(why string) error {
		return ErrInvalidParameterValue("Message (user) attribute name '%s' is invalid. Reason: %s", name, why)
	}
	if n := utf8.RuneCountInString(name); n == 0 || n > maxLen {
		return bad("must be 1 to " + strconv.Itoa(maxLen) + " characters long.")
	}
	for _, r := range name {
		if !attributeNameRune(r) {
			return bad("can only contain alphanumeric characters, hyphens, underscores and periods.")
		}
	}
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon.") {
		return bad("names starting with AWS. or Amazon. are reserved.")
	}
	if name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return bad("must not start or end with a period or contain consecutive periods.")
	}
	return nil
}

// attributeNameRune reports whether r may appear in a message attribute
// name. utf8.RuneError (invalid UTF-8) is not a letter.
func attributeNameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.'
}

// validDataType checks "String", "Number", "Binary", optionally followed by
// "." and a non-empty custom label of the name characters and periods.
func validDataType(dt string, maxLen int) bool {
	if len(dt) == 0 || len(dt) > maxLen || BaseDataType(dt) == "" {
		return false
	}
	_, label, custom := strings.Cut(dt, ".")
	if !custom {
		return true
	}
	if label == "" {
		return false
	}
	for i := 0; i < len(label); i++ {
		if c := label[i]; !isNameChar(c) && c != '.' {
			return false
		}
	}
	return true
}

// ValidateMessageAttributes checks user message attributes: at most
// lim.MaxMessageAttributes, valid names and data types, a non-empty value in
// the field matching the type, String values of allowed characters and
// Number values that are decimal numbers. Errors are InvalidParameterValue.
func ValidateMessageAttributes(attrs map[string]MessageAttributeValue, lim Limits) error {
	if len(attrs) > lim.MaxMessageAttributes {
		return ErrInvalidParameterValue("Number of message attributes [%d] exceeds the allowed maximum [%d].", len(attrs), lim.MaxMessageAttributes)
	}
	for _, name := range sortedNames(attrs) {
		a := attrs[name]
		if err := ValidateMessageAttributeName(name, lim.MaxMessageAttributeNameLen); err != nil {
			return err
		}
		if !validDataType(a.DataType, lim.MaxMessageAttributeTypeLen) {
			return ErrInvalidParameterValue("The type of message (user) attribute '%s' is invalid. You must use only the following supported type prefixes: Binary, Number, String.", name)
		}
		switch BaseDataType(a.DataType) {
		case DataTypeBinary:
			if len(a.BinaryValue) == 0 || a.StringValue != "" {
				return ErrInvalidParameterValue("Message (user) attribute '%s' must contain a non-empty value of message attribute type '%s'.", name, a.DataType)
			}
		default:
			if a.StringValue == "" || a.BinaryValue != nil {
				return ErrInvalidParameterValue("Message (user) attribute '%s' must contain a non-empty value of message attribute type '%s'.", name, a.DataType)
			}
			if firstInvalid(a.StringValue) >= 0 {
				return ErrInvalidParameterValue("Message (user) attribute '%s' contains characters outside the allowed set.", name)
			}
			if BaseDataType(a.DataType) == DataTypeNumber && !decimal.Valid(a.StringValue) {
				return ErrInvalidParameterValue("Can't parse value of message (user) attribute '%s' of type '%s' as a number.", name, a.DataType)
			}
		}
	}
	return nil
}
