package awsapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzSNSQuery feeds arbitrary SNS forms to the decoder, signed (in
// scope) for sns so that SNS answers whatever the action: nothing may
// panic and no client input may get a 500.
func FuzzSNSQuery(f *testing.F) {
	for _, tc := range []string{
		"Action=CreateTopic&Name=t&Attributes.entry.1.key=a&Attributes.entry.1.value=b&Tags.member.1.Key=k&Tags.member.1.Value=v",
		"Action=Subscribe&TopicArn=a&Protocol=http&Endpoint=e&Attributes.entry.1.key=RawMessageDelivery&Attributes.entry.1.value=true&ReturnSubscriptionArn=true",
		"Action=Publish&TopicArn=a&Message=m&MessageAttributes.entry.1.Name=n&MessageAttributes.entry.1.Value.DataType=Binary&MessageAttributes.entry.1.Value.BinaryValue=AAE=",
		"Action=PublishBatch&TopicArn=a&PublishBatchRequestEntries.member.1.Id=1&PublishBatchRequestEntries.member.1.MessageAttributes.entry.1.Name=x",
		"Action=UntagResource&ResourceArn=a&TagKeys.member.1=k&TagKeys.member.2=j",
		"Action=AddPermission&TopicArn=a&Label=l&AWSAccountId.member.1=1&ActionName.member.1=Publish",
		"Action=ConfirmSubscription&TopicArn=a&Token=t&AuthenticateOnUnsubscribe=true",
		"Action=ListSubscriptionsByTopic&TopicArn=a&NextToken=n",
		"Action=TagResource&Tags=",
		"Action=PublishBatch&PublishBatchRequestEntries.member.01.Id=1",
		"Action=Publish&TopicArn=a&Message=m&Subject=",
		"Action=PutDataProtectionPolicy&ResourceArn=a&DataProtectionPolicy=%7B%7D",
		"Action=GetDataProtectionPolicy&ResourceArn=a",
	} {
		f.Add(tc, "")
		f.Add("", tc)
	}
	h := New(Config{SQS: &fakeAPI{noRecord: true}, SNS: NewSNSService(&fakeSNS{noRecord: true}, nil)})
	f.Fuzz(func(t *testing.T, rawQuery, body string) {
		method := http.MethodPost
		if body == "" {
			method = http.MethodGet
		}
		req := &http.Request{
			Method: method,
			URL:    &url.URL{Path: "/", RawQuery: rawQuery},
			Header: http.Header{
				"Content-Type":  {formContentType},
				"Authorization": {snsScope},
				"X-Amz-Date":    {"20240101T000000Z"},
			},
			Body: io.NopCloser(strings.NewReader(body)),
			Host: "localhost",
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(t.Context()))
		if rec.Code >= 500 {
			t.Fatalf("query %q body %q: status %d: %s", rawQuery, body, rec.Code, rec.Body)
		}
		if !strings.Contains(rec.Body.String(), snsNamespace) {
			t.Fatalf("query %q body %q: answer is not from SNS: %s", rawQuery, body, rec.Body)
		}
	})
}
