package main

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// ceiling is the trivial server each round's figures are divided by: Go's
// net/http answering the SQS JSON 1.0 calls `herald bench sqs` makes with
// fixed, valid answers, and keeping nothing. What a system reaches against
// the same client in the same round, as a fraction of it, is what is left
// once the HTTP stack, the client and the machine are taken out.
//
// It reads no more of a request than the answer needs: the entry ids of a
// batch, the bodies of sends (whose MD5 the answer carries, as SDKs check
// it) and MaxNumberOfMessages.
type ceiling struct {
	receives [11][]byte // ReceiveMessage answers of 0..10 messages
}

// newCeiling returns a ceiling whose received messages have bodySize-byte
// bodies.
func newCeiling(bodySize int) *ceiling {
	body := strings.Repeat("x", max(bodySize, 1))
	sum := md5.Sum([]byte(body))
	md5Body := hex.EncodeToString(sum[:])
	c := &ceiling{}
	for n := range c.receives {
		b := []byte(`{"Messages":[`)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			id := strconv.Itoa(i)
			b = append(b, `{"MessageId":"00000000-0000-4000-8000-00000000000`+id+`","ReceiptHandle":"ceiling-receipt-handle-`+id+
				`","MD5OfBody":"`+md5Body+`","Body":"`+body+`"}`...)
		}
		c.receives[n] = append(b, "]}"...)
	}
	return c
}

const ceilingMessageID = "00000000-0000-4000-8000-000000000000"

var (
	jsonContentType = []string{"application/x-amz-json-1.0"}
	emptyObject     = []byte("{}")
)

func (c *ceiling) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	if _, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20)); err != nil {
		ceilingError(w, "SerializationException", err.Error())
		return
	}
	req := body.Bytes()
	w.Header()["Content-Type"] = jsonContentType
	switch strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.") {
	case "SendMessage":
		w.Write(sendAnswer(req))
	case "ReceiveMessage":
		n := 1
		if v, ok := scanNumber(req, `"MaxNumberOfMessages":`); ok && v >= 1 && v <= 10 {
			n = v
		}
		w.Write(c.receives[n])
	case "DeleteMessage", "DeleteQueue", "PurgeQueue":
		w.Write(emptyObject)
	case "SendMessageBatch":
		w.Write(sendBatchAnswer(req))
	case "DeleteMessageBatch":
		w.Write(deleteBatchAnswer(req))
	case "CreateQueue", "GetQueueUrl":
		var in struct{ QueueName string }
		if json.Unmarshal(req, &in) != nil || in.QueueName == "" {
			ceilingError(w, "MissingParameter", "QueueName is required")
			return
		}
		out, _ := json.Marshal(map[string]string{"QueueUrl": "http://" + r.Host + "/000000000000/" + in.QueueName})
		w.Write(out)
	case "ListQueues":
		w.Write([]byte(`{"QueueUrls":[]}`))
	default:
		ceilingError(w, "UnsupportedOperation", "the ceiling server answers only the calls herald bench sqs makes")
	}
}

func ceilingError(w http.ResponseWriter, code, message string) {
	out, _ := json.Marshal(map[string]string{"__type": "com.amazonaws.sqs#" + code, "message": message})
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusBadRequest)
	w.Write(out)
}

func sendAnswer(req []byte) []byte {
	bodies, _ := scanStrings(req, `"MessageBody":"`)
	var sum [md5.Size]byte
	if len(bodies) == 1 {
		sum = md5.Sum(bodies[0])
	}
	return []byte(`{"MessageId":"` + ceilingMessageID + `","MD5OfMessageBody":"` + hex.EncodeToString(sum[:]) + `"}`)
}

func sendBatchAnswer(req []byte) []byte {
	ids, _ := scanStrings(req, `"Id":"`)
	bodies, _ := scanStrings(req, `"MessageBody":"`)
	b := []byte(`{"Successful":[`)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		var sum [md5.Size]byte
		if i < len(bodies) {
			sum = md5.Sum(bodies[i])
		}
		b = append(b, `{"Id":"`...)
		b = append(b, id...)
		b = append(b, `","MessageId":"`+ceilingMessageID+`","MD5OfMessageBody":"`+hex.EncodeToString(sum[:])+`"}`...)
	}
	return append(b, `],"Failed":[]}`...)
}

func deleteBatchAnswer(req []byte) []byte {
	ids, _ := scanStrings(req, `"Id":"`)
	b := []byte(`{"Successful":[`)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, `{"Id":"`...), id...), `"}`...)
	}
	return append(b, `],"Failed":[]}`...)
}

// scanStrings returns the value of every member whose key, colon and
// opening quote are key, in order, unescaped. In compact JSON, as clients
// send it, that text cannot occur inside a string (its quotes would be
// escaped there), so no parser is needed to find the members. ok is false
// when a value does not end.
func scanStrings(doc []byte, key string) (values [][]byte, ok bool) {
	for {
		i := bytes.Index(doc, []byte(key))
		if i < 0 {
			return values, true
		}
		doc = doc[i+len(key):]
		end := 0
		for end < len(doc) && doc[end] != '"' {
			if doc[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(doc) {
			return values, false
		}
		v := doc[:end]
		if bytes.IndexByte(v, '\\') >= 0 {
			var s string
			if json.Unmarshal(append([]byte{'"'}, doc[:end+1]...), &s) == nil {
				v = []byte(s)
			}
		}
		values = append(values, v)
		doc = doc[end+1:]
	}
}

// scanNumber returns the integer after key, if any.
func scanNumber(doc []byte, key string) (int, bool) {
	i := bytes.Index(doc, []byte(key))
	if i < 0 {
		return 0, false
	}
	doc = bytes.TrimLeft(doc[i+len(key):], " ")
	end := 0
	for end < len(doc) && doc[end] >= '0' && doc[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(string(doc[:end]))
	return n, err == nil
}

// serveCeiling runs the ceiling on addr until the process is stopped.
func serveCeiling(addr string, bodySize int) error {
	return http.ListenAndServe(addr, newCeiling(bodySize))
}
