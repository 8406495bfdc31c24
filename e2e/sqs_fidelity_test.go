package e2e

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// TestSQSMessageAttributeNamesSelect: ReceiveMessage's MessageAttributeNames
// select as AWS documents: "All", "*" and ".*" all of them, "Name.*" those
// under a prefix, other names exactly.
func TestSQSMessageAttributeNamesSelect(t *testing.T) {
	s := startServer(t, "")
	c := sqsClient(s)
	ctx := ctxFor(t, time.Minute)
	q := newQueue(t, c, "", map[string]string{"VisibilityTimeout": "0"}) // each receive sees the message again
	str := func(v string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String("m"),
		MessageAttributes: map[string]types.MessageAttributeValue{"color": str("red"), "size.cm": str("3"), "size.label": str("S")}}); err != nil {
		t.Fatal(err)
	}
	all := []string{"color", "size.cm", "size.label"}
	for _, tc := range []struct {
		names []string
		want  []string
	}{
		{[]string{"All"}, all},
		{[]string{"*"}, all},
		{[]string{".*"}, all},
		{[]string{"size.*"}, []string{"size.cm", "size.label"}},
		{[]string{"color", "absent"}, []string{"color"}},
	} {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q),
			WaitTimeSeconds: 5, MessageAttributeNames: tc.names})
		if err != nil || len(out.Messages) != 1 {
			t.Fatalf("receive with %v: %v, %v", tc.names, out, err)
		}
		var got []string
		for n := range out.Messages[0].MessageAttributes {
			got = append(got, n)
		}
		sort.Strings(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("MessageAttributeNames %v selected %v, want %v", tc.names, got, tc.want)
		}
	}
}

// TestSQSPurgeClearsFIFODeduplication: as on AWS, after a PurgeQueue a FIFO
// queue accepts a message whose deduplication ID was used before the
// purge. Both engines.
func TestSQSPurgeClearsFIFODeduplication(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		q := newQueue(t, c, ".fifo", map[string]string{"FifoQueue": "true"})
		send := func(body string) string {
			t.Helper()
			out, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String(body),
				MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d")})
			if err != nil {
				t.Fatal(err)
			}
			return aws.ToString(out.MessageId)
		}
		before := send("before")
		time.Sleep(5 * time.Millisecond) // the purge takes messages sent before its own time
		if _, err := c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(q)}); err != nil {
			t.Fatal(err)
		}
		after := send("after")
		if after == before {
			t.Fatal("a send after PurgeQueue was deduplicated against a purged message")
		}
		if again := send("again"); again != after {
			t.Fatalf("a duplicate after the purge got MessageId %s, want the original %s", again, after)
		}
		if _, got := receiveOnce(t, c, q, 10, 30); !slices.Equal(got, []string{"after"}) {
			t.Fatalf("received %v, want [after]", got)
		}
	})
}

// TestSQSReceiptHandlesAsAWS: on a standard queue a visibility change
// through a handle whose timeout ended, or of an earlier receive, is
// accepted and hides the message again; a FIFO delete through an expired
// handle is refused, "The receipt handle has expired.", and the message
// stays. Both engines.
func TestSQSReceiptHandlesAsAWS(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		hide := func(q string, h *string, secs int32) error {
			_, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(q), ReceiptHandle: h, VisibilityTimeout: secs})
			return err
		}

		std := newQueue(t, c, "", nil)
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(std), MessageBody: aws.String("m")}); err != nil {
			t.Fatal(err)
		}
		first, _ := receiveOnce(t, c, std, 1, 1)
		time.Sleep(1500 * time.Millisecond)
		if err := hide(std, first[0].ReceiptHandle, 30); err != nil {
			t.Fatalf("ChangeMessageVisibility after the timeout ended: %v", err)
		}
		if _, got := receiveOnce(t, c, std, 1, 30); len(got) != 0 {
			t.Fatalf("received %v while hidden again", got)
		}
		if err := hide(std, first[0].ReceiptHandle, 0); err != nil {
			t.Fatal(err)
		}
		second, _ := receiveOnce(t, c, std, 1, 30)
		if len(second) != 1 {
			t.Fatal("the message did not come back after visibility 0")
		}
		// first's handle is now of an earlier receive: it still changes
		// the current receive's visibility.
		if err := hide(std, first[0].ReceiptHandle, 0); err != nil {
			t.Fatalf("ChangeMessageVisibility through an earlier receive's handle: %v", err)
		}
		if _, got := receiveOnce(t, c, std, 1, 30); len(got) != 1 {
			t.Fatal("an earlier receive's handle did not release the current receive")
		}

		fifo := newQueue(t, c, ".fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifo), MessageBody: aws.String("f"), MessageGroupId: aws.String("g")}); err != nil {
			t.Fatal(err)
		}
		got, _ := receiveOnce(t, c, fifo, 1, 1)
		time.Sleep(1500 * time.Millisecond)
		_, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(fifo), ReceiptHandle: got[0].ReceiptHandle})
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != "InvalidParameterValue" || !strings.HasSuffix(api.ErrorMessage(), "Reason: The receipt handle has expired.") {
			t.Fatalf("FIFO DeleteMessage through an expired handle: %v, want InvalidParameterValue, the receipt handle has expired", err)
		}
		if _, bodies := receiveOnce(t, c, fifo, 1, 30); !slices.Equal(bodies, []string{"f"}) {
			t.Fatalf("after the refused delete: %v, want the message again", bodies)
		}
	})
}

// TestSQSValidationAsAWS: an empty MessageGroupId (standard or FIFO queue)
// and an empty MessageDeduplicationId are invalid, not missing; message
// attribute names in other scripts than Latin are accepted and come back
// intact (the SDK checks their MD5). Over JSON (the Go SDK) and Query.
func TestSQSValidationAsAWS(t *testing.T) {
	s := startServer(t, "")
	c := sqsClient(s)
	ctx := ctxFor(t, time.Minute)
	std := newQueue(t, c, "", nil)
	fifo := newQueue(t, c, ".fifo", map[string]string{"FifoQueue": "true"})
	for _, tc := range []struct {
		name, queue  string
		group, dedup *string
		text         string
	}{
		{"empty group on a standard queue", std, aws.String(""), nil, "for parameter MessageGroupId is invalid."},
		{"empty group on a FIFO queue", fifo, aws.String(""), aws.String("d"), "for parameter MessageGroupId is invalid."},
		{"empty deduplication id", fifo, aws.String("g"), aws.String(""), "for parameter MessageDeduplicationId is invalid."},
	} {
		_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(tc.queue), MessageBody: aws.String("m"),
			MessageGroupId: tc.group, MessageDeduplicationId: tc.dedup})
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != "InvalidParameterValue" || !strings.Contains(api.ErrorMessage(), tc.text) {
			t.Errorf("%s: %v, want InvalidParameterValue %q", tc.name, err, tc.text)
		}
		form := url.Values{"Action": {"SendMessage"}, "QueueUrl": {tc.queue}, "MessageBody": {"m"}}
		if tc.group != nil {
			form.Set("MessageGroupId", *tc.group)
		}
		if tc.dedup != nil {
			form.Set("MessageDeduplicationId", *tc.dedup)
		}
		if status, xml := queryCall(t, s.URL+"/", form); status != 400 || !strings.Contains(xml, "<Code>InvalidParameterValue</Code>") {
			t.Errorf("%s over Query: %d %s", tc.name, status, xml)
		}
	}

	names := []string{"größe", "名前", "имя.2"}
	attrs := map[string]types.MessageAttributeValue{}
	for _, n := range names {
		attrs[n] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String("v-" + n)}
	}
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(std), MessageBody: aws.String("intl"), MessageAttributes: attrs}); err != nil {
		t.Fatalf("SendMessage with attribute names %v: %v", names, err)
	}
	status, xml := queryCall(t, s.URL+"/", url.Values{"Action": {"SendMessage"}, "QueueUrl": {std}, "MessageBody": {"intl-query"},
		"MessageAttribute.1.Name": {"größe"}, "MessageAttribute.1.Value.DataType": {"String"}, "MessageAttribute.1.Value.StringValue": {"q"}})
	if status != 200 {
		t.Fatalf("Query SendMessage with a non-ASCII attribute name: %d %s", status, xml)
	}
	got := receiveN(t, c, std, 2, 10*time.Second, 30)
	if len(got) != 2 {
		t.Fatalf("received %d of 2 messages", len(got))
	}
	for _, m := range got {
		if aws.ToString(m.Body) != "intl" {
			continue
		}
		for _, n := range names {
			if v := m.MessageAttributes[n]; aws.ToString(v.StringValue) != "v-"+n {
				t.Errorf("attribute %q came back as %+v", n, v)
			}
		}
	}
}

// TestSQSTraceHeaderBecomesAWSTraceHeader: the X-Amzn-Trace-Id header of a
// SendMessage becomes the message's AWSTraceHeader system attribute, as on
// AWS. Both engines.
func TestSQSTraceHeaderBecomesAWSTraceHeader(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		q := newQueue(t, c, "", nil)
		const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(`{"QueueUrl":"`+q+`","MessageBody":"traced"}`))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
		req.Header.Set("X-Amzn-Trace-Id", trace)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("SendMessage: %d", resp.StatusCode)
		}
		got := receiveN(t, c, q, 1, 10*time.Second, 30)
		if len(got) != 1 || got[0].Attributes["AWSTraceHeader"] != trace {
			t.Fatalf("received %+v, want AWSTraceHeader %s", got, trace)
		}
	})
}

// TestSQSEmptyResultsAsAWS: over JSON an empty list or receive is "{}",
// members with nothing to say left out, as AWS answers; over Query the
// result element is there and empty.
func TestSQSEmptyResultsAsAWS(t *testing.T) {
	s := startServer(t, "")
	q := newQueue(t, sqsClient(s), "", nil)
	for _, tc := range []struct{ action, body string }{
		{"AmazonSQS.ListQueues", `{"QueueNamePrefix":"no-such-prefix-` + uniqueWord(t) + `"}`},
		{"AmazonSQS.ReceiveMessage", `{"QueueUrl":"` + q + `"}`},
		{"AmazonSQS.ListQueueTags", `{"QueueUrl":"` + q + `"}`},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", tc.action)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(raw) != "{}" {
			t.Errorf("%s with nothing to return: %d %s, want {}", tc.action, resp.StatusCode, raw)
		}
	}
	status, xml := queryCall(t, s.URL+"/", url.Values{"Action": {"ReceiveMessage"}, "QueueUrl": {q}})
	if status != 200 || !strings.Contains(xml, "<ReceiveMessageResult></ReceiveMessageResult>") {
		t.Errorf("Query ReceiveMessage of an empty queue: %d %s", status, xml)
	}
}
