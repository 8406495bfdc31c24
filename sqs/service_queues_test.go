package sqs_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

func TestCreateQueueIsIdempotent(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "orders", map[string]string{"VisibilityTimeout": "60"})
	if want := "http://localhost:4566/000000000000/orders"; url != want {
		t.Fatalf("url %q, want %q", url, want)
	}
	tests := []struct {
		name  string
		attrs map[string]string
		code  string
	}{
		{"same attributes", map[string]string{"VisibilityTimeout": "60"}, ""},
		{"no attributes", nil, ""},
		{"different value", map[string]string{"VisibilityTimeout": "30"}, sqs.CodeQueueNameExists},
		{"default vs set", map[string]string{"DelaySeconds": "5"}, sqs.CodeQueueNameExists},
		{"invalid value", map[string]string{"DelaySeconds": "901"}, sqs.CodeInvalidAttributeValue},
		{"unknown attribute", map[string]string{"Nope": "1"}, sqs.CodeInvalidAttributeName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "orders", Attributes: tt.attrs})
			wantCode(t, err, tt.code)
			if tt.code == "" && got != url {
				t.Fatalf("url %q, want %q", got, url)
			}
		})
	}
}

func TestCreateQueueValidates(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name string
		in   sqs.CreateQueueInput
		code string
	}{
		{"missing name", sqs.CreateQueueInput{}, sqs.CodeMissingParameter},
		{"bad name", sqs.CreateQueueInput{QueueName: "a b"}, sqs.CodeInvalidParameterValue},
		{"fifo name without attribute", sqs.CreateQueueInput{QueueName: "q.fifo"}, sqs.CodeInvalidParameterValue},
		{"fifo", sqs.CreateQueueInput{QueueName: "q.fifo", Attributes: map[string]string{"FifoQueue": "true"}}, ""},
		{"fifo attribute on standard name", sqs.CreateQueueInput{QueueName: "q", Attributes: map[string]string{"FifoQueue": "true"}}, sqs.CodeInvalidParameterValue},
		{"missing dead-letter target", sqs.CreateQueueInput{QueueName: "src", Attributes: map[string]string{
			"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:nowhere","maxReceiveCount":3}`}}, sqs.CodeInvalidParameterValue},
		{"aws: tag", sqs.CreateQueueInput{QueueName: "tagged", Tags: map[string]string{"aws:x": "1"}}, sqs.CodeInvalidParameterValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.CreateQueue(e.ctx, caller, tt.in)
			wantCode(t, err, tt.code)
		})
	}
}

func TestGetQueueURLAndDeleteQueue(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "jobs", nil)
	got, err := e.svc.GetQueueURL(e.ctx, caller, sqs.GetQueueURLInput{QueueName: "jobs"})
	wantCode(t, err, "")
	if got != url {
		t.Fatalf("GetQueueUrl %q, want %q", got, url)
	}
	// Another account's queue: refused whether it exists or not.
	_, err = e.svc.GetQueueURL(e.ctx, caller, sqs.GetQueueURLInput{QueueName: "jobs", QueueOwnerAWSAccountID: "111111111111"})
	wantCode(t, err, sqs.CodeAccessDenied)

	e.send(t, url, "before delete")
	wantCode(t, e.svc.DeleteQueue(e.ctx, caller, url), "")
	_, err = e.svc.GetQueueURL(e.ctx, caller, sqs.GetQueueURLInput{QueueName: "jobs"})
	wantCode(t, err, sqs.CodeQueueDoesNotExist)
	wantCode(t, e.svc.DeleteQueue(e.ctx, caller, url), sqs.CodeQueueDoesNotExist)
	_, err = e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "x"})
	wantCode(t, err, sqs.CodeQueueDoesNotExist)

	// A queue created again under the name starts empty.
	e.createQueue(t, "jobs", nil)
	if msgs := e.receive(t, url, 10, nil); len(msgs) != 0 {
		t.Fatalf("recreated queue holds %v", bodies(msgs))
	}
	_, err = e.svc.GetQueueAttributes(e.ctx, caller, sqs.GetQueueAttributesInput{QueueURL: "not a url"})
	wantCode(t, err, sqs.CodeInvalidAddress)
}

// TestBareQueueNameAsQueueURL: as on AWS, a queue's bare name works in
// place of its URL, for the caller's own account only.
func TestBareQueueNameAsQueueURL(t *testing.T) {
	e := newEnv(t)
	e.createQueue(t, "jobs", nil)
	if _, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: "jobs", MessageBody: "by name"}); err != nil {
		t.Fatalf("SendMessage to QueueUrl \"jobs\": %v", err)
	}
	url := "http://localhost:4566/000000000000/jobs"
	if got := bodies(e.receive(t, url, 10, nil)); len(got) != 1 || got[0] != "by name" {
		t.Fatalf("the queue holds %v, want the message sent by name", got)
	}
	_, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: "no-such-queue", MessageBody: "x"})
	wantCode(t, err, sqs.CodeQueueDoesNotExist)
	other := caller
	other.Account = "111111111111"
	_, err = e.svc.SendMessage(e.ctx, other, sqs.SendMessageInput{QueueURL: "jobs", MessageBody: "x"})
	wantCode(t, err, sqs.CodeQueueDoesNotExist) // its own (missing) queue, never another account's
	_, err = e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: "jobs!", MessageBody: "x"})
	wantCode(t, err, sqs.CodeInvalidAddress)
}

func TestListQueues(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a1", "a2", "a3", "b1"} {
		e.createQueue(t, n, nil)
	}
	url := func(n string) string { return "http://localhost:4566/000000000000/" + n }

	all, err := e.svc.ListQueues(e.ctx, caller, sqs.ListQueuesInput{})
	wantCode(t, err, "")
	if want := []string{url("a1"), url("a2"), url("a3"), url("b1")}; !slices.Equal(all.QueueURLs, want) || all.NextToken != "" {
		t.Fatalf("all: %v %q", all.QueueURLs, all.NextToken)
	}

	var paged []string
	in := sqs.ListQueuesInput{QueueNamePrefix: "a", MaxResults: ptr(2)}
	for i := 0; ; i++ {
		out, err := e.svc.ListQueues(e.ctx, caller, in)
		wantCode(t, err, "")
		paged = append(paged, out.QueueURLs...)
		if out.NextToken == "" {
			break
		}
		if i > 3 {
			t.Fatal("paging does not end")
		}
		in.NextToken = out.NextToken
	}
	if want := []string{url("a1"), url("a2"), url("a3")}; !slices.Equal(paged, want) {
		t.Fatalf("paged: %v", paged)
	}

	_, err = e.svc.ListQueues(e.ctx, caller, sqs.ListQueuesInput{MaxResults: ptr(1001)})
	wantCode(t, err, sqs.CodeInvalidParameterValue)
	_, err = e.svc.ListQueues(e.ctx, caller, sqs.ListQueuesInput{MaxResults: ptr(0)})
	wantCode(t, err, sqs.CodeInvalidParameterValue)
	_, err = e.svc.ListQueues(e.ctx, caller, sqs.ListQueuesInput{NextToken: "!!"})
	wantCode(t, err, sqs.CodeInvalidParameterValue)

	other := caller
	other.Account = "111111111111"
	none, err := e.svc.ListQueues(e.ctx, other, sqs.ListQueuesInput{})
	wantCode(t, err, "")
	if len(none.QueueURLs) != 0 {
		t.Fatalf("other account sees %v", none.QueueURLs)
	}
}

func TestQueueAttributesRoundTrip(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "attrs", nil)
	wantCode(t, e.svc.SetQueueAttributes(e.ctx, caller, sqs.SetQueueAttributesInput{QueueURL: url, Attributes: map[string]string{
		"VisibilityTimeout": "45", "DelaySeconds": "2", "MaximumMessageSize": "2048", "Policy": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"111111111111"},"Action":"sqs:SendMessage","Resource":"*"}]}`,
	}}), "")
	got := e.attributes(t, url, "All")
	want := map[string]string{
		"VisibilityTimeout": "45", "DelaySeconds": "2", "MaximumMessageSize": "2048",
		"Policy": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"111111111111"},"Action":"sqs:SendMessage","Resource":"*"}]}`, "QueueArn": "arn:aws:sqs:us-east-1:000000000000:attrs",
		"ApproximateNumberOfMessages": "0", "MessageRetentionPeriod": "345600",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["FifoQueue"]; ok {
		t.Error("standard queue reports FifoQueue")
	}

	tests := []struct {
		name  string
		attrs map[string]string
		code  string
	}{
		{"unknown", map[string]string{"Color": "red"}, sqs.CodeInvalidAttributeName},
		{"read-only", map[string]string{"QueueArn": "x"}, sqs.CodeInvalidAttributeName},
		{"out of range", map[string]string{"VisibilityTimeout": "43201"}, sqs.CodeInvalidAttributeValue},
		{"fifo only", map[string]string{"ContentBasedDeduplication": "true"}, sqs.CodeInvalidAttributeName},
		{"missing dead-letter target", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:none","maxReceiveCount":1}`}, sqs.CodeInvalidParameterValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.svc.SetQueueAttributes(e.ctx, caller, sqs.SetQueueAttributesInput{QueueURL: url, Attributes: tt.attrs})
			wantCode(t, err, tt.code)
		})
	}
	if got := e.attributes(t, url, "VisibilityTimeout")["VisibilityTimeout"]; got != "45" {
		t.Fatalf("a failed SetQueueAttributes changed VisibilityTimeout to %s", got)
	}
	_, err := e.svc.GetQueueAttributes(e.ctx, caller, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: []string{"Bogus"}})
	wantCode(t, err, sqs.CodeInvalidAttributeName)
}

func TestApproximateCounts(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "counts", nil)
	e.send(t, url, "one")
	e.send(t, url, "two")
	_, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "later", DelaySeconds: ptr(60)})
	wantCode(t, err, "")
	e.receive(t, url, 1, nil)
	got := e.attributes(t, url, "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed")
	want := map[string]string{"ApproximateNumberOfMessages": "1", "ApproximateNumberOfMessagesNotVisible": "1", "ApproximateNumberOfMessagesDelayed": "1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
}

func TestPurgeQueue(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "purge", nil)
	for i := 0; i < 5; i++ {
		e.send(t, url, "old")
	}
	e.advance(time.Millisecond)
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, url), "")
	if msgs := e.receive(t, url, 10, nil); len(msgs) != 0 {
		t.Fatalf("purged queue still delivers %v", bodies(msgs))
	}
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, url), sqs.CodePurgeQueueInProgress)
	e.advance(time.Millisecond)
	e.send(t, url, "new")
	if msgs := e.receive(t, url, 10, nil); !slices.Equal(bodies(msgs), []string{"new"}) {
		t.Fatalf("after purge got %v, want [new]", bodies(msgs))
	}
	e.advance(61 * time.Second)
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, url), "")
}

func TestTags(t *testing.T) {
	e := newEnv(t)
	url, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "tagged", Tags: map[string]string{"team": "a", "env": "dev"}})
	wantCode(t, err, "")
	wantCode(t, e.svc.TagQueue(e.ctx, caller, sqs.TagQueueInput{QueueURL: url, Tags: map[string]string{"env": "prod", "cost": "42"}}), "")
	wantCode(t, e.svc.UntagQueue(e.ctx, caller, sqs.UntagQueueInput{QueueURL: url, TagKeys: []string{"team", "absent"}}), "")
	tags, err := e.svc.ListQueueTags(e.ctx, caller, url)
	wantCode(t, err, "")
	if len(tags) != 2 || tags["env"] != "prod" || tags["cost"] != "42" {
		t.Fatalf("tags %v", tags)
	}
	wantCode(t, e.svc.TagQueue(e.ctx, caller, sqs.TagQueueInput{QueueURL: url}), sqs.CodeMissingParameter)
	wantCode(t, e.svc.TagQueue(e.ctx, caller, sqs.TagQueueInput{QueueURL: url, Tags: map[string]string{strings.Repeat("k", 129): "v"}}), sqs.CodeInvalidParameterValue)
	many := map[string]string{}
	for i := 0; i < 49; i++ {
		many[strings.Repeat("x", i+1)] = "v"
	}
	wantCode(t, e.svc.TagQueue(e.ctx, caller, sqs.TagQueueInput{QueueURL: url, Tags: many}), sqs.CodeInvalidParameterValue)
}

func TestPermissions(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "shared", nil)
	add := func(label string) error {
		return e.svc.AddPermission(e.ctx, caller, sqs.AddPermissionInput{QueueURL: url, Label: label, AWSAccountIDs: []string{"111111111111"}, Actions: []string{"SendMessage"}})
	}
	wantCode(t, add("send"), "")
	wantCode(t, e.svc.AddPermission(e.ctx, caller, sqs.AddPermissionInput{QueueURL: url, Label: "both", AWSAccountIDs: []string{"111111111111", "222222222222"}, Actions: []string{"ReceiveMessage", "DeleteMessage"}}), "")
	wantCode(t, add("send"), sqs.CodeInvalidParameterValue)
	wantCode(t, e.svc.AddPermission(e.ctx, caller, sqs.AddPermissionInput{QueueURL: url, Label: "bad", AWSAccountIDs: []string{"111111111111"}, Actions: []string{"Explode"}}), sqs.CodeInvalidParameterValue)
	wantCode(t, e.svc.AddPermission(e.ctx, caller, sqs.AddPermissionInput{QueueURL: url, Label: "x"}), sqs.CodeMissingParameter)

	policy := e.attributes(t, url, "Policy")["Policy"]
	for _, want := range []string{`"Sid":"send"`, `"Sid":"both"`, `"SQS:SendMessage"`, `"arn:aws:iam::222222222222:root"`, `"Resource":"arn:aws:sqs:us-east-1:000000000000:shared"`} {
		if !strings.Contains(policy, want) {
			t.Errorf("policy %s lacks %s", policy, want)
		}
	}
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sqs.RemovePermissionInput{QueueURL: url, Label: "send"}), "")
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sqs.RemovePermissionInput{QueueURL: url, Label: "send"}), sqs.CodeInvalidParameterValue)
	policy = e.attributes(t, url, "Policy")["Policy"]
	if strings.Contains(policy, `"Sid":"send"`) || !strings.Contains(policy, `"Sid":"both"`) {
		t.Fatalf("policy after remove: %s", policy)
	}
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sqs.RemovePermissionInput{QueueURL: url, Label: "both"}), "")
	if p, ok := e.attributes(t, url, "Policy")["Policy"]; ok {
		t.Fatalf("empty policy still reported: %s", p)
	}
}
