package sqsload

import (
	"fmt"

	"github.com/heraldmq/herald/internal/jsonscan"
)

// decodeReceiveAnswer appends the messages of a ReceiveMessage answer to
// into, keeping only MessageId and ReceiptHandle.
//
// It walks the JSON once with internal/jsonscan, skipping bodies and
// attributes (still checked): encoding/json's Unmarshal validates and then
// decodes every byte of a batch of ten 1 KiB bodies, which made it the
// largest client-side cost of a receive load. Malformed JSON is an error,
// not a guess.
func decodeReceiveAnswer(data []byte, into []Message) ([]Message, error) {
	r := jsonscan.NewReader(data)
	err := r.ObjectBytes(func(key []byte) error {
		if string(key) != "Messages" || r.Null() {
			return nil // skipped
		}
		return r.Array(func(int) error {
			var m Message
			err := r.ObjectBytes(func(key []byte) error {
				switch string(key) {
				case "MessageId":
					return stringInto(r, &m.MessageID)
				case "ReceiptHandle":
					return stringInto(r, &m.ReceiptHandle)
				case "Body":
					return stringInto(r, &m.Body)
				}
				return nil // skipped
			})
			into = append(into, m)
			return err
		})
	})
	if err == nil {
		err = r.End()
	}
	if err != nil {
		return into, fmt.Errorf("ReceiveMessage answer: %w", err)
	}
	return into, nil
}

// stringInto reads a string, or null (leaving *dst as it is, as
// encoding/json does), into dst.
func stringInto(r *jsonscan.Reader, dst *string) error {
	if r.Null() {
		return nil
	}
	s, err := r.String()
	*dst = s
	return err
}
