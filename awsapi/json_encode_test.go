package awsapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sqs"
)

// encodingJSON renders v as encoding/json does without its HTML escapes,
// the oracle the hand-written encoders are held to byte for byte.
func encodingJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// The response shapes the hot actions had as encoding/json structs; the
// appenders must render exactly what these render.
type (
	wireSendMessage struct {
		MessageID                    string `json:"MessageId"`
		MD5OfMessageBody             string `json:"MD5OfMessageBody"`
		MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty"`
		MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty"`
		SequenceNumber               string `json:"SequenceNumber,omitempty"`
	}
	wireSendBatchEntry struct {
		ID string `json:"Id"`
		wireSendMessage
	}
	wireBatchError struct {
		ID          string `json:"Id"`
		Code        string `json:"Code"`
		Message     string `json:"Message,omitempty"`
		SenderFault bool   `json:"SenderFault"`
	}
	wireSendBatch struct {
		Successful []wireSendBatchEntry `json:"Successful"`
		Failed     []wireBatchError     `json:"Failed,omitempty"` // left out when none failed, as AWS does
	}
	wireEntryID struct {
		ID string `json:"Id"`
	}
	wireIDs struct {
		Successful []wireEntryID    `json:"Successful"`
		Failed     []wireBatchError `json:"Failed"`
	}
	wireMessageAttribute struct {
		DataType    string `json:"DataType"`
		StringValue string `json:"StringValue,omitempty"`
		BinaryValue []byte `json:"BinaryValue,omitempty"`
	}
	wireMessage struct {
		MessageID              string                          `json:"MessageId"`
		ReceiptHandle          string                          `json:"ReceiptHandle"`
		MD5OfBody              string                          `json:"MD5OfBody"`
		Body                   string                          `json:"Body"`
		Attributes             map[string]string               `json:"Attributes,omitempty"`
		MD5OfMessageAttributes string                          `json:"MD5OfMessageAttributes,omitempty"`
		MessageAttributes      map[string]wireMessageAttribute `json:"MessageAttributes,omitempty"`
	}
	wireReceive struct {
		Messages []wireMessage `json:"Messages,omitempty"`
	}
	wireError struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
)

func wireSend(o sqs.SendMessageOutput) wireSendMessage {
	return wireSendMessage{o.MessageID, o.MD5OfMessageBody, o.MD5OfMessageAttributes, o.MD5OfMessageSystemAttributes, o.SequenceNumber}
}

func wireErrors(in []sqs.BatchResultErrorEntry) []wireBatchError {
	out := []wireBatchError{}
	for _, e := range in {
		out = append(out, wireBatchError{e.ID, e.Code, e.Message, e.SenderFault})
	}
	return out
}

func TestHotResponsesMatchEncodingJSON(t *testing.T) {
	full := sqs.SendMessageOutput{MessageID: "m-1", MD5OfMessageBody: "b", MD5OfMessageAttributes: "a", MD5OfMessageSystemAttributes: "s", SequenceNumber: "0001"}
	bare := sqs.SendMessageOutput{MessageID: "m-2", MD5OfMessageBody: "b"}
	failed := []sqs.BatchResultErrorEntry{
		{ID: "x", Code: "InvalidMessageContents", Message: "bad <body> \"quoted\"", SenderFault: true},
		{ID: "y", Code: "InternalError"},
	}
	attrs := map[string]sqs.MessageAttributeValue{
		"z-last":  {DataType: "String", StringValue: "v\u2028"},
		"a-first": {DataType: "Binary", BinaryValue: []byte{0, 1, 0xff}},
		"empty":   {DataType: "Binary", BinaryValue: []byte{}},
		"number":  {DataType: "Number.int", StringValue: "42"},
	}
	msg := sqs.ReceivedMessage{
		MessageID: "m", ReceiptHandle: "rh", MD5OfBody: "md5", Body: "body \x01 \"q\" \u2029 日本",
		Attributes:             map[string]string{"SentTimestamp": "1", "ApproximateReceiveCount": "2", "AWSTraceHeader": "t"},
		MD5OfMessageAttributes: "mda", MessageAttributes: attrs,
	}
	wireMsg := func(m sqs.ReceivedMessage) wireMessage {
		w := wireMessage{m.MessageID, m.ReceiptHandle, m.MD5OfBody, m.Body, m.Attributes, m.MD5OfMessageAttributes, nil}
		if len(m.MessageAttributes) > 0 {
			w.MessageAttributes = map[string]wireMessageAttribute{}
			for name, a := range m.MessageAttributes {
				w.MessageAttributes[name] = wireMessageAttribute{a.DataType, a.StringValue, a.BinaryValue}
			}
		}
		return w
	}
	cases := []struct {
		name string
		resp jsonResponse
		want any
	}{
		{"send full", sendResult(full), wireSend(full)},
		{"send bare", sendResult(bare), wireSend(bare)},
		{"send batch", sendBatchResult{Successful: []sqs.SendMessageBatchResultEntry{{ID: "1", SendMessageOutput: full}, {ID: "2", SendMessageOutput: bare}}, Failed: failed},
			wireSendBatch{Successful: []wireSendBatchEntry{{"1", wireSend(full)}, {"2", wireSend(bare)}}, Failed: wireErrors(failed)}},
		{"send batch empty", sendBatchResult{}, wireSendBatch{Successful: []wireSendBatchEntry{}}},
		{"ids", idsResult{Successful: []string{"a", "b\""}, Failed: failed},
			wireIDs{Successful: []wireEntryID{{"a"}, {"b\""}}, Failed: wireErrors(failed)}},
		{"ids empty", idsResult{}, wireIDs{Successful: []wireEntryID{}, Failed: []wireBatchError{}}},
		{"receive", receiveResult{Messages: []sqs.ReceivedMessage{msg, {MessageID: "m2", Body: ""}}},
			wireReceive{Messages: []wireMessage{wireMsg(msg), wireMsg(sqs.ReceivedMessage{MessageID: "m2"})}}},
		{"receive none", receiveResult{}, wireReceive{}},
		{"empty", emptyResult{}, struct{}{}},
		{"error", jsonErrorBody{Type: "com.amazonaws.sqs#X", Message: "a <b> \"c\""}, wireError{"com.amazonaws.sqs#X", "a <b> \"c\""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.resp.appendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := encodingJSON(t, tc.want); string(got) != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}
