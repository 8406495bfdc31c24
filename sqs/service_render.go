package sqs

import (
	"strconv"
	"strings"
	"time"
)

// Message system attribute names of ReceiveMessage.
const (
	SysAttrSenderID                         = "SenderId"
	SysAttrSentTimestamp                    = "SentTimestamp"
	SysAttrApproximateReceiveCount          = "ApproximateReceiveCount"
	SysAttrApproximateFirstReceiveTimestamp = "ApproximateFirstReceiveTimestamp"
	SysAttrMessageGroupID                   = "MessageGroupId"
	SysAttrMessageDeduplicationID           = "MessageDeduplicationId"
	SysAttrSequenceNumber                   = "SequenceNumber"
	SysAttrDeadLetterQueueSourceArn         = "DeadLetterQueueSourceArn"
	SysAttrAWSTraceHeader                   = traceHeader
)

var systemAttributeNames = []string{
	SysAttrSenderID, SysAttrSentTimestamp, SysAttrApproximateReceiveCount,
	SysAttrApproximateFirstReceiveTimestamp, SysAttrMessageGroupID, SysAttrMessageDeduplicationID,
	SysAttrSequenceNumber, SysAttrDeadLetterQueueSourceArn, SysAttrAWSTraceHeader,
}

// selection is what a ReceiveMessage asked to see of each message. Unknown
// system attribute names are ignored rather than refused, as clients pass
// all sorts of lists here.
type selection struct {
	system      map[string]bool
	allAttrs    bool
	attrNames   map[string]bool
	attrPrefixs []string // "prefix." of "prefix.*"
}

// newSelection reads what in asks for. Its maps are made only when
// something is asked for.
func newSelection(in ReceiveMessageInput) selection {
	var sel selection
	if len(in.AttributeNames)+len(in.MessageSystemAttributeNames) > 0 {
		sel.system = map[string]bool{}
	}
	if len(in.MessageAttributeNames) > 0 {
		sel.attrNames = map[string]bool{}
	}
	for _, list := range [][]string{in.AttributeNames, in.MessageSystemAttributeNames} {
		for _, n := range list {
			if n == AttrAll {
				for _, a := range systemAttributeNames {
					sel.system[a] = true
				}
				continue
			}
			sel.system[n] = true
		}
	}
	for _, n := range in.MessageAttributeNames {
		switch {
		case n == AttrAll || n == "*" || n == ".*":
			sel.allAttrs = true
		case strings.HasSuffix(n, ".*"):
			sel.attrPrefixs = append(sel.attrPrefixs, strings.TrimSuffix(n, "*"))
		default:
			sel.attrNames[n] = true
		}
	}
	return sel
}

func (sel selection) wantsAttribute(name string) bool {
	if sel.allAttrs || sel.attrNames[name] {
		return true
	}
	for _, p := range sel.attrPrefixs {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// unixMillis renders a timestamp system attribute.
func unixMillis(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// render builds the answer for one received message.
func (sel selection) render(m *Message, handle string) ReceivedMessage {
	out := ReceivedMessage{
		MessageID:     m.ID.String(),
		ReceiptHandle: handle,
		Body:          m.Body,
		MD5OfBody:     m.BodyDigest(),
	}
	attrs := map[string]string{}
	set := func(name, value string) {
		if sel.system[name] && value != "" {
			attrs[name] = value
		}
	}
	set(SysAttrSenderID, m.SenderID)
	set(SysAttrSentTimestamp, unixMillis(m.SentAt))
	set(SysAttrApproximateReceiveCount, strconv.Itoa(m.State.ReceiveCount))
	if !m.State.FirstReceiveAt.IsZero() {
		set(SysAttrApproximateFirstReceiveTimestamp, unixMillis(m.State.FirstReceiveAt))
	}
	set(SysAttrMessageGroupID, m.MessageGroupID)
	set(SysAttrMessageDeduplicationID, m.MessageDeduplicationID)
	set(SysAttrSequenceNumber, m.SequenceNumber)
	set(SysAttrDeadLetterQueueSourceArn, m.DeadLetterSourceARN)
	if th, ok := m.SystemAttributes[traceHeader]; ok {
		set(SysAttrAWSTraceHeader, th.StringValue)
	}
	if len(attrs) > 0 {
		out.Attributes = attrs
	}
	for name, a := range m.Attributes {
		if sel.wantsAttribute(name) {
			if out.MessageAttributes == nil {
				out.MessageAttributes = map[string]MessageAttributeValue{}
			}
			out.MessageAttributes[name] = a
		}
	}
	out.MD5OfMessageAttributes = MD5OfMessageAttributes(out.MessageAttributes)
	return out
}
