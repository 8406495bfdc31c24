package sns_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sns"
)

func TestPublishValidation(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	fifo := e.createTopic(t, "f.fifo", map[string]string{"FifoTopic": "true"})
	cbd := e.createTopic(t, "c.fifo", map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"})
	str := func(v string) sns.MessageAttributeValue {
		return sns.MessageAttributeValue{DataType: "String", StringValue: v}
	}
	tests := []struct {
		name string
		in   sns.PublishInput
		code string
	}{
		{"plain", sns.PublishInput{TopicARN: topic, Message: "hi"}, ""},
		{"target arn", sns.PublishInput{TargetARN: topic, Message: "hi"}, ""},
		{"subject", sns.PublishInput{TopicARN: topic, Message: "hi", Subject: ptr("Hello, world!")}, ""},
		{"attributes", sns.PublishInput{TopicARN: topic, Message: "hi", MessageAttributes: map[string]sns.MessageAttributeValue{
			"s": str("x"), "n": {DataType: "Number", StringValue: "1.5"}, "b": {DataType: "Binary", BinaryValue: []byte{1}},
			"a": {DataType: "String.Array", StringValue: `["x", 1]`}, "c": {DataType: "String.custom", StringValue: "y"}}}, ""},
		{"json structure", sns.PublishInput{TopicARN: topic, Message: `{"default":"d","sqs":"q"}`, MessageStructure: "json"}, ""},
		{"max size", sns.PublishInput{TopicARN: topic, Message: strings.Repeat("x", sns.MaxMessageBytes)}, ""},

		{"no topic", sns.PublishInput{Message: "hi"}, sns.CodeInvalidParameter},
		{"both arns", sns.PublishInput{TopicARN: topic, TargetARN: topic, Message: "hi"}, sns.CodeInvalidParameter},
		{"bad phone", sns.PublishInput{PhoneNumber: "555-0100", Message: "hi"}, sns.CodeInvalidParameter},
		{"missing topic", sns.PublishInput{TopicARN: topic + "x", Message: "hi"}, sns.CodeNotFound},
		{"empty message", sns.PublishInput{TopicARN: topic}, sns.CodeInvalidParameter},
		{"too long", sns.PublishInput{TopicARN: topic, Message: strings.Repeat("x", sns.MaxMessageBytes+1)}, sns.CodeInvalidParameter},
		{"too long with attributes", sns.PublishInput{TopicARN: topic, Message: strings.Repeat("x", sns.MaxMessageBytes-5),
			MessageAttributes: map[string]sns.MessageAttributeValue{"k": str("value")}}, sns.CodeInvalidParameter},
		{"subject too long", sns.PublishInput{TopicARN: topic, Message: "hi", Subject: ptr(strings.Repeat("s", 101))}, sns.CodeInvalidParameter},
		{"subject newline", sns.PublishInput{TopicARN: topic, Message: "hi", Subject: ptr("a\nb")}, sns.CodeInvalidParameter},
		{"subject leading space", sns.PublishInput{TopicARN: topic, Message: "hi", Subject: ptr(" a")}, sns.CodeInvalidParameter},
		{"json without default", sns.PublishInput{TopicARN: topic, Message: `{"sqs":"q"}`, MessageStructure: "json"}, sns.CodeInvalidParameter},
		{"json not json", sns.PublishInput{TopicARN: topic, Message: `hello`, MessageStructure: "json"}, sns.CodeInvalidParameter},
		{"json not strings", sns.PublishInput{TopicARN: topic, Message: `{"default":1}`, MessageStructure: "json"}, sns.CodeInvalidParameter},
		{"other structure", sns.PublishInput{TopicARN: topic, Message: `x`, MessageStructure: "xml"}, sns.CodeInvalidParameter},
		{"empty attribute", sns.PublishInput{TopicARN: topic, Message: "hi", MessageAttributes: map[string]sns.MessageAttributeValue{"k": str("")}}, sns.CodeInvalidParameterValue},
		{"bad number", sns.PublishInput{TopicARN: topic, Message: "hi", MessageAttributes: map[string]sns.MessageAttributeValue{"k": {DataType: "Number", StringValue: "one"}}}, sns.CodeInvalidParameterValue},
		{"bad array", sns.PublishInput{TopicARN: topic, Message: "hi", MessageAttributes: map[string]sns.MessageAttributeValue{"k": {DataType: "String.Array", StringValue: "x"}}}, sns.CodeInvalidParameterValue},
		{"bad type", sns.PublishInput{TopicARN: topic, Message: "hi", MessageAttributes: map[string]sns.MessageAttributeValue{"k": {DataType: "Date", StringValue: "x"}}}, sns.CodeInvalidParameterValue},
		{"reserved name", sns.PublishInput{TopicARN: topic, Message: "hi", MessageAttributes: map[string]sns.MessageAttributeValue{"AWS.x": str("x")}}, sns.CodeInvalidParameterValue},
		{"bad name", sns.PublishInput{TopicARN: topic, Message: "hi", MessageAttributes: map[string]sns.MessageAttributeValue{"a..b": str("x")}}, sns.CodeInvalidParameterValue},
		{"dedup on standard", sns.PublishInput{TopicARN: topic, Message: "hi", MessageDeduplicationID: "d"}, sns.CodeInvalidParameter},

		{"fifo", sns.PublishInput{TopicARN: fifo, Message: "hi", MessageGroupID: "g", MessageDeduplicationID: "d"}, ""},
		{"fifo without group", sns.PublishInput{TopicARN: fifo, Message: "hi", MessageDeduplicationID: "d"}, sns.CodeInvalidParameter},
		{"fifo without dedup", sns.PublishInput{TopicARN: fifo, Message: "hi", MessageGroupID: "g"}, sns.CodeInvalidParameter},
		{"fifo content dedup", sns.PublishInput{TopicARN: cbd, Message: "hi", MessageGroupID: "g"}, ""},
		{"fifo long dedup", sns.PublishInput{TopicARN: fifo, Message: "hi", MessageGroupID: "g", MessageDeduplicationID: strings.Repeat("d", 129)}, sns.CodeInvalidParameter},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.svc.Publish(e.ctx, caller, tc.in)
			wantCode(t, err, tc.code)
			if tc.code != "" {
				return
			}
			id, perr := uuid.Parse(out.MessageID)
			if perr != nil || id.Version() != 4 {
				t.Fatalf("MessageId %q is not a version 4 UUID", out.MessageID)
			}
			if fifo := strings.HasSuffix(tc.in.TopicARN, ".fifo"); fifo != (out.SequenceNumber != "") {
				t.Fatalf("SequenceNumber = %q", out.SequenceNumber)
			}
		})
	}
}

func TestPublishFIFODeduplication(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "f.fifo", map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"})
	a := e.publish(t, sns.PublishInput{TopicARN: topic, Message: "one", MessageGroupID: "g", MessageDeduplicationID: "d1"})
	b := e.publish(t, sns.PublishInput{TopicARN: topic, Message: "other body", MessageGroupID: "g", MessageDeduplicationID: "d1"})
	c := e.publish(t, sns.PublishInput{TopicARN: topic, Message: "one", MessageGroupID: "g"})
	d := e.publish(t, sns.PublishInput{TopicARN: topic, Message: "one", MessageGroupID: "g2"})
	if a.MessageID != b.MessageID || a.SequenceNumber != b.SequenceNumber {
		t.Fatalf("duplicate answered %+v, original %+v", b, a)
	}
	if c.MessageID == a.MessageID || d.MessageID != c.MessageID {
		t.Fatalf("content dedup: %+v %+v (deduplication is per topic, across groups)", c, d)
	}
	if c.SequenceNumber <= a.SequenceNumber && len(c.SequenceNumber) <= len(a.SequenceNumber) {
		t.Fatalf("sequence numbers do not grow: %s then %s", a.SequenceNumber, c.SequenceNumber)
	}
}

func TestPublishBatch(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	out, err := e.svc.PublishBatch(e.ctx, caller, sns.PublishBatchInput{TopicARN: topic, Entries: []sns.PublishBatchEntry{
		{ID: "a", Message: "one"}, {ID: "b", Message: ""}, {ID: "c", Message: "three", Subject: ptr("s")},
	}})
	wantCode(t, err, "")
	if len(out.Successful) != 2 || len(out.Failed) != 1 || out.Failed[0].ID != "b" || out.Failed[0].Code != sns.CodeInvalidParameter || !out.Failed[0].SenderFault {
		t.Fatalf("out = %+v", out)
	}
	if out.Successful[0].MessageID == out.Successful[1].MessageID {
		t.Fatal("two entries share a MessageId")
	}
	entries := func(ids ...string) []sns.PublishBatchEntry {
		var es []sns.PublishBatchEntry
		for _, id := range ids {
			es = append(es, sns.PublishBatchEntry{ID: id, Message: "m"})
		}
		return es
	}
	tests := []struct {
		name    string
		entries []sns.PublishBatchEntry
		code    string
	}{
		{"empty", nil, sns.CodeEmptyBatchRequest},
		{"too many", entries("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"), sns.CodeTooManyEntriesInBatchRequest},
		{"same ids", entries("1", "1"), sns.CodeBatchEntryIdsNotDistinct},
		{"bad id", entries("a b"), sns.CodeInvalidBatchEntryID},
		{"too long", []sns.PublishBatchEntry{{ID: "1", Message: strings.Repeat("x", 200000)}, {ID: "2", Message: strings.Repeat("x", 100000)}}, sns.CodeBatchRequestTooLong},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.PublishBatch(e.ctx, caller, sns.PublishBatchInput{TopicARN: topic, Entries: tc.entries})
			wantCode(t, err, tc.code)
		})
	}
}

// TestMessageAttributeErrorsInAWSWords: a bad message attribute name or
// value field is InvalidParameterValue with AWS's own message.
func TestMessageAttributeErrorsInAWSWords(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "attrs", nil)
	str := sns.MessageAttributeValue{DataType: "String", StringValue: "v"}
	for _, tc := range []struct {
		name    string
		attrs   map[string]sns.MessageAttributeValue
		message string
	}{
		{"successive dots", map[string]sns.MessageAttributeValue{"a..b": str}, "Message attribute name can not have successive '.' character."},
		{"dot first", map[string]sns.MessageAttributeValue{".a": str}, "Invalid message attribute name starting with character '.' was found."},
		{"dot last", map[string]sns.MessageAttributeValue{"a.": str}, "Invalid message attribute name ending with character '.' was found."},
		{"a hash", map[string]sns.MessageAttributeValue{"a#b": str}, "Invalid non-alphanumeric character '#x23' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots."},
		{"an accent", map[string]sns.MessageAttributeValue{"café": str}, "Invalid non-alphanumeric character '#xE9' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots."},
		{"too long", map[string]sns.MessageAttributeValue{strings.Repeat("a", 257): str}, "Length of message attribute name must be less than 256 bytes."},
		{"String in Binary's field", map[string]sns.MessageAttributeValue{"x": {DataType: "String", BinaryValue: []byte("b")}}, "The message attribute 'x' with type 'String' must use field 'String'."},
		{"Binary in String's field", map[string]sns.MessageAttributeValue{"x": {DataType: "Binary.jpeg", StringValue: "s"}}, "The message attribute 'x' with type 'Binary.jpeg' must use field 'Binary'."},
		{"no value", map[string]sns.MessageAttributeValue{"x": {DataType: "Number"}}, "The message attribute 'x' must contain non-empty message attribute value for message attribute type 'Number'."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Publish(e.ctx, caller, sns.PublishInput{TopicARN: topic, Message: "m", MessageAttributes: tc.attrs})
			wantError(t, err, sns.CodeInvalidParameterValue, tc.message)
		})
	}
}
