package awsapi

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sns"
)

// snsScope marks a request as signed for sns; with auth off the edge
// routes by it without checking the signature.
const snsScope = "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=00"

// postSNS posts body as a form signed (in scope only) for sns.
func postSNS(t *testing.T, srv string, body string) response {
	t.Helper()
	req := mustRequest(t, http.MethodPost, srv+"/", body)
	req.Header.Set("Content-Type", formContentType)
	req.Header.Set("Authorization", snsScope)
	req.Header.Set("X-Amz-Date", "20240101T000000Z")
	return do(t, req)
}

// TestSNSQueryDecoding posts raw forms in the shapes the SDKs send (and
// edge cases they do not) and checks the decoded input.
func TestSNSQueryDecoding(t *testing.T) {
	cases := []struct {
		name  string
		form  url.Values
		input any
	}{
		{"attributes and tags", form("Action", "CreateTopic", "Name", "t",
			"Attributes.entry.2.key", "Policy", "Attributes.entry.2.value", "{}",
			"Attributes.entry.1.key", "DisplayName", "Attributes.entry.1.value", "",
			"Tags.member.1.Key", "k", "Tags.member.1.Value", "v"),
			sns.CreateTopicInput{Name: "t", Attributes: map[string]string{"Policy": "{}", "DisplayName": ""}, Tags: map[string]string{"k": "v"}}},
		{"empty collections", form("Action", "CreateTopic", "Name", "t", "Attributes", "", "Tags", ""),
			sns.CreateTopicInput{Name: "t"}},
		{"empty tag key list", form("Action", "UntagResource", "ResourceArn", "arn", "TagKeys", ""),
			sns.UntagResourceInput{ResourceARN: "arn", TagKeys: []string{}}},
		{"sparse indexes keep order", form("Action", "AddPermission", "TopicArn", "arn", "Label", "l",
			"AWSAccountId.member.10", "c", "AWSAccountId.member.2", "b", "ActionName.member.1", "Publish"),
			sns.AddPermissionInput{TopicARN: "arn", Label: "l", AWSAccountIDs: []string{"b", "c"}, ActionNames: []string{"Publish"}}},
		{"ReturnSubscriptionArn false", form("Action", "Subscribe", "TopicArn", "arn", "Protocol", "sqs", "Endpoint", "q",
			"ReturnSubscriptionArn", "False"),
			sns.SubscribeInput{TopicARN: "arn", Protocol: "sqs", Endpoint: "q"}},
		{"nested batch attributes", form("Action", "PublishBatch", "TopicArn", "arn",
			"PublishBatchRequestEntries.member.1.Id", "x", "PublishBatchRequestEntries.member.1.Message", "m",
			"PublishBatchRequestEntries.member.1.MessageAttributes.entry.1.Name", "a",
			"PublishBatchRequestEntries.member.1.MessageAttributes.entry.1.Value.DataType", "Binary",
			"PublishBatchRequestEntries.member.1.MessageAttributes.entry.1.Value.BinaryValue", "aGkh"),
			sns.PublishBatchInput{TopicARN: "arn", Entries: []sns.PublishBatchEntry{{ID: "x", Message: "m",
				MessageAttributes: map[string]sns.MessageAttributeValue{"a": {DataType: "Binary", BinaryValue: []byte("hi!")}}}}}},
	}
	fake, srv := startSNSEdge(t, Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := postSNS(t, srv.URL, tc.form.Encode())
			if resp.status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.status, resp.body)
			}
			got, _ := fake.last()
			equal(t, got.Input, tc.input)
		})
	}
}

// TestSNSQueryResponses checks the XML documents: namespace, result
// wrapper, entry maps, member lists and empty results.
func TestSNSQueryResponses(t *testing.T) {
	_, srv := startSNSEdge(t, Config{})
	t.Run("CreateTopic", func(t *testing.T) {
		resp := postSNS(t, srv.URL, "Action=CreateTopic&Name=orders")
		equal(t, resp.header.Get("Content-Type"), "text/xml")
		want := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
			`<CreateTopicResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><CreateTopicResult><TopicArn>` + fakeTopicARN +
			`</TopicArn></CreateTopicResult><ResponseMetadata><RequestId>` + resp.header.Get("x-amzn-RequestId") +
			`</RequestId></ResponseMetadata></CreateTopicResponse>`
		equal(t, resp.body, want)
	})
	t.Run("GetTopicAttributes", func(t *testing.T) {
		doc := parseXML(t, postSNS(t, srv.URL, "Action=GetTopicAttributes&TopicArn=a").body)
		equal(t, doc.all("GetTopicAttributesResult/Attributes/entry/key"), []string{"DisplayName", "Policy"})
		equal(t, doc.all("GetTopicAttributesResult/Attributes/entry/value"), []string{"Orders <&>", `{"Version":"2012-10-17"}`})
	})
	t.Run("ListTopics", func(t *testing.T) {
		doc := parseXML(t, postSNS(t, srv.URL, "Action=ListTopics").body)
		equal(t, doc.all("ListTopicsResult/Topics/member/TopicArn"), fakeTopicList.TopicARNs)
		equal(t, doc.one(t, "ListTopicsResult/NextToken"), "tok-2")
	})
	t.Run("ListSubscriptionsByTopic", func(t *testing.T) {
		doc := parseXML(t, postSNS(t, srv.URL, "Action=ListSubscriptionsByTopic&TopicArn=a").body)
		equal(t, doc.all("ListSubscriptionsByTopicResult/Subscriptions/member/SubscriptionArn"), []string{fakeSubARN, "PendingConfirmation"})
		equal(t, doc.all("ListSubscriptionsByTopicResult/Subscriptions/member/Endpoint")[1], "https://example.test/hook?a=1&b=2")
	})
	t.Run("PublishBatch all successful", func(t *testing.T) {
		resp := postSNS(t, srv.URL, "Action=PublishBatch&TopicArn=a&PublishBatchRequestEntries.member.1.Id=x&PublishBatchRequestEntries.member.1.Message=m")
		doc := parseXML(t, resp.body)
		equal(t, doc.one(t, "PublishBatchResult/Successful/member/MessageId"), "m-x")
		equal(t, len(doc.all("PublishBatchResult/Failed")), 1) // written, empty
		equal(t, len(doc.all("PublishBatchResult/Failed/member")), 0)
	})
	t.Run("TagResource", func(t *testing.T) {
		doc := parseXML(t, postSNS(t, srv.URL, "Action=TagResource&ResourceArn=a&Tags.member.1.Key=k&Tags.member.1.Value=v").body)
		equal(t, doc.XMLName, xml.Name{Space: snsNamespace, Local: "TagResourceResponse"})
		equal(t, doc.all("TagResourceResult"), []string{""})
	})
	t.Run("metadata only", func(t *testing.T) {
		doc := parseXML(t, postSNS(t, srv.URL, "Action=DeleteTopic&TopicArn=a").body)
		equal(t, len(doc.Nodes), 1)
		equal(t, doc.Nodes[0].XMLName.Local, "ResponseMetadata")
	})
}

// TestSNSQueryErrors checks SNS's <ErrorResponse>: its namespace, no
// <Detail>, AWS's codes and statuses, for API, decoding and edge errors.
func TestSNSQueryErrors(t *testing.T) {
	cases := []struct {
		name    string
		apiErr  error
		body    string
		status  int
		fault   string
		code    string
		message string
	}{
		{name: "not found", apiErr: sns.ErrNotFound("Topic"), body: "Action=DeleteTopic&TopicArn=a",
			status: 404, fault: "Sender", code: "NotFound", message: "Topic does not exist"},
		{name: "escaped message", apiErr: sns.ErrInvalidParameter("bad <name> & more"), body: "Action=CreateTopic&Name=x",
			status: 400, fault: "Sender", code: "InvalidParameter", message: "Invalid parameter: bad <name> & more"},
		{name: "unavailable", apiErr: sns.NewError(sns.CodeServiceUnavailable, "later"), body: "Action=ListTopics",
			status: 503, fault: "Receiver", code: "ServiceUnavailable"},
		{name: "unknown action", body: "Action=ListOriginationNumbers", status: 400, fault: "Sender", code: "InvalidAction"},
		{name: "missing action", body: "TopicArn=a", status: 404, fault: "Sender", code: "UnknownOperationException"},
		{name: "repeated parameter", body: "Action=DeleteTopic&TopicArn=a&TopicArn=b", status: 400, fault: "Sender", code: "MalformedQueryString"},
		{name: "bad index", body: "Action=UntagResource&TagKeys.member.01=a", status: 400, fault: "Sender", code: "InvalidParameter"},
		{name: "not an index", body: "Action=TagResource&Tags.member.x.Key=a", status: 400, fault: "Sender", code: "InvalidParameter"},
		{name: "list member without value", body: "Action=UntagResource&TagKeys.member.1.x=a", status: 400, fault: "Sender", code: "InvalidParameter"},
		{name: "entry without key", body: "Action=Subscribe&Attributes.entry.1.value=v", status: 400, fault: "Sender", code: "InvalidParameter"},
		{name: "duplicate key", body: "Action=CreateTopic&Attributes.entry.1.key=a&Attributes.entry.2.key=a", status: 400, fault: "Sender", code: "InvalidParameter"},
		{name: "tag without key", body: "Action=TagResource&Tags.member.1.Value=v", status: 400, fault: "Sender", code: "InvalidParameter"},
		{name: "attribute without name", body: "Action=Publish&MessageAttributes.entry.1.Value.DataType=String", status: 400, fault: "Sender", code: "InvalidParameter"},
		{name: "bad base64", body: "Action=Publish&MessageAttributes.entry.1.Name=b&MessageAttributes.entry.1.Value.BinaryValue=!!",
			status: 400, fault: "Sender", code: "ParameterValueInvalid"},
		{name: "bad boolean", body: "Action=Subscribe&ReturnSubscriptionArn=yes", status: 400, fault: "Sender", code: "InvalidParameter"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := startSNSEdge(t, Config{})
			fake.err = tc.apiErr
			resp := postSNS(t, srv.URL, tc.body)
			equal(t, resp.status, tc.status)
			doc := parseXML(t, resp.body)
			equal(t, doc.XMLName, xml.Name{Space: snsNamespace, Local: "ErrorResponse"})
			equal(t, doc.one(t, "Error/Type"), tc.fault)
			equal(t, doc.one(t, "Error/Code"), tc.code)
			if tc.message != "" {
				equal(t, doc.one(t, "Error/Message"), tc.message)
			}
			equal(t, len(doc.all("Error/Detail")), 0)
			equal(t, doc.one(t, "RequestId"), resp.header.Get("x-amzn-RequestId"))
		})
	}
}

// TestSNSEdgeFailures checks that a body too large and a panic in the API
// are answered in SNS's shape.
func TestSNSEdgeFailures(t *testing.T) {
	fake, srv := startSNSEdge(t, Config{MaxBodyBytes: 1024})
	resp := postSNS(t, srv.URL, "Action=Publish&TopicArn=a&Message="+strings.Repeat("x", 2000))
	equal(t, resp.status, http.StatusRequestEntityTooLarge)
	doc := parseXML(t, resp.body)
	equal(t, doc.XMLName, xml.Name{Space: snsNamespace, Local: "ErrorResponse"})
	equal(t, doc.one(t, "Error/Code"), CodeRequestEntityTooLarge)

	fake.panics = true
	resp = postSNS(t, srv.URL, "Action=ListTopics")
	equal(t, resp.status, http.StatusInternalServerError)
	doc = parseXML(t, resp.body)
	equal(t, doc.XMLName, xml.Name{Space: snsNamespace, Local: "ErrorResponse"})
	equal(t, doc.one(t, "Error/Type"), "Receiver")
	equal(t, doc.one(t, "Error/Code"), sns.CodeInternalError)
}

// TestSNSRouting checks which service answers: SNS actions unsigned or
// signed for sns, SQS actions unsigned, and the SQS default for actions
// both know when unsigned.
func TestSNSRouting(t *testing.T) {
	fake, srv := startSNSEdge(t, Config{})
	resp := do(t, mustRequest(t, http.MethodGet, srv.URL+"/?Action=ListTopics", ""))
	equal(t, parseXML(t, resp.body).XMLName, xml.Name{Space: snsNamespace, Local: "ListTopicsResponse"})

	resp = postForm(t, srv, "/", form("Action", "ListQueues"))
	equal(t, parseXML(t, resp.body).XMLName.Space, sqsNamespace)

	resp = postSNS(t, srv.URL, "Action=AddPermission&TopicArn=a&Label=l")
	equal(t, parseXML(t, resp.body).XMLName, xml.Name{Space: snsNamespace, Local: "AddPermissionResponse"})
	got, _ := fake.last()
	equal(t, got.Action, "AddPermission")
}
