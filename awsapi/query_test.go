package awsapi

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/sqs"
)

// response is a raw HTTP answer.
type response struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, req *http.Request) response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// postForm posts a Query form to path on srv.
func postForm(t *testing.T, srv *httptest.Server, path string, form url.Values) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	return do(t, req)
}

// xmlNode is any XML element, for reading answers without mirroring them.
type xmlNode struct {
	XMLName xml.Name
	Text    string    `xml:",chardata"`
	Nodes   []xmlNode `xml:",any"`
}

func parseXML(t *testing.T, body string) xmlNode {
	t.Helper()
	var n xmlNode
	if err := xml.Unmarshal([]byte(body), &n); err != nil {
		t.Fatalf("answer is not XML: %v\n%s", err, body)
	}
	return n
}

// all returns the texts of the elements at path ("A/B") below n.
func (n xmlNode) all(path string) []string {
	first, rest, more := strings.Cut(path, "/")
	var out []string
	for _, c := range n.Nodes {
		if c.XMLName.Local != first {
			continue
		}
		if more {
			out = append(out, c.all(rest)...)
		} else {
			out = append(out, c.Text)
		}
	}
	return out
}

// one returns the text of the single element at path.
func (n xmlNode) one(t *testing.T, path string) string {
	t.Helper()
	got := n.all(path)
	if len(got) != 1 {
		t.Fatalf("%s: found %d elements %q, want 1", path, len(got), got)
	}
	return got[0]
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

type queryCase struct {
	action string
	form   url.Values // without Action
	path   string     // "" means "/"
	input  any
	check  func(t *testing.T, result xmlNode) // the <XxxResult> element; nil for metadata-only answers
}

func queryCases() []queryCase {
	q := testQueue
	wantAttrs := map[string]sqs.MessageAttributeValue{
		"color": {DataType: "String", StringValue: "blue"},
		"blob":  {DataType: "Binary", BinaryValue: []byte("hi!")},
	}
	return []queryCase{
		{
			action: "CreateQueue",
			form: form("QueueName", "orders", "Attribute.1.Name", "VisibilityTimeout", "Attribute.1.Value", "60",
				"Attribute.2.Name", "DelaySeconds", "Attribute.2.Value", "5", "Tag.1.Key", "team", "Tag.1.Value", "core"),
			input: sqs.CreateQueueInput{QueueName: "orders",
				Attributes: map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "5"},
				Tags:       map[string]string{"team": "core"}},
			check: func(t *testing.T, r xmlNode) { equal(t, r.one(t, "QueueUrl"), fakeQueueURL) },
		},
		{
			action: "GetQueueUrl",
			form:   form("QueueName", "orders", "QueueOwnerAWSAccountId", "111122223333"),
			input:  sqs.GetQueueURLInput{QueueName: "orders", QueueOwnerAWSAccountID: "111122223333"},
			check:  func(t *testing.T, r xmlNode) { equal(t, r.one(t, "QueueUrl"), fakeQueueURL) },
		},
		{
			action: "ListQueues",
			form:   form("QueueNamePrefix", "or", "MaxResults", "5", "NextToken", "tok-1"),
			input:  sqs.ListQueuesInput{QueueNamePrefix: "or", MaxResults: ptr(5), NextToken: "tok-1"},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("QueueUrl"), fakeListQueues.QueueURLs)
				equal(t, r.one(t, "NextToken"), "tok-2")
			},
		},
		{action: "DeleteQueue", form: form("QueueUrl", q), input: q},
		{
			action: "GetQueueAttributes",
			form:   form("QueueUrl", q, "AttributeName.1", "All", "AttributeName.2", "DelaySeconds"),
			input:  sqs.GetQueueAttributesInput{QueueURL: q, AttributeNames: []string{"All", "DelaySeconds"}},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("Attribute/Name"), []string{"DelaySeconds", "VisibilityTimeout"})
				equal(t, r.all("Attribute/Value"), []string{"5", "30"})
			},
		},
		{
			action: "SetQueueAttributes",
			form:   form("QueueUrl", q, "Attribute.1.Name", "Policy", "Attribute.1.Value", `{"Version":"2012-10-17"}`),
			input:  sqs.SetQueueAttributesInput{QueueURL: q, Attributes: map[string]string{"Policy": `{"Version":"2012-10-17"}`}},
		},
		{action: "PurgeQueue", form: form("QueueUrl", q), input: q},
		{
			action: "SendMessage",
			form:   form("QueueUrl", q, "MessageBody", "m", "MessageGroupId", "", "MessageDeduplicationId", ""),
			input:  sqs.SendMessageInput{QueueURL: q, MessageBody: "m", MessageGroupID: ptr(""), MessageDeduplicationID: ptr("")},
			check:  func(*testing.T, xmlNode) {},
		},
		{
			action: "SendMessage",
			form: form("QueueUrl", q, "MessageBody", "a+b & <c>", "DelaySeconds", "3",
				"MessageAttribute.1.Name", "color", "MessageAttribute.1.Value.DataType", "String", "MessageAttribute.1.Value.StringValue", "blue",
				"MessageAttribute.2.Name", "blob", "MessageAttribute.2.Value.DataType", "Binary", "MessageAttribute.2.Value.BinaryValue", "aGkh",
				"MessageSystemAttribute.1.Name", "AWSTraceHeader", "MessageSystemAttribute.1.Value.DataType", "String",
				"MessageSystemAttribute.1.Value.StringValue", "Root=1", "MessageDeduplicationId", "d", "MessageGroupId", "g"),
			input: sqs.SendMessageInput{QueueURL: q, MessageBody: "a+b & <c>", DelaySeconds: ptr(3), MessageAttributes: wantAttrs,
				MessageSystemAttributes: map[string]sqs.MessageAttributeValue{"AWSTraceHeader": {DataType: "String", StringValue: "Root=1"}},
				MessageDeduplicationID:  ptr("d"), MessageGroupID: ptr("g")},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.one(t, "MessageId"), "m-sent")
				equal(t, r.one(t, "MD5OfMessageBody"), sqs.MD5OfBody("a+b & <c>"))
				equal(t, r.one(t, "MD5OfMessageAttributes"), sqs.MD5OfMessageAttributes(wantAttrs))
				equal(t, r.one(t, "SequenceNumber"), "0001")
			},
		},
		{
			action: "SendMessageBatch",
			form: form("QueueUrl", q,
				"SendMessageBatchRequestEntry.1.Id", "a", "SendMessageBatchRequestEntry.1.MessageBody", "one",
				"SendMessageBatchRequestEntry.1.MessageAttribute.1.Name", "color",
				"SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType", "String",
				"SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue", "blue",
				"SendMessageBatchRequestEntry.2.Id", "b", "SendMessageBatchRequestEntry.2.MessageBody", "two",
				"SendMessageBatchRequestEntry.2.DelaySeconds", "9", "SendMessageBatchRequestEntry.2.MessageGroupId", "g",
				"SendMessageBatchRequestEntry.10.Id", "c", "SendMessageBatchRequestEntry.10.MessageBody", "ten"),
			input: sqs.SendMessageBatchInput{QueueURL: q, Entries: []sqs.SendMessageBatchEntry{
				{ID: "a", MessageBody: "one", MessageAttributes: map[string]sqs.MessageAttributeValue{"color": {DataType: "String", StringValue: "blue"}}},
				{ID: "b", MessageBody: "two", DelaySeconds: ptr(9), MessageGroupID: ptr("g")},
				{ID: "c", MessageBody: "ten"},
			}},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("SendMessageBatchResultEntry/Id"), []string{"a", "b"})
				equal(t, r.all("SendMessageBatchResultEntry/MD5OfMessageBody"), []string{sqs.MD5OfBody("one"), sqs.MD5OfBody("two")})
				equal(t, r.all("BatchResultErrorEntry/Id"), []string{"c"})
				equal(t, r.all("BatchResultErrorEntry/SenderFault"), []string{"true"})
				equal(t, r.all("BatchResultErrorEntry/Message"), []string{"bad <body>"})
			},
		},
		{
			action: "ReceiveMessage",
			form: form("QueueUrl", q, "MaxNumberOfMessages", "10", "VisibilityTimeout", "45", "WaitTimeSeconds", "0",
				"AttributeName.1", "All", "MessageSystemAttributeName.1", "SentTimestamp", "MessageAttributeName.1", "All",
				"ReceiveRequestAttemptId", "at"),
			input: sqs.ReceiveMessageInput{QueueURL: q, MaxNumberOfMessages: ptr(10), VisibilityTimeout: ptr(45), WaitTimeSeconds: ptr(0),
				AttributeNames: []string{"All"}, MessageSystemAttributeNames: []string{"SentTimestamp"},
				MessageAttributeNames: []string{"All"}, ReceiveRequestAttemptID: "at"},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("Message/MessageId"), []string{"m-1", "m-2"})
				equal(t, r.all("Message/Body"), []string{fakeMessages[0].Body, "second"})
				equal(t, r.all("Message/MD5OfBody"), []string{fakeMessages[0].MD5OfBody, fakeMessages[1].MD5OfBody})
				equal(t, r.all("Message/Attribute/Name"), []string{"ApproximateReceiveCount", "SentTimestamp"})
				equal(t, r.all("Message/MessageAttribute/Name"), []string{"blob", "color"})
				equal(t, r.all("Message/MessageAttribute/Value/BinaryValue"), []string{"AAEC/w=="})
				equal(t, r.all("Message/MessageAttribute/Value/StringValue"), []string{"blue"})
				equal(t, r.all("Message/MessageAttribute/Value/DataType"), []string{"Binary.gif", "String"})
				equal(t, r.all("Message/MD5OfMessageAttributes"), []string{fakeMessages[0].MD5OfMessageAttributes})
			},
		},
		{
			action: "DeleteMessage",
			form:   form("QueueUrl", q, "ReceiptHandle", "rh+/="),
			input:  sqs.DeleteMessageInput{QueueURL: q, ReceiptHandle: "rh+/="},
		},
		{
			action: "DeleteMessageBatch",
			form: form("QueueUrl", q, "DeleteMessageBatchRequestEntry.1.Id", "a", "DeleteMessageBatchRequestEntry.1.ReceiptHandle", "rh-1",
				"DeleteMessageBatchRequestEntry.2.Id", "b", "DeleteMessageBatchRequestEntry.2.ReceiptHandle", "rh-x"),
			input: sqs.DeleteMessageBatchInput{QueueURL: q, Entries: []sqs.BatchHandleEntry{{ID: "a", ReceiptHandle: "rh-1"}, {ID: "b", ReceiptHandle: "rh-x"}}},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("DeleteMessageBatchResultEntry/Id"), []string{"a"})
				equal(t, r.all("BatchResultErrorEntry/Code"), []string{"ReceiptHandleIsInvalid"})
			},
		},
		{
			action: "ChangeMessageVisibility",
			form:   form("QueueUrl", q, "ReceiptHandle", "rh-1", "VisibilityTimeout", "120"),
			input:  sqs.ChangeMessageVisibilityInput{QueueURL: q, ReceiptHandle: "rh-1", VisibilityTimeout: ptr(120)},
		},
		{
			action: "ChangeMessageVisibilityBatch",
			form: form("QueueUrl", q, "ChangeMessageVisibilityBatchRequestEntry.1.Id", "a",
				"ChangeMessageVisibilityBatchRequestEntry.1.ReceiptHandle", "rh-1", "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout", "0"),
			input: sqs.ChangeMessageVisibilityBatchInput{QueueURL: q, Entries: []sqs.BatchHandleEntry{{ID: "a", ReceiptHandle: "rh-1", VisibilityTimeout: ptr(0)}}},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("ChangeMessageVisibilityBatchResultEntry/Id"), []string{"a"})
				equal(t, r.all("BatchResultErrorEntry/Id"), []string{"b"})
			},
		},
		{
			action: "TagQueue",
			form:   form("QueueUrl", q, "Tag.1.Key", "a", "Tag.1.Value", "1", "Tag.2.Key", "b", "Tag.2.Value", ""),
			input:  sqs.TagQueueInput{QueueURL: q, Tags: map[string]string{"a": "1", "b": ""}},
		},
		{
			action: "UntagQueue",
			form:   form("QueueUrl", q, "TagKey.1", "a", "TagKey.2", "b"),
			input:  sqs.UntagQueueInput{QueueURL: q, TagKeys: []string{"a", "b"}},
		},
		{
			action: "ListQueueTags",
			form:   form("QueueUrl", q),
			input:  q,
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("Tag/Key"), []string{"env", "team"})
				equal(t, r.all("Tag/Value"), []string{"<prod&dev>", "core"})
			},
		},
		{
			action: "ListDeadLetterSourceQueues",
			form:   form("QueueUrl", q, "MaxResults", "2", "NextToken", "n"),
			input:  sqs.ListDeadLetterSourceQueuesInput{QueueURL: q, MaxResults: ptr(2), NextToken: "n"},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("QueueUrl"), fakeListQueues.QueueURLs)
				equal(t, r.one(t, "NextToken"), "tok-2")
			},
		},
		{
			action: "StartMessageMoveTask",
			form:   form("SourceArn", "arn:aws:sqs:us-east-1:000000000000:dlq", "MaxNumberOfMessagesPerSecond", "10"),
			input:  sqs.StartMessageMoveTaskInput{SourceARN: "arn:aws:sqs:us-east-1:000000000000:dlq", MaxNumberOfMessagesPerSecond: ptr(10)},
			check:  func(t *testing.T, r xmlNode) { equal(t, r.one(t, "TaskHandle"), fakeTaskHandle) },
		},
		{
			action: "ListMessageMoveTasks",
			form:   form("SourceArn", "arn:aws:sqs:us-east-1:000000000000:dlq", "MaxResults", "3"),
			input:  sqs.ListMessageMoveTasksInput{SourceARN: "arn:aws:sqs:us-east-1:000000000000:dlq", MaxResults: ptr(3)},
			check: func(t *testing.T, r xmlNode) {
				equal(t, r.all("ListMessageMoveTasksResultEntry/Status"), []string{"RUNNING", "FAILED"})
				equal(t, r.all("ListMessageMoveTasksResultEntry/TaskHandle"), []string{"task-1"})
				equal(t, r.all("ListMessageMoveTasksResultEntry/ApproximateNumberOfMessagesToMove"), []string{"20"})
				equal(t, r.all("ListMessageMoveTasksResultEntry/StartedTimestamp"), []string{"1700000000123", "1690000000000"})
				equal(t, r.all("ListMessageMoveTasksResultEntry/FailureReason"), []string{"AccessDenied"})
			},
		},
		{
			action: "CancelMessageMoveTask",
			form:   form("TaskHandle", "task-1"),
			input:  "task-1",
			check:  func(t *testing.T, r xmlNode) { equal(t, r.one(t, "ApproximateNumberOfMessagesMoved"), "42") },
		},
		{
			action: "AddPermission",
			form: form("QueueUrl", q, "Label", "l1", "AWSAccountId.1", "111122223333", "AWSAccountId.2", "444455556666",
				"ActionName.1", "SendMessage", "ActionName.2", "*"),
			input: sqs.AddPermissionInput{QueueURL: q, Label: "l1", AWSAccountIDs: []string{"111122223333", "444455556666"},
				Actions: []string{"SendMessage", "*"}},
		},
		{
			action: "RemovePermission",
			form:   form("QueueUrl", q, "Label", "l1"),
			input:  sqs.RemovePermissionInput{QueueURL: q, Label: "l1"},
		},
	}
}

// TestQueryEveryAction posts every action as a raw form and reads the XML
// answer: the API gets the decoded input, the answer has AWS's envelope.
func TestQueryEveryAction(t *testing.T) {
	fake, srv := startEdge(t, Config{})
	seen := map[string]bool{}
	for _, tc := range queryCases() {
		seen[tc.action] = true
		t.Run(tc.action, func(t *testing.T) {
			f := tc.form
			f.Set("Action", tc.action)
			f.Set("Version", "2012-11-05")
			resp := postForm(t, srv, "/", f)
			if resp.status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.status, resp.body)
			}
			equal(t, resp.header.Get("Content-Type"), "text/xml")
			got, _ := fake.last()
			equal(t, got.Action, tc.action)
			equal(t, got.Input, tc.input)

			doc := parseXML(t, resp.body)
			equal(t, doc.XMLName, xml.Name{Space: sqsNamespace, Local: tc.action + "Response"})
			equal(t, doc.one(t, "ResponseMetadata/RequestId"), resp.header.Get("x-amzn-RequestId"))
			results := doc.all(tc.action + "Result")
			if tc.check == nil {
				if len(results) != 0 {
					t.Fatalf("unexpected %sResult in %s", tc.action, resp.body)
				}
				return
			}
			for _, n := range doc.Nodes {
				if n.XMLName.Local == tc.action+"Result" {
					tc.check(t, n)
					return
				}
			}
			t.Fatalf("no %sResult in %s", tc.action, resp.body)
		})
	}
	for action := range sqsQueryActions {
		if !seen[action] {
			t.Errorf("action %s has no Query test", action)
		}
	}
	equal(t, len(sqsQueryActions), len(sqsJSONActions))
}

// TestQueryGETAndQueuePath sends Query requests the other ways clients
// do: as a GET with the parameters in the URL, and posted to the queue URL
// itself without a QueueUrl parameter.
func TestQueryGETAndQueuePath(t *testing.T) {
	fake, srv := startEdge(t, Config{})
	host := srv.Listener.Addr().String()

	resp := do(t, mustRequest(t, http.MethodGet, srv.URL+"/?Action=ListQueues&QueueNamePrefix=ab", ""))
	if resp.status != http.StatusOK {
		t.Fatalf("GET: status %d: %s", resp.status, resp.body)
	}
	got, _ := fake.last()
	equal(t, got.Input, any(sqs.ListQueuesInput{QueueNamePrefix: "ab"}))

	resp = postForm(t, srv, "/000000000000/jobs", form("Action", "SendMessage", "MessageBody", "x"))
	if resp.status != http.StatusOK {
		t.Fatalf("POST to a queue URL: status %d: %s", resp.status, resp.body)
	}
	got, _ = fake.last()
	equal(t, got.Input.(sqs.SendMessageInput).QueueURL, "http://"+host+"/000000000000/jobs")

	// An action on the account, not on a queue, is not valid at a queue
	// URL (GET or POST), as on AWS; it never reaches the API.
	calls := fake.count()
	for _, action := range []string{"ListQueues", "CreateQueue", "GetQueueUrl"} {
		resp = do(t, mustRequest(t, http.MethodGet, srv.URL+"/000000000000/jobs?Action="+action+"&QueueName=x", ""))
		if resp.status != http.StatusBadRequest || !strings.Contains(resp.body, "<Code>InvalidAction</Code>") ||
			!strings.Contains(resp.body, "<Message>The action "+action+" is not valid for this endpoint.</Message>") {
			t.Fatalf("GET %s at a queue URL: %d %s", action, resp.status, resp.body)
		}
	}
	if n := fake.count(); n != calls {
		t.Fatalf("the API was called %d times for actions refused at the edge", n-calls)
	}
}

func mustRequest(t *testing.T, method, target, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestQueryErrors checks the <ErrorResponse> shape, codes and statuses of
// errors from the API, from the edge and from authentication.
func TestQueryErrors(t *testing.T) {
	cases := []struct {
		name    string
		apiErr  error
		auth    bool
		rawBody string // sent as is instead of form
		form    url.Values
		status  int
		fault   string
		code    string
		message string // "" skips the check
	}{
		{name: "queue does not exist", apiErr: sqs.ErrQueueDoesNotExist(), form: form("Action", "PurgeQueue", "QueueUrl", testQueue),
			status: 400, fault: "Sender", code: "AWS.SimpleQueueService.NonExistentQueue", message: "The specified queue does not exist for this wsdl version."},
		{name: "message escaped", apiErr: sqs.ErrInvalidParameterValue("bad <value> & \"more\""), form: form("Action", "PurgeQueue"),
			status: 400, fault: "Sender", code: "InvalidParameterValue", message: "bad <value> & \"more\""},
		{name: "purge in progress", apiErr: sqs.ErrPurgeQueueInProgress("q"), form: form("Action", "PurgeQueue"),
			status: 403, fault: "Sender", code: "AWS.SimpleQueueService.PurgeQueueInProgress"},
		{name: "unavailable", apiErr: sqs.ErrServiceUnavailable(nil), form: form("Action", "PurgeQueue"),
			status: 503, fault: "Receiver", code: "ServiceUnavailable"},
		{name: "unknown action", form: form("Action", "FlyToTheMoon<>"), status: 400, fault: "Sender", code: "InvalidAction",
			message: "The action or operation requested is invalid: FlyToTheMoon<>"},
		{name: "missing action", form: form("QueueUrl", testQueue), status: 404, fault: "Sender", code: "UnknownOperationException"},
		{name: "repeated parameter", rawBody: "Action=PurgeQueue&QueueUrl=a&QueueUrl=b", status: 400, fault: "Sender", code: "MalformedQueryString"},
		{name: "malformed form", rawBody: "Action=PurgeQueue&QueueUrl=%zz", status: 400, fault: "Sender", code: "MalformedQueryString"},
		{name: "bad integer", form: form("Action", "ListQueues", "MaxResults", "ten"), status: 400, fault: "Sender", code: "InvalidParameterValue"},
		{name: "bad index", form: form("Action", "UntagQueue", "TagKey.01", "a"), status: 400, fault: "Sender", code: "InvalidParameterValue"},
		{name: "attribute without name", form: form("Action", "CreateQueue", "Attribute.1.Value", "1"), status: 400, fault: "Sender", code: "MissingParameter"},
		{name: "bad base64", form: form("Action", "SendMessage", "MessageAttribute.1.Name", "b", "MessageAttribute.1.Value.DataType", "Binary",
			"MessageAttribute.1.Value.BinaryValue", "!!"), status: 400, fault: "Sender", code: "InvalidParameterValue"},
		{name: "unsigned with auth on", auth: true, form: form("Action", "ListQueues"), status: 403, fault: "Sender", code: "MissingAuthenticationToken"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{}
			if tc.auth {
				cfg.Verifier = awsauth.NewVerifier(awsauth.Credentials{testKeyID: testSecret})
			}
			fake, srv := startEdge(t, cfg)
			fake.err = tc.apiErr
			body := tc.rawBody
			if body == "" {
				body = tc.form.Encode()
			}
			req := mustRequest(t, http.MethodPost, srv.URL+"/", body)
			req.Header.Set("Content-Type", formContentType)
			resp := do(t, req)
			equal(t, resp.status, tc.status)
			doc := parseXML(t, resp.body)
			equal(t, doc.XMLName, xml.Name{Space: sqsNamespace, Local: "ErrorResponse"})
			equal(t, doc.one(t, "Error/Type"), tc.fault)
			equal(t, doc.one(t, "Error/Code"), tc.code)
			if tc.message != "" {
				equal(t, doc.one(t, "Error/Message"), tc.message)
			}
			equal(t, len(doc.all("Error/Detail")), 1)
			equal(t, doc.one(t, "RequestId"), resp.header.Get("x-amzn-RequestId"))
		})
	}
}

// TestBodyLimit checks that an oversized body is refused with 413 in the
// protocol's shape before anything decodes it.
func TestBodyLimit(t *testing.T) {
	fake, srv := startEdge(t, Config{MaxBodyBytes: 1024})
	resp := postForm(t, srv, "/", form("Action", "SendMessage", "MessageBody", strings.Repeat("x", 2000)))
	equal(t, resp.status, http.StatusRequestEntityTooLarge)
	equal(t, parseXML(t, resp.body).one(t, "Error/Code"), CodeRequestEntityTooLarge)

	req := mustRequest(t, http.MethodPost, srv.URL+"/", `{"MessageBody":"`+strings.Repeat("x", 2000)+`"}`)
	req.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
	resp = do(t, req)
	equal(t, resp.status, http.StatusRequestEntityTooLarge)
	if len(fake.calls) != 0 {
		t.Fatalf("an oversized request reached the API")
	}
}
