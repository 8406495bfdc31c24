package sqs_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

func TestSendReceiveDelete(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "work", nil)
	attrs := map[string]sqs.MessageAttributeValue{
		"color":      {DataType: "String", StringValue: "blue"},
		"size.cm":    {DataType: "Number", StringValue: "12"},
		"blob":       {DataType: "Binary", BinaryValue: []byte{1, 2, 3}},
		"size.label": {DataType: "String", StringValue: "L"},
	}
	sent, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{
		QueueURL: url, MessageBody: "hello", MessageAttributes: attrs,
		MessageSystemAttributes: map[string]sqs.MessageAttributeValue{"AWSTraceHeader": {DataType: "String", StringValue: "Root=1-abc"}},
	})
	wantCode(t, err, "")
	if sent.MD5OfMessageBody != sqs.MD5OfBody("hello") || sent.MD5OfMessageAttributes != sqs.MD5OfMessageAttributes(attrs) || sent.MD5OfMessageSystemAttributes == "" {
		t.Fatalf("send output %+v", sent)
	}
	if sent.SequenceNumber != "" {
		t.Fatalf("standard queue returned SequenceNumber %s", sent.SequenceNumber)
	}

	msgs := e.receive(t, url, 10, nil)
	if len(msgs) != 1 {
		t.Fatalf("received %d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.MessageID != sent.MessageID || m.Body != "hello" || m.MD5OfBody != sent.MD5OfMessageBody {
		t.Fatalf("received %+v", m)
	}
	if m.MD5OfMessageAttributes != sent.MD5OfMessageAttributes || len(m.MessageAttributes) != 4 {
		t.Fatalf("message attributes %v md5 %s", m.MessageAttributes, m.MD5OfMessageAttributes)
	}
	sentAt, _ := strconv.ParseInt(m.Attributes["SentTimestamp"], 10, 64)
	if sentAt != e.clock.Now().UnixMilli() {
		t.Errorf("SentTimestamp %d, want %d", sentAt, e.clock.Now().UnixMilli())
	}
	wantAttrs := map[string]string{"SenderId": "AKIDTEST", "ApproximateReceiveCount": "1", "AWSTraceHeader": "Root=1-abc"}
	for k, v := range wantAttrs {
		if m.Attributes[k] != v {
			t.Errorf("attribute %s = %q, want %q", k, m.Attributes[k], v)
		}
	}
	if m.Attributes["ApproximateFirstReceiveTimestamp"] == "" {
		t.Error("no ApproximateFirstReceiveTimestamp")
	}
	if _, ok := m.Attributes["MessageGroupId"]; ok {
		t.Error("standard message has MessageGroupId")
	}

	// Invisible while in flight.
	if again := e.receive(t, url, 10, nil); len(again) != 0 {
		t.Fatalf("in-flight message received again: %v", bodies(again))
	}
	e.deleteMessage(t, url, m.ReceiptHandle)
	e.advance(time.Minute)
	if again := e.receive(t, url, 10, nil); len(again) != 0 {
		t.Fatalf("deleted message received again: %v", bodies(again))
	}
	// Deleting again with the stale handle is fine, as on AWS.
	e.deleteMessage(t, url, m.ReceiptHandle)
}

func TestReceiveSelectsAttributes(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "select", nil)
	attrs := map[string]sqs.MessageAttributeValue{
		"size.cm":    {DataType: "Number", StringValue: "12"},
		"size.label": {DataType: "String", StringValue: "L"},
		"color":      {DataType: "String", StringValue: "red"},
	}
	tests := []struct {
		name      string
		msgNames  []string
		sysNames  []string
		wantAttrs []string
		wantSys   []string
	}{
		{"none", nil, nil, nil, nil},
		{"all", []string{"All"}, []string{"SentTimestamp"}, []string{"color", "size.cm", "size.label"}, []string{"SentTimestamp"}},
		{"dot star", []string{".*"}, nil, []string{"color", "size.cm", "size.label"}, nil},
		{"star", []string{"*"}, nil, []string{"color", "size.cm", "size.label"}, nil},
		{"prefix", []string{"size.*"}, []string{"ApproximateReceiveCount", "SenderId"}, []string{"size.cm", "size.label"}, []string{"ApproximateReceiveCount", "SenderId"}},
		{"exact", []string{"color", "absent"}, nil, []string{"color"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "b", MessageAttributes: attrs})
			wantCode(t, err, "")
			out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, MessageAttributeNames: tt.msgNames, AttributeNames: tt.sysNames})
			wantCode(t, err, "")
			if len(out.Messages) != 1 {
				t.Fatalf("got %d messages", len(out.Messages))
			}
			m := out.Messages[0]
			var gotAttrs, gotSys []string
			for k := range m.MessageAttributes {
				gotAttrs = append(gotAttrs, k)
			}
			for k := range m.Attributes {
				gotSys = append(gotSys, k)
			}
			slices.Sort(gotAttrs)
			slices.Sort(gotSys)
			if !slices.Equal(gotAttrs, tt.wantAttrs) || !slices.Equal(gotSys, tt.wantSys) {
				t.Fatalf("attributes %v / %v, want %v / %v", gotAttrs, gotSys, tt.wantAttrs, tt.wantSys)
			}
			if m.MD5OfMessageAttributes != sqs.MD5OfMessageAttributes(m.MessageAttributes) {
				t.Fatalf("MD5OfMessageAttributes %q does not cover the returned attributes", m.MD5OfMessageAttributes)
			}
			e.deleteMessage(t, url, m.ReceiptHandle)
		})
	}
}

func TestSendValidates(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "strict", map[string]string{"MaximumMessageSize": "1024"})
	tests := []struct {
		name string
		in   sqs.SendMessageInput
		code string
	}{
		{"empty body", sqs.SendMessageInput{}, sqs.CodeMissingParameter},
		{"bad character", sqs.SendMessageInput{MessageBody: "a\x00b"}, sqs.CodeInvalidMessageContents},
		{"too large", sqs.SendMessageInput{MessageBody: strings.Repeat("x", 1025)}, sqs.CodeInvalidParameterValue},
		{"delay too long", sqs.SendMessageInput{MessageBody: "x", DelaySeconds: ptr(901)}, sqs.CodeInvalidParameterValue},
		{"negative delay", sqs.SendMessageInput{MessageBody: "x", DelaySeconds: ptr(-1)}, sqs.CodeInvalidParameterValue},
		// AWS accepts a MessageGroupId on standard queues (fair queues),
		// but still checks its characters.
		{"bad group id on standard", sqs.SendMessageInput{MessageBody: "x", MessageGroupID: ptr("g g")}, sqs.CodeInvalidParameterValue},
		{"dedup id on standard", sqs.SendMessageInput{MessageBody: "x", MessageDeduplicationID: ptr("d")}, sqs.CodeInvalidParameterValue},
		{"empty group id on standard", sqs.SendMessageInput{MessageBody: "x", MessageGroupID: ptr("")}, sqs.CodeInvalidParameterValue},
		{"empty dedup id on standard", sqs.SendMessageInput{MessageBody: "x", MessageDeduplicationID: ptr("")}, sqs.CodeInvalidParameterValue},
		{"bad attribute", sqs.SendMessageInput{MessageBody: "x", MessageAttributes: map[string]sqs.MessageAttributeValue{"n": {DataType: "Number", StringValue: "abc"}}}, sqs.CodeInvalidParameterValue},
		{"bad system attribute", sqs.SendMessageInput{MessageBody: "x", MessageSystemAttributes: map[string]sqs.MessageAttributeValue{"Other": {DataType: "String", StringValue: "v"}}}, sqs.CodeInvalidParameterValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.QueueURL = url
			_, err := e.svc.SendMessage(e.ctx, caller, tt.in)
			wantCode(t, err, tt.code)
		})
	}
	_, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: "http://h/000000000000/missing", MessageBody: "x"})
	wantCode(t, err, sqs.CodeQueueDoesNotExist)
}

func TestReceiveValidates(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "rv", nil)
	tests := []struct {
		name string
		in   sqs.ReceiveMessageInput
	}{
		{"max 0", sqs.ReceiveMessageInput{MaxNumberOfMessages: ptr(0)}},
		{"max 11", sqs.ReceiveMessageInput{MaxNumberOfMessages: ptr(11)}},
		{"visibility", sqs.ReceiveMessageInput{VisibilityTimeout: ptr(43201)}},
		{"wait", sqs.ReceiveMessageInput{WaitTimeSeconds: ptr(21)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.QueueURL = url
			_, err := e.svc.ReceiveMessage(e.ctx, caller, tt.in)
			wantCode(t, err, sqs.CodeInvalidParameterValue)
		})
	}
}

func TestVisibilityTimeout(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "vis", map[string]string{"VisibilityTimeout": "30"})
	e.send(t, url, "m")
	first := e.receive(t, url, 1, nil)
	if len(first) != 1 {
		t.Fatal("nothing received")
	}
	e.advance(29 * time.Second)
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatal("received before the visibility timeout ended")
	}
	e.advance(2 * time.Second)
	second := e.receive(t, url, 1, ptr(100))
	if len(second) != 1 || second[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("second receive %+v", second)
	}
	if second[0].Attributes["ApproximateFirstReceiveTimestamp"] != first[0].Attributes["ApproximateFirstReceiveTimestamp"] {
		t.Error("ApproximateFirstReceiveTimestamp changed")
	}

	// ChangeMessageVisibility to 0 makes it receivable at once.
	wantCode(t, e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: second[0].ReceiptHandle, VisibilityTimeout: ptr(0)}), "")
	third := e.receive(t, url, 1, nil)
	if len(third) != 1 || third[0].Attributes["ApproximateReceiveCount"] != "3" {
		t.Fatalf("third receive %+v", third)
	}
	// Extending keeps it hidden past its original timeout.
	wantCode(t, e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: third[0].ReceiptHandle, VisibilityTimeout: ptr(600)}), "")
	e.advance(5 * time.Minute)
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatal("received while its visibility was extended")
	}
	e.advance(6 * time.Minute)
	fourth := e.receive(t, url, 1, nil)
	if len(fourth) != 1 {
		t.Fatal("not visible after the extended timeout")
	}

	tests := []struct {
		name    string
		handle  string
		timeout *int
		code    string
	}{
		{"out of range", fourth[0].ReceiptHandle, ptr(43201), sqs.CodeInvalidParameterValue},
		{"missing timeout", fourth[0].ReceiptHandle, nil, sqs.CodeMissingParameter},
		{"garbage handle", "garbage", ptr(10), sqs.CodeReceiptHandleIsInvalid},
		// As on AWS, accepted after the timeout ended: hidden again.
		{"timeout over", fourth[0].ReceiptHandle, ptr(10), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "timeout over" {
				e.advance(time.Minute) // the visibility timeout ends
			}
			err := e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: tt.handle, VisibilityTimeout: tt.timeout})
			wantCode(t, err, tt.code)
		})
	}
}

func TestReceiptHandlesAreBoundToTheirQueue(t *testing.T) {
	e := newEnv(t)
	a := e.createQueue(t, "a", nil)
	b := e.createQueue(t, "b", nil)
	e.send(t, a, "x")
	msgs := e.receive(t, a, 1, nil)
	h := msgs[0].ReceiptHandle
	tampered := []byte(h)
	tampered[len(tampered)/2] ^= 1
	for _, bad := range []string{"", "not-base64!", "AAAA", string(tampered)} {
		err := e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: a, ReceiptHandle: bad})
		if bad == "" {
			wantCode(t, err, sqs.CodeMissingParameter)
			continue
		}
		wantCode(t, err, sqs.CodeReceiptHandleIsInvalid)
	}
	wantCode(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: b, ReceiptHandle: h}), sqs.CodeReceiptHandleIsInvalid)
	e.deleteMessage(t, a, h)
}

func TestDelays(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "delayed", map[string]string{"DelaySeconds": "10"})
	e.send(t, url, "queue delay")
	_, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "message delay", DelaySeconds: ptr(60)})
	wantCode(t, err, "")
	_, err = e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "no delay", DelaySeconds: ptr(0)})
	wantCode(t, err, "")

	// A visibility timeout longer than the test keeps received messages
	// out of the later receives.
	long := ptr(3600)
	if got := bodies(e.receive(t, url, 10, long)); !slices.Equal(got, []string{"no delay"}) {
		t.Fatalf("at once: %v", got)
	}
	if d := e.attributes(t, url, "ApproximateNumberOfMessagesDelayed")["ApproximateNumberOfMessagesDelayed"]; d != "2" {
		t.Fatalf("delayed count %s, want 2", d)
	}
	e.advance(10 * time.Second)
	if got := bodies(e.receive(t, url, 10, long)); !slices.Equal(got, []string{"queue delay"}) {
		t.Fatalf("after 10s: %v", got)
	}
	e.advance(50 * time.Second)
	if got := bodies(e.receive(t, url, 10, long)); !slices.Equal(got, []string{"message delay"}) {
		t.Fatalf("after 60s: %v", got)
	}
}

func TestBatches(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "batch", nil)
	out, err := e.svc.SendMessageBatch(e.ctx, caller, sqs.SendMessageBatchInput{QueueURL: url, Entries: []sqs.SendMessageBatchEntry{
		{ID: "a", MessageBody: "one"},
		{ID: "b", MessageBody: ""},
		{ID: "c", MessageBody: "three", DelaySeconds: ptr(1000)},
		{ID: "d", MessageBody: "four"},
	}})
	wantCode(t, err, "")
	var ok, failed []string
	for _, s := range out.Successful {
		ok = append(ok, s.ID)
		if s.MessageID == "" || s.MD5OfMessageBody == "" {
			t.Errorf("entry %s: %+v", s.ID, s)
		}
	}
	for _, f := range out.Failed {
		failed = append(failed, f.ID+":"+f.Code)
		if !f.SenderFault {
			t.Errorf("entry %s not a sender fault", f.ID)
		}
	}
	if !slices.Equal(ok, []string{"a", "d"}) || !slices.Equal(failed, []string{"b:MissingParameter", "c:InvalidParameterValue"}) {
		t.Fatalf("successful %v failed %v", ok, failed)
	}

	whole := []struct {
		name    string
		entries []sqs.SendMessageBatchEntry
		code    string
	}{
		{"empty", nil, sqs.CodeEmptyBatchRequest},
		{"too many", make([]sqs.SendMessageBatchEntry, 11), sqs.CodeTooManyEntriesInBatchRequest},
		{"repeated id", []sqs.SendMessageBatchEntry{{ID: "x", MessageBody: "1"}, {ID: "x", MessageBody: "2"}}, sqs.CodeBatchEntryIdsNotDistinct},
		{"bad id", []sqs.SendMessageBatchEntry{{ID: "a b", MessageBody: "1"}}, sqs.CodeInvalidBatchEntryID},
		{"too long", []sqs.SendMessageBatchEntry{{ID: "x", MessageBody: strings.Repeat("a", 600000)}, {ID: "y", MessageBody: strings.Repeat("a", 600000)}}, sqs.CodeBatchRequestTooLong},
	}
	for i := range whole[1].entries {
		whole[1].entries[i] = sqs.SendMessageBatchEntry{ID: "e" + strconv.Itoa(i), MessageBody: "x"}
	}
	for _, tt := range whole {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.SendMessageBatch(e.ctx, caller, sqs.SendMessageBatchInput{QueueURL: url, Entries: tt.entries})
			wantCode(t, err, tt.code)
		})
	}

	msgs := e.receive(t, url, 10, nil)
	if got := bodies(msgs); len(got) != 2 {
		t.Fatalf("received %v", got)
	}
	vis, err := e.svc.ChangeMessageVisibilityBatch(e.ctx, caller, sqs.ChangeMessageVisibilityBatchInput{QueueURL: url, Entries: []sqs.BatchHandleEntry{
		{ID: "v1", ReceiptHandle: msgs[0].ReceiptHandle, VisibilityTimeout: ptr(0)},
		{ID: "v2", ReceiptHandle: "bogus", VisibilityTimeout: ptr(0)},
	}})
	wantCode(t, err, "")
	if !slices.Equal(vis.Successful, []string{"v1"}) || len(vis.Failed) != 1 || vis.Failed[0].Code != sqs.CodeReceiptHandleIsInvalid {
		t.Fatalf("visibility batch %+v", vis)
	}
	again := e.receive(t, url, 10, nil)
	if len(again) != 1 || again[0].Body != msgs[0].Body {
		t.Fatalf("after visibility 0: %v", bodies(again))
	}
	del, err := e.svc.DeleteMessageBatch(e.ctx, caller, sqs.DeleteMessageBatchInput{QueueURL: url, Entries: []sqs.BatchHandleEntry{
		{ID: "d1", ReceiptHandle: again[0].ReceiptHandle},
		{ID: "d2", ReceiptHandle: msgs[1].ReceiptHandle},
		{ID: "d3", ReceiptHandle: "bogus"},
	}})
	wantCode(t, err, "")
	if !slices.Equal(del.Successful, []string{"d1", "d2"}) || len(del.Failed) != 1 || del.Failed[0].ID != "d3" {
		t.Fatalf("delete batch %+v", del)
	}
	e.advance(time.Hour)
	if left := e.receive(t, url, 10, nil); len(left) != 0 {
		t.Fatalf("left after batch delete: %v", bodies(left))
	}
	_, err = e.svc.DeleteMessageBatch(e.ctx, caller, sqs.DeleteMessageBatchInput{QueueURL: url})
	wantCode(t, err, sqs.CodeEmptyBatchRequest)
}

// TestTraceHeaderBecomesAWSTraceHeader: as on AWS, a message sent without
// an AWSTraceHeader system attribute takes the request's X-Amzn-Trace-Id;
// its own attribute wins; a header that could not be an attribute value is
// left out, and the send succeeds.
func TestTraceHeaderBecomesAWSTraceHeader(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "trace", nil)
	own := map[string]sqs.MessageAttributeValue{"AWSTraceHeader": {DataType: "String", StringValue: "Root=own"}}
	for _, tc := range []struct {
		name, header string
		sys          map[string]sqs.MessageAttributeValue
		want         string // "" for no attribute
	}{
		{"header", "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1", nil, "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"},
		{"own attribute wins", "Root=header", own, "Root=own"},
		{"no header", "", nil, ""},
		{"bad characters", "Root=\x01", nil, ""},
		{"too long", strings.Repeat("x", 1025), nil, ""},
	} {
		c := caller
		c.TraceHeader = tc.header
		_, err := e.svc.SendMessage(e.ctx, c, sqs.SendMessageInput{QueueURL: url, MessageBody: tc.name, MessageSystemAttributes: tc.sys})
		wantCode(t, err, "")
		got := e.receive(t, url, 1, nil)
		if len(got) != 1 || got[0].Body != tc.name {
			t.Fatalf("%s: received %v", tc.name, bodies(got))
		}
		if v := got[0].Attributes["AWSTraceHeader"]; v != tc.want {
			t.Errorf("%s: AWSTraceHeader %q, want %q", tc.name, v, tc.want)
		}
		e.deleteMessage(t, url, got[0].ReceiptHandle)
	}
}
