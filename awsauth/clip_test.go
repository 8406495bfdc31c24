package awsauth

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestHugeSignatureInputSmallErrors checks that errors about a malformed
// signature quote at most a clipped part of what the client sent.
func TestHugeSignatureInputSmallErrors(t *testing.T) {
	huge := strings.Repeat("Z", 1<<20)
	scope := testKeyID + "/" + testNow.Format(scopeDateLayout) + "/" + testRegion + "/sqs/aws4_request"
	authz := func(cred, signed string) string {
		return "AWS4-HMAC-SHA256 Credential=" + cred + ", SignedHeaders=" + signed + ", Signature=00"
	}
	cases := []struct {
		name    string
		headers map[string]string
		query   url.Values
	}{
		{"huge credential", map[string]string{"Authorization": authz(huge, "host")}, nil},
		{"huge scope date", map[string]string{"Authorization": authz(testKeyID+"/"+huge+"/r/sqs/aws4_request", "host")}, nil},
		{"huge signed headers", map[string]string{"Authorization": authz(scope, "host;"+strings.ToUpper(huge))}, nil},
		{"huge component", map[string]string{"Authorization": "AWS4-HMAC-SHA256 " + huge}, nil},
		{"huge date", map[string]string{"Authorization": authz(scope, "host"), "X-Amz-Date": huge}, nil},
		{"huge missing signed header", map[string]string{"Authorization": authz(scope, "host;x-"+strings.ToLower(huge)),
			"X-Amz-Date": testNow.Format(amzDateLayout)}, nil},
		{"huge presigned credential", nil, url.Values{"X-Amz-Algorithm": {algorithm}, "X-Amz-Credential": {huge},
			"X-Amz-Date": {testNow.Format(amzDateLayout)}, "X-Amz-SignedHeaders": {"host"}, "X-Amz-Signature": {"00"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, "http://sqs.test/?"+tc.query.Encode(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			_, err = testVerifier().Verify(req, nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if len(e.Message) > 600 {
				t.Fatalf("%s message is %d bytes: %.300q", e.Code, len(e.Message), e.Message)
			}
		})
	}
}
