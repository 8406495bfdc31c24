package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The benchmark decodes an SQS SendMessageBatch request, the shape whose
// decoding dominated the AWS JSON edge's profile.

type batchRequest struct {
	QueueUrl string
	Entries  []batchEntry
}

type batchEntry struct {
	Id                string
	MessageBody       string
	DelaySeconds      int64
	MessageAttributes map[string]attributeValue
}

type attributeValue struct {
	DataType    string
	StringValue string
}

func sendMessageBatchDocument() []byte {
	body := strings.Repeat("0123456789abcdef", 64) // 1 KiB
	var b strings.Builder
	b.WriteString(`{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/orders","Entries":[`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"Id":"msg-%d","MessageBody":%q,"DelaySeconds":%d,"MessageAttributes":{"n":{"DataType":"String","StringValue":"x"}}}`, i, body, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// decodeBatch is how an edge decoder would use the Reader for this shape.
func decodeBatch(r *Reader, req *batchRequest) error {
	var seen Seen
	err := r.ObjectBytes(func(name []byte) error {
		switch string(name) {
		case "QueueUrl":
			if !seen.Mark(0) {
				return r.Errorf("member QueueUrl repeated")
			}
			s, err := r.String()
			req.QueueUrl = s
			return err
		case "Entries":
			if !seen.Mark(1) {
				return r.Errorf("member Entries repeated")
			}
			req.Entries = req.Entries[:0]
			return r.Array(func(int) error {
				req.Entries = append(req.Entries, batchEntry{})
				return decodeEntry(r, &req.Entries[len(req.Entries)-1])
			})
		}
		return r.Errorf("unknown member %q", name)
	})
	if err != nil {
		return err
	}
	return r.End()
}

func decodeEntry(r *Reader, e *batchEntry) error {
	var seen Seen
	return r.ObjectBytes(func(name []byte) error {
		var err error
		switch string(name) {
		case "Id":
			if seen.Mark(0) {
				e.Id, err = r.String()
				return err
			}
		case "MessageBody":
			if seen.Mark(1) {
				e.MessageBody, err = r.String()
				return err
			}
		case "DelaySeconds":
			if seen.Mark(2) {
				e.DelaySeconds, err = r.Int()
				return err
			}
		case "MessageAttributes":
			if seen.Mark(3) {
				e.MessageAttributes = map[string]attributeValue{}
				return r.Object(func(attr string) error {
					var v attributeValue
					err := decodeAttribute(r, &v)
					e.MessageAttributes[attr] = v
					return err
				})
			}
		default:
			return r.Errorf("unknown member %q", name)
		}
		return r.Errorf("member %q repeated", name)
	})
}

func decodeAttribute(r *Reader, v *attributeValue) error {
	var seen Seen
	return r.ObjectBytes(func(name []byte) error {
		var err error
		switch string(name) {
		case "DataType":
			if seen.Mark(0) {
				v.DataType, err = r.String()
				return err
			}
		case "StringValue":
			if seen.Mark(1) {
				v.StringValue, err = r.String()
				return err
			}
		default:
			return r.Errorf("unknown member %q", name)
		}
		return r.Errorf("member %q repeated", name)
	})
}

func TestBenchmarkDecodersAgree(t *testing.T) {
	doc := sendMessageBatchDocument()
	var got, want batchRequest
	if err := decodeBatch(NewReader(doc), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got.Entries) != 10 {
		t.Fatalf("jsonscan decoded %+v\nencoding/json decoded %+v", got, want)
	}
}

func BenchmarkSendMessageBatch(b *testing.B) {
	doc := sendMessageBatchDocument()
	b.Run("jsonscan", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		var r Reader
		for b.Loop() {
			var req batchRequest
			r.Reset(doc)
			if err := decodeBatch(&r, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			var req batchRequest
			if err := json.Unmarshal(doc, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSkipSendMessageBatch measures validation alone, without the
// allocations of building Go values.
func BenchmarkSkipSendMessageBatch(b *testing.B) {
	doc := sendMessageBatchDocument()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	var r Reader
	for b.Loop() {
		r.Reset(doc)
		if err := r.Skip(); err != nil {
			b.Fatal(err)
		}
		if err := r.End(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidEncodingJSON is encoding/json's validation pass alone.
func BenchmarkValidEncodingJSON(b *testing.B) {
	doc := sendMessageBatchDocument()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(doc) {
			b.Fatal("invalid")
		}
	}
}
