package awsauth

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

const (
	testKeyID  = "AKIAHERALDTEST000001"
	testSecret = "hEr4ld/Test+Secret/key0000000000000000000"
	testRegion = "eu-west-3"
)

var testNow = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

func testVerifier(opts ...Option) *Verifier {
	opts = append([]Option{WithClock(func() time.Time { return testNow })}, opts...)
	return NewVerifier(Credentials{testKeyID: testSecret, "AKIAOTHER": "other-secret"}, opts...)
}

// clientRequest describes a request as an SDK would send it.
type clientRequest struct {
	name    string
	method  string
	url     string
	service string
	body    string
	headers map[string]string
}

var clientRequests = []clientRequest{
	{
		name:    "sqs json",
		method:  http.MethodPost,
		url:     "http://localhost:9324/",
		service: "sqs",
		body:    `{"QueueNamePrefix":"orders","MaxResults":10}`,
		headers: map[string]string{
			"Content-Type": "application/x-amz-json-1.0",
			"X-Amz-Target": "AmazonSQS.ListQueues",
		},
	},
	{
		name:    "sqs query form",
		method:  http.MethodPost,
		url:     "http://herald.internal:8080/123456789012/orders",
		service: "sqs",
		body:    "Action=SendMessage&MessageBody=hello+world%21&Version=2012-11-05",
		headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
	},
	{
		name:    "sns get query",
		method:  http.MethodGet,
		url:     "http://127.0.0.1:9911/?Action=ListTopics&Version=2010-03-31&NextToken=a%2Fb+c",
		service: "sns",
		headers: map[string]string{"X-Custom-Meta": "  spaced   value "},
	},
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// toServer sends req through the HTTP/1.1 wire format and parses it back as
// a server would, returning the server-side request and its body.
func toServer(t *testing.T, req *http.Request) (*http.Request, []byte) {
	t.Helper()
	var wire bytes.Buffer
	if err := req.Write(&wire); err != nil {
		t.Fatalf("write request: %v", err)
	}
	sr, err := http.ReadRequest(bufio.NewReader(&wire))
	if err != nil {
		t.Fatalf("read request: %v", err)
	}
	body, err := io.ReadAll(sr.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return sr, body
}

func newClientRequest(t *testing.T, cr clientRequest) *http.Request {
	t.Helper()
	var body io.Reader
	if cr.body != "" {
		body = strings.NewReader(cr.body)
	}
	req, err := http.NewRequest(cr.method, cr.url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range cr.headers {
		req.Header.Set(k, v)
	}
	return req
}

// signRequest signs cr with the SDK signer as a client would and returns the
// request as the server sees it.
func signRequest(t *testing.T, cr clientRequest, keyID, secret string, at time.Time) (*http.Request, []byte) {
	t.Helper()
	req := newClientRequest(t, cr)
	creds := aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, sha256Hex([]byte(cr.body)), cr.service, testRegion, at); err != nil {
		t.Fatalf("sign: %v", err)
	}
	return toServer(t, req)
}

// presignRequest presigns cr and returns the request as the server sees it.
func presignRequest(t *testing.T, cr clientRequest, keyID, secret string, at time.Time, expires string) (*http.Request, []byte) {
	t.Helper()
	req := newClientRequest(t, cr)
	if expires != "" {
		q := req.URL.Query()
		q.Set("X-Amz-Expires", expires)
		req.URL.RawQuery = q.Encode()
	}
	creds := aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret}
	uri, hdr, err := v4.NewSigner().PresignHTTP(context.Background(), creds, req, sha256Hex([]byte(cr.body)), cr.service, testRegion, at)
	if err != nil {
		t.Fatalf("presign: %v", err)
	}
	out, err := http.NewRequest(cr.method, uri, strings.NewReader(cr.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if !strings.EqualFold(k, "Host") {
			out.Header[k] = v
		}
	}
	return toServer(t, out)
}

func wantCode(t *testing.T, err error, code string, status int) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v, want *Error with code %s", err, code)
	}
	if ae.Code != code || ae.Status != status {
		t.Fatalf("error = %s (%d) %q, want %s (%d)", ae.Code, ae.Status, ae.Message, code, status)
	}
}

func TestVerifySignedRequests(t *testing.T) {
	type mutation struct {
		name   string
		keyID  string
		secret string
		at     time.Time
		alter  func(r *http.Request, body []byte) []byte
		code   string
		status int
	}
	mutations := []mutation{
		{name: "valid"},
		{name: "valid 14 minutes old", at: testNow.Add(-14 * time.Minute)},
		{name: "valid 14 minutes ahead", at: testNow.Add(14 * time.Minute)},
		{name: "unsigned header added", alter: func(r *http.Request, b []byte) []byte {
			r.Header.Set("X-Forwarded-For", "10.0.0.1")
			return b
		}},
		{name: "wrong secret", secret: "not-the-secret", code: CodeSignatureDoesNotMatch, status: 403},
		{name: "other known key's secret", keyID: "AKIAOTHER", code: CodeSignatureDoesNotMatch, status: 403},
		{name: "unknown key", keyID: "AKIAUNKNOWN", code: CodeInvalidClientTokenID, status: 403},
		{name: "body altered", alter: func(_ *http.Request, b []byte) []byte {
			return append(append([]byte(nil), b...), ' ')
		}, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "signed header altered", alter: func(r *http.Request, b []byte) []byte {
			for _, k := range []string{"X-Amz-Target", "Content-Type", "X-Custom-Meta"} {
				if v := r.Header.Get(k); v != "" {
					r.Header.Set(k, v+"x")
					return b
				}
			}
			t.Fatal("no signed header to alter")
			return b
		}, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "host altered", alter: func(r *http.Request, b []byte) []byte {
			r.Host = "evil.example:80"
			return b
		}, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "X-Amz-Date altered", alter: func(r *http.Request, b []byte) []byte {
			r.Header.Set("X-Amz-Date", testNow.Add(time.Second).Format(amzDateLayout))
			return b
		}, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "query altered", alter: func(r *http.Request, b []byte) []byte {
			q := r.URL.Query()
			q.Set("Action", "DeleteQueue")
			r.URL.RawQuery = q.Encode()
			return b
		}, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "method altered", alter: func(r *http.Request, b []byte) []byte {
			r.Method = http.MethodPut
			return b
		}, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "16 minutes old", at: testNow.Add(-16 * time.Minute), code: CodeRequestExpired, status: 400},
		{name: "16 minutes in the future", at: testNow.Add(16 * time.Minute), code: CodeRequestExpired, status: 400},
	}
	for _, cr := range clientRequests {
		for _, m := range mutations {
			t.Run(cr.name+"/"+m.name, func(t *testing.T) {
				keyID, secret, at := testKeyID, testSecret, testNow
				if m.keyID != "" {
					keyID = m.keyID
					secret = "other-secret-differs"
				}
				if m.secret != "" {
					secret = m.secret
				}
				if !m.at.IsZero() {
					at = m.at
				}
				r, body := signRequest(t, cr, keyID, secret, at)
				if m.alter != nil {
					body = m.alter(r, body)
				}
				id, err := testVerifier().Verify(r, body)
				wantCode(t, err, m.code, m.status)
				if m.code == "" {
					want := Identity{AccessKey: testKeyID, Region: testRegion, Service: cr.service}
					if id != want {
						t.Fatalf("identity = %+v, want %+v", id, want)
					}
				}
			})
		}
	}
}

func TestVerifyPresigned(t *testing.T) {
	get := clientRequests[2]
	cases := []struct {
		name    string
		at      time.Time
		expires string
		secret  string
		alter   func(r *http.Request)
		code    string
		status  int
	}{
		{name: "valid without expires", at: testNow.Add(-5 * time.Minute)},
		{name: "valid within expires", at: testNow.Add(-50 * time.Minute), expires: "3600"},
		{name: "expired", at: testNow.Add(-61 * time.Minute), expires: "3600", code: CodeRequestExpired, status: 400},
		{name: "stale without expires", at: testNow.Add(-16 * time.Minute), code: CodeRequestExpired, status: 400},
		{name: "future", at: testNow.Add(16 * time.Minute), expires: "3600", code: CodeRequestExpired, status: 400},
		{name: "wrong secret", at: testNow, secret: "nope", code: CodeSignatureDoesNotMatch, status: 403},
		{name: "expires extended", at: testNow.Add(-61 * time.Minute), expires: "3600", alter: func(r *http.Request) {
			q := r.URL.Query()
			q.Set("X-Amz-Expires", "7200")
			r.URL.RawQuery = q.Encode()
		}, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "param added", at: testNow, alter: func(r *http.Request) {
			r.URL.RawQuery += "&Extra=1"
		}, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "expires too large", at: testNow, expires: "604801", code: CodeIncompleteSignature, status: 400},
		{name: "signature removed", at: testNow, alter: func(r *http.Request) {
			q := r.URL.Query()
			q.Del("X-Amz-Signature")
			r.URL.RawQuery = q.Encode()
		}, code: CodeIncompleteSignature, status: 400},
		{name: "also an Authorization header", at: testNow, alter: func(r *http.Request) {
			r.Header.Set("Authorization", "AWS4-HMAC-SHA256 x")
		}, code: CodeIncompleteSignature, status: 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			secret := testSecret
			if tc.secret != "" {
				secret = tc.secret
			}
			r, body := presignRequest(t, get, testKeyID, secret, tc.at, tc.expires)
			if tc.alter != nil {
				tc.alter(r)
			}
			id, err := testVerifier().Verify(r, body)
			wantCode(t, err, tc.code, tc.status)
			if tc.code == "" && id.Service != "sns" {
				t.Fatalf("identity = %+v", id)
			}
		})
	}

	t.Run("post with body", func(t *testing.T) {
		r, body := presignRequest(t, clientRequests[0], testKeyID, testSecret, testNow, "")
		if _, err := testVerifier().Verify(r, body); err != nil {
			t.Fatalf("valid presigned POST: %v", err)
		}
		_, err := testVerifier().Verify(r, append(body, '!'))
		wantCode(t, err, CodeSignatureDoesNotMatch, 403)
	})
}

func TestVerifyMalformed(t *testing.T) {
	date := testNow.Format(amzDateLayout)
	scope := testKeyID + "/" + testNow.Format(scopeDateLayout) + "/" + testRegion + "/sqs/aws4_request"
	sig := strings.Repeat("ab", 32)
	cases := []struct {
		name   string
		authz  string
		date   string
		query  string
		code   string
		status int
	}{
		{name: "no auth", date: date, code: CodeMissingAuthenticationToken, status: 403},
		{name: "no auth no date", code: CodeMissingAuthenticationToken, status: 403},
		{name: "other algorithm", authz: "AWS3-HTTPS AWSAccessKeyId=x,Signature=y", date: date, code: CodeIncompleteSignature, status: 400},
		{name: "garbage", authz: "Bearer token", date: date, code: CodeIncompleteSignature, status: 400},
		{name: "algorithm only", authz: "AWS4-HMAC-SHA256", date: date, code: CodeIncompleteSignature, status: 400},
		{name: "missing signature", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", SignedHeaders=host;x-amz-date", date: date, code: CodeIncompleteSignature, status: 400},
		{name: "missing signed headers", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", Signature=" + sig, date: date, code: CodeIncompleteSignature, status: 400},
		{name: "short credential", authz: "AWS4-HMAC-SHA256 Credential=" + testKeyID + "/20260314/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + sig, date: date, code: CodeIncompleteSignature, status: 400},
		{name: "bad terminator", authz: "AWS4-HMAC-SHA256 Credential=" + testKeyID + "/20260314/eu-west-3/sqs/aws5_request, SignedHeaders=host;x-amz-date, Signature=" + sig, date: date, code: CodeIncompleteSignature, status: 400},
		{name: "bad scope date", authz: "AWS4-HMAC-SHA256 Credential=" + testKeyID + "/2026-3-14/eu-west-3/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + sig, date: date, code: CodeIncompleteSignature, status: 400},
		{name: "component without value", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", SignedHeaders, Signature=" + sig, date: date, code: CodeIncompleteSignature, status: 400},
		{name: "host not signed", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", SignedHeaders=x-amz-date, Signature=" + sig, date: date, code: CodeIncompleteSignature, status: 400},
		{name: "upper-case signed header", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", SignedHeaders=Host;x-amz-date, Signature=" + sig, date: date, code: CodeIncompleteSignature, status: 400},
		{name: "missing X-Amz-Date", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", SignedHeaders=host;x-amz-date, Signature=" + sig, code: CodeIncompleteSignature, status: 400},
		{name: "malformed X-Amz-Date", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", SignedHeaders=host;x-amz-date, Signature=" + sig, date: "2026-03-14T12:00:00Z", code: CodeIncompleteSignature, status: 400},
		{name: "scope date differs", authz: "AWS4-HMAC-SHA256 Credential=" + testKeyID + "/20260313/eu-west-3/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + sig, date: date, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "signed header absent", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + sig, date: date, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "well formed but wrong", authz: "AWS4-HMAC-SHA256 Credential=" + scope + ", SignedHeaders=host;x-amz-date, Signature=" + sig, date: date, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "unknown key", authz: "AWS4-HMAC-SHA256 Credential=AKIANOPE/20260314/eu-west-3/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + sig, date: date, code: CodeInvalidClientTokenID, status: 403},
		{name: "presigned without credential", query: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=" + sig, code: CodeIncompleteSignature, status: 400},
		{name: "presigned bad algorithm", query: "X-Amz-Algorithm=HMAC&X-Amz-Credential=" + scope + "&X-Amz-Date=" + date + "&X-Amz-SignedHeaders=host&X-Amz-Signature=" + sig, code: CodeIncompleteSignature, status: 400},
		{name: "presigned bad expires", query: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + scope + "&X-Amz-Date=" + date + "&X-Amz-SignedHeaders=host&X-Amz-Expires=soon&X-Amz-Signature=" + sig, code: CodeIncompleteSignature, status: 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := http.NewRequest(http.MethodPost, "http://localhost:9324/?"+tc.query, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.authz != "" {
				r.Header.Set("Authorization", tc.authz)
			}
			if tc.date != "" {
				r.Header.Set("X-Amz-Date", tc.date)
			}
			sr, body := toServer(t, r)
			_, verr := testVerifier().Verify(sr, body)
			wantCode(t, verr, tc.code, tc.status)
		})
	}
}

func TestVerifyContentSHA256(t *testing.T) {
	cr := clientRequests[0]
	hash := sha256Hex([]byte(cr.body))
	cases := []struct {
		name     string
		declared string
		signHash string
		opts     []Option
		tamper   bool
		code     string
		status   int
	}{
		{name: "matching header", declared: hash, signHash: hash},
		{name: "body altered, header kept", declared: hash, signHash: hash, tamper: true, code: CodeSignatureDoesNotMatch, status: 403},
		{name: "unsigned payload refused", declared: unsignedPayload, signHash: unsignedPayload, code: CodeIncompleteSignature, status: 400},
		{name: "unsigned payload allowed", declared: unsignedPayload, signHash: unsignedPayload, opts: []Option{WithUnsignedPayload()}},
		{name: "unsigned payload allowed, body altered", declared: unsignedPayload, signHash: unsignedPayload, opts: []Option{WithUnsignedPayload()}, tamper: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := newClientRequest(t, cr)
			req.Header.Set("X-Amz-Content-Sha256", tc.declared)
			creds := aws.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret}
			if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, tc.signHash, "sqs", testRegion, testNow); err != nil {
				t.Fatal(err)
			}
			r, body := toServer(t, req)
			if tc.tamper {
				body = []byte(`{"QueueNamePrefix":"evil"}`)
			}
			_, err := testVerifier(tc.opts...).Verify(r, body)
			wantCode(t, err, tc.code, tc.status)
		})
	}
}

func TestVerifyEscapedPath(t *testing.T) {
	cr := clientRequest{
		method:  http.MethodPost,
		url:     "http://localhost:9324/123456789012/my%20queue%2Bfifo?x=a%20b&x=%2F&y",
		service: "sqs",
		body:    "Action=GetQueueAttributes",
		headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
	}
	r, body := signRequest(t, cr, testKeyID, testSecret, testNow)
	if _, err := testVerifier().Verify(r, body); err != nil {
		t.Fatalf("escaped path: %v", err)
	}
}

func TestDisabledVerifier(t *testing.T) {
	for _, keys := range []Credentials{nil, {}, {"": "secret", "AKIA": ""}} {
		v := NewVerifier(keys)
		if v.Enabled() {
			t.Fatalf("NewVerifier(%v).Enabled() = true", keys)
		}
		plain, _ := toServer(t, newClientRequest(t, clientRequests[0]))
		if id, err := v.Verify(plain, nil); err != nil || id != (Identity{}) {
			t.Fatalf("unsigned request: %+v, %v", id, err)
		}
		r, body := signRequest(t, clientRequests[1], "AKIAANY", "whatever", testNow.Add(-time.Hour))
		id, err := v.Verify(r, append(body, 'x'))
		if err != nil {
			t.Fatalf("signed request: %v", err)
		}
		if want := (Identity{AccessKey: "AKIAANY", Region: testRegion, Service: "sqs"}); id != want {
			t.Fatalf("identity = %+v, want %+v", id, want)
		}
		r.Header.Set("Authorization", "garbage")
		if _, err := v.Verify(r, body); err != nil {
			t.Fatalf("garbage authorization: %v", err)
		}
		// A presigned request names its scope in the query alone.
		r, body = presignRequest(t, clientRequests[2], "AKIAANY", "whatever", testNow.Add(-time.Hour), "")
		id, err = v.Verify(r, body)
		if want := (Identity{AccessKey: "AKIAANY", Region: testRegion, Service: "sns"}); err != nil || id != want {
			t.Fatalf("presigned request: %+v, %v, want %+v", id, err, want)
		}
		r.URL.RawQuery = "Action=ListQueues"
		if id, err := v.Verify(r, body); err != nil || id != (Identity{}) {
			t.Fatalf("unsigned request with a query: %+v, %v", id, err)
		}
	}
	var nilVerifier *Verifier
	if nilVerifier.Enabled() {
		t.Fatal("nil verifier enabled")
	}
	if !testVerifier().Enabled() {
		t.Fatal("verifier with keys disabled")
	}
}

func TestOptions(t *testing.T) {
	v := testVerifier(WithMaxSkew(time.Hour))
	r, body := signRequest(t, clientRequests[0], testKeyID, testSecret, testNow.Add(-50*time.Minute))
	if _, err := v.Verify(r, body); err != nil {
		t.Fatalf("within widened skew: %v", err)
	}
	if _, err := testVerifier(WithMaxSkew(-1)).Verify(r, body); err == nil {
		t.Fatal("non-positive skew must keep the 15 minute default")
	}
	// Default clock: a request signed now passes.
	r, body = signRequest(t, clientRequests[0], testKeyID, testSecret, time.Now())
	if _, err := NewVerifier(Credentials{testKeyID: testSecret}).Verify(r, body); err != nil {
		t.Fatalf("default clock: %v", err)
	}
	e := &Error{Code: CodeRequestExpired, Message: "late", Status: 400}
	if e.Error() != "RequestExpired: late" {
		t.Fatalf("Error() = %q", e.Error())
	}
}
