package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
)

// FuzzDecodeStrictAgreesWithEncodingJSON holds the one-pass reader of put
// requests to encoding/json: whatever it accepts, encoding/json (refusing
// unknown fields) decodes to the same request.
func FuzzDecodeStrictAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"paths":["a.b"]},"body":"aGVsbG8="}`,
		`{"metadata":{"paths":["a"]},"body":""}`,
		`{"metadata":{"paths":["a"]},"body":"aGVsbG8"}`,
		`{"metadata":{"paths":["a"]},"body":"!!"}`,
		`{"metadata":{"paths":["a"]},"body":"aGVs\nbG8="}`,
		`{"metadata":{"paths":["a"]},"body":"aGV\u0073bG8="}`,
		`{"metadata":{"paths":["a"]},"body":"QUFB\r\nQUFB"}`,
		`{"metadata":{"paths":["a"]},"body":null,"ttl":null,"message_uuid":null}`,
		` { "metadata" : { "paths" : [ "x" ] , "n" : [1, 2.5e3, null] } , "ttl" : 60 } `,
		`{"metadata":null}`,
		`{"metadata":{"paths":["a"]},"ttl":1.5}`,
		`{"metadata":{"paths":["a"]},"ttl":9223372036854775808}`,
		`{"message_uuid":"a\u00e9","replica_uuid":"\ud83d\ude00"}`,
		`{"metadata":{"paths":["a"]},"Body":"aGk="}`,
		`{"metadata":{},"metadata":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got api.PutRequest
		if decodeStrict(body, &got) != nil {
			return
		}
		var want api.PutRequest
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("decodeStrict accepted %q, encoding/json refuses it: %v", body, err)
		}
		if dec.More() {
			t.Fatalf("decodeStrict accepted %q, which has data after the object", body)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decodeStrict gave %+v, encoding/json %+v", body, got, want)
		}
	})
}

func TestDecodeStrict(t *testing.T) {
	ttl := int64(60)
	for _, tc := range []struct {
		name, body string
		want       api.PutRequest
		err        string // a part of the error; "" for none
	}{
		{"all members", `{"message_uuid":"m","replica_uuid":"r","metadata":{"paths":["a"]},"body":"aGk=","ttl":60}`,
			api.PutRequest{MessageUUID: "m", ReplicaUUID: "r", Metadata: json.RawMessage(`{"paths":["a"]}`), Body: []byte("hi"), TTL: &ttl}, ""},
		{"metadata kept as sent", "{\"metadata\" :\t{ \"paths\" : [\"a\"] } }",
			api.PutRequest{Metadata: json.RawMessage(`{ "paths" : ["a"] }`)}, ""},
		{"null leaves a field unset", `{"body":null,"ttl":null,"message_uuid":null}`, api.PutRequest{}, ""},
		{"null metadata stays null", `{"metadata":null}`, api.PutRequest{Metadata: json.RawMessage(`null`)}, ""},
		{"escaped body", `{"body":"aG\u006b="}`, api.PutRequest{Body: []byte("hi")}, ""},
		{"unknown member", `{"bodyy":"aGk="}`, api.PutRequest{}, `malformed JSON: unknown field "bodyy"`},
		{"names match exactly", `{"Body":"aGk="}`, api.PutRequest{}, `unknown field "Body"`},
		{"repeated member", `{"body":"aGk=","body":"aGk="}`, api.PutRequest{}, `member "body" appears more than once`},
		{"repeated escaped", `{"ttl":1,"t\u0074l":2}`, api.PutRequest{}, `member "ttl" appears more than once`},
		{"body not base64", `{"body":"!!"}`, api.PutRequest{}, `field "body" is not base64 (bad data at byte 0)`},
		{"body not a string", `{"body":5}`, api.PutRequest{}, `field "body": must be a string, not number`},
		{"ttl a fraction", `{"ttl":1.5}`, api.PutRequest{}, `field "ttl": must be a 64-bit integer, not 1.5`},
		{"ttl too large", `{"ttl":9223372036854775808}`, api.PutRequest{}, `must be a 64-bit integer`},
		{"ttl a string", `{"ttl":"60"}`, api.PutRequest{}, `field "ttl": must be an integer, not string`},
		{"not an object", `[]`, api.PutRequest{}, "malformed JSON: invalid JSON at offset 0: expected object, found array"},
		{"empty", ``, api.PutRequest{}, "malformed JSON"},
		{"data after", `{} {}`, api.PutRequest{}, "after top-level value"},
		{"bad metadata", `{"metadata":{"a":tru}}`, api.PutRequest{}, "malformed JSON"},
		{"invalid UTF-8", "{\"message_uuid\":\"\xff\"}", api.PutRequest{}, "malformed JSON"},
		{"nested deeply", `{"metadata":` + strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1) + `}`, api.PutRequest{}, "nesting too deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got api.PutRequest
			err := decodeStrict([]byte(tc.body), &got)
			if tc.err == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("got %+v, want %+v", got, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			}
		})
	}
}

// TestDecodeStrictCopies: nothing decoded aliases the body, which the server
// reuses for the next request.
func TestDecodeStrictCopies(t *testing.T) {
	body := []byte(`{"message_uuid":"m","metadata":{"paths":["a"]},"body":"aGk="}`)
	var req api.PutRequest
	if err := decodeStrict(body, &req); err != nil {
		t.Fatal(err)
	}
	var batch api.BatchRequest
	batchBody := []byte(`{"messages":[{"metadata":{"paths":["a"]}}, 7]}`)
	if err := decodeStrict(batchBody, &batch); err != nil {
		t.Fatal(err)
	}
	for i := range body {
		body[i] = 'x'
	}
	for i := range batchBody {
		batchBody[i] = 'x'
	}
	if req.MessageUUID != "m" || string(req.Metadata) != `{"paths":["a"]}` || string(req.Body) != "hi" {
		t.Fatalf("the request changed with the body: %+v", req)
	}
	if len(batch.Messages) != 2 || string(batch.Messages[0]) != `{"metadata":{"paths":["a"]}}` || string(batch.Messages[1]) != "7" {
		t.Fatalf("the batch changed with the body: %q", batch.Messages)
	}
}

func BenchmarkDecodePutRequest(b *testing.B) {
	body := []byte(`{"metadata":{"paths":["wrk1764900000.t1.m123"]},"body":"` + strings.Repeat("QUFB", 1024/3) + `QQ=="}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var req api.PutRequest
		if err := decodeStrict(body, &req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeStrictTakesMetadataAsDeepAsTheCache: a request holding metadata
// nested to the cache's limit is read, so the cache's limit is the one that
// applies.
func TestDecodeStrictTakesMetadataAsDeepAsTheCache(t *testing.T) {
	deep := `{"metadata":` + strings.Repeat("[", cache.MaxMetadataDepth) + strings.Repeat("]", cache.MaxMetadataDepth) + `}`
	var req api.PutRequest
	if err := decodeStrict([]byte(deep), &req); err != nil {
		t.Fatalf("metadata %d levels deep: %v", cache.MaxMetadataDepth, err)
	}
}
