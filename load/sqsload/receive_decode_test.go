package sqsload

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecodeReceiveAnswerAgreesWithEncodingJSON(t *testing.T) {
	for _, doc := range []string{
		`{}`,
		`{"Messages":[]}`,
		`{"Messages":null}`,
		` { "Messages" : [ { "MessageId" : "a" , "ReceiptHandle" : "h1" } ] } `,
		`{"Messages":[{"Body":"x\"y\\z","MD5OfBody":"m","MessageId":"a","ReceiptHandle":"h\"1\\/","Attributes":{"SentTimestamp":"1"},` +
			`"MessageAttributes":{"k":{"DataType":"Number","StringValue":"1","BinaryListValues":[],"n":[1.5e3,true,false,null]}}},` +
			`{"ReceiptHandle":"h2","MessageId":"b\u00e9"}],"Other":[1,{"Messages":[]}]}`,
		`{"Messages":[{"MessageId":null,"ReceiptHandle":"h"}]}`,
	} {
		var want struct{ Messages []Message }
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatalf("bad test document %s: %v", doc, err)
		}
		got, err := decodeReceiveAnswer([]byte(doc), nil)
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if len(got) != len(want.Messages) || (len(got) > 0 && !reflect.DeepEqual(got, want.Messages)) {
			t.Errorf("%s: decoded %+v, encoding/json %+v", doc, got, want.Messages)
		}
	}
}

func TestDecodeReceiveAnswerRejectsMalformedJSON(t *testing.T) {
	for _, doc := range []string{``, `[]`, `{"Messages":[{"MessageId":"a"`, `{"Messages":[{"MessageId":"a"}]`,
		`{"Messages":{}}`, `{"Messages":[{"MessageId":"a\x01"}]}`, `{"Messages":[] } x`, `{"a" 1}`, `{"a":1,}`, `{"a":}`} {
		if got, err := decodeReceiveAnswer([]byte(doc), nil); err == nil {
			t.Errorf("%q accepted as %+v", doc, got)
		}
	}
}

func BenchmarkDecodeReceiveAnswer(b *testing.B) {
	msg := map[string]any{"MessageId": "0a1b2c3d-4e5f-6789-abcd-ef0123456789", "ReceiptHandle": "AQEB" + messageBody(120),
		"Body": messageBody(1024), "MD5OfBody": "0123456789abcdef0123456789abcdef"}
	msgs := make([]any, 10)
	for i := range msgs {
		msgs[i] = msg
	}
	doc, _ := json.Marshal(map[string]any{"Messages": msgs})
	b.Run("scanner", func(b *testing.B) {
		into := make([]Message, 0, 10)
		for b.Loop() {
			into, _ = decodeReceiveAnswer(doc, into[:0])
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var out struct{ Messages []Message }
			json.Unmarshal(doc, &out)
		}
	})
}
