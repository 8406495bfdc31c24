package awsapi

import (
	"github.com/heraldmq/herald/internal/jsonenc"
	"slices"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// Responses of the message actions, the ones clients call per message,
// appended straight into the response buffer. Member names and order
// follow the SQS service model and match what encoding/json rendered from
// the former response structs (omitempty members included); the tests
// hold them to that.

// sendResult answers SendMessage.
type sendResult sqs.SendMessageOutput

func (r sendResult) appendJSON(dst []byte) ([]byte, error) {
	return appendSendOutput(append(dst, '{'), sqs.SendMessageOutput(r)), nil
}

// appendSendOutput appends the members of out to an open object.
func appendSendOutput(dst []byte, out sqs.SendMessageOutput) []byte {
	dst = appendStringMember(dst, "MessageId", out.MessageID)
	dst = appendStringMember(dst, "MD5OfMessageBody", out.MD5OfMessageBody)
	dst = appendOptionalString(dst, "MD5OfMessageAttributes", out.MD5OfMessageAttributes)
	dst = appendOptionalString(dst, "MD5OfMessageSystemAttributes", out.MD5OfMessageSystemAttributes)
	dst = appendOptionalString(dst, "SequenceNumber", out.SequenceNumber)
	return append(dst, '}')
}

// sendBatchResult answers SendMessageBatch. As AWS's answers do, it
// leaves Failed out when no entry failed.
type sendBatchResult sqs.SendMessageBatchOutput

func (r sendBatchResult) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"Successful":[`...)
	for i, e := range r.Successful {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendStringMember(append(dst, '{'), "Id", e.ID)
		dst = appendSendOutput(dst, e.SendMessageOutput)
	}
	dst = append(dst, ']')
	if len(r.Failed) > 0 {
		dst = appendBatchErrors(append(dst, `,"Failed":`...), r.Failed)
	}
	return append(dst, '}'), nil
}

// idsResult answers DeleteMessageBatch and ChangeMessageVisibilityBatch.
type idsResult sqs.BatchIDsOutput

func (r idsResult) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"Successful":[`...)
	for i, id := range r.Successful {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(appendStringMember(append(dst, '{'), "Id", id), '}')
	}
	dst = appendBatchErrors(append(dst, `],"Failed":`...), r.Failed)
	return append(dst, '}'), nil
}

// appendBatchErrors appends the Failed list of a batch answer
// (DeleteMessageBatch and ChangeMessageVisibilityBatch give it even when
// empty).
func appendBatchErrors(dst []byte, failed []sqs.BatchResultErrorEntry) []byte {
	dst = append(dst, '[')
	for i, e := range failed {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendStringMember(append(dst, '{'), "Id", e.ID)
		dst = appendStringMember(dst, "Code", e.Code)
		dst = appendOptionalString(dst, "Message", herald.ClipMessage(e.Message))
		dst = append(appendMember(dst, "SenderFault"), boolText(e.SenderFault)...)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// receiveResult answers ReceiveMessage; Messages is left out when there
// are none.
type receiveResult sqs.ReceiveMessageOutput

func (r receiveResult) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	if len(r.Messages) > 0 {
		dst = append(appendMember(dst, "Messages"), '[')
		for i, m := range r.Messages {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendReceivedMessage(dst, m)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}

func appendReceivedMessage(dst []byte, m sqs.ReceivedMessage) []byte {
	dst = appendStringMember(append(dst, '{'), "MessageId", m.MessageID)
	dst = appendStringMember(dst, "ReceiptHandle", m.ReceiptHandle)
	dst = appendStringMember(dst, "MD5OfBody", m.MD5OfBody)
	dst = appendStringMember(dst, "Body", m.Body)
	if len(m.Attributes) > 0 {
		dst = appendStringMap(appendMember(dst, "Attributes"), m.Attributes)
	}
	dst = appendOptionalString(dst, "MD5OfMessageAttributes", m.MD5OfMessageAttributes)
	if len(m.MessageAttributes) > 0 {
		dst = appendMessageAttributes(appendMember(dst, "MessageAttributes"), m.MessageAttributes)
	}
	return append(dst, '}')
}

// appendMessageAttributes appends attrs by name in order, as encoding/json
// renders maps.
func appendMessageAttributes(dst []byte, attrs map[string]sqs.MessageAttributeValue) []byte {
	var buf [16]string
	names := buf[:0]
	for name := range attrs {
		names = append(names, name)
	}
	slices.Sort(names)
	dst = append(dst, '{')
	for i, name := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		a := attrs[name]
		dst = append(jsonenc.AppendString(dst, name), ':', '{')
		dst = appendStringMember(dst, "DataType", a.DataType)
		dst = appendOptionalString(dst, "StringValue", a.StringValue)
		if len(a.BinaryValue) > 0 {
			dst = appendBase64(appendMember(dst, "BinaryValue"), a.BinaryValue)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}
