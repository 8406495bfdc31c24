package sqs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sqs"
)

// other is a caller of a second account.
var other = sqs.Caller{Account: "111111111111", SenderID: "AKIDOTHER", Scheme: "http", Host: "localhost:4566"}

// queueAction is one SQS action on a queue, run as caller c; handle is a
// receipt handle of a message of the queue, for the actions that need one.
type queueAction struct {
	name  string
	cross bool // a policy can grant it to another account
	run   func(e *env, c sqs.Caller, url, handle string) error
}

// queueActions lists every SQS action that names a queue.
func queueActions() []queueAction {
	ctx := context.Background()
	return []queueAction{
		{"SendMessage", true, func(e *env, c sqs.Caller, url, _ string) error {
			_, err := e.svc.SendMessage(ctx, c, sqs.SendMessageInput{QueueURL: url, MessageBody: "x"})
			return err
		}},
		{"SendMessageBatch", true, func(e *env, c sqs.Caller, url, _ string) error {
			_, err := e.svc.SendMessageBatch(ctx, c, sqs.SendMessageBatchInput{QueueURL: url, Entries: []sqs.SendMessageBatchEntry{{ID: "a", MessageBody: "x"}, {ID: "b", MessageBody: "y"}}})
			return err
		}},
		{"ReceiveMessage", true, func(e *env, c sqs.Caller, url, _ string) error {
			_, err := e.svc.ReceiveMessage(ctx, c, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(0)})
			return err
		}},
		{"DeleteMessage", true, func(e *env, c sqs.Caller, url, h string) error {
			return e.svc.DeleteMessage(ctx, c, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: h})
		}},
		{"DeleteMessageBatch", true, func(e *env, c sqs.Caller, url, h string) error {
			_, err := e.svc.DeleteMessageBatch(ctx, c, sqs.DeleteMessageBatchInput{QueueURL: url, Entries: []sqs.BatchHandleEntry{{ID: "a", ReceiptHandle: h}}})
			return err
		}},
		{"ChangeMessageVisibility", true, func(e *env, c sqs.Caller, url, h string) error {
			return e.svc.ChangeMessageVisibility(ctx, c, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: h, VisibilityTimeout: ptr(5)})
		}},
		{"ChangeMessageVisibilityBatch", true, func(e *env, c sqs.Caller, url, h string) error {
			_, err := e.svc.ChangeMessageVisibilityBatch(ctx, c, sqs.ChangeMessageVisibilityBatchInput{QueueURL: url, Entries: []sqs.BatchHandleEntry{{ID: "a", ReceiptHandle: h, VisibilityTimeout: ptr(5)}}})
			return err
		}},
		{"GetQueueAttributes", true, func(e *env, c sqs.Caller, url, _ string) error {
			_, err := e.svc.GetQueueAttributes(ctx, c, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: []string{"All"}})
			return err
		}},
		{"GetQueueUrl", true, func(e *env, c sqs.Caller, url, _ string) error {
			_, account, name, _ := sqs.ParseQueueURL(url)
			_, err := e.svc.GetQueueURL(ctx, c, sqs.GetQueueURLInput{QueueName: name, QueueOwnerAWSAccountID: account})
			return err
		}},
		{"ListDeadLetterSourceQueues", true, func(e *env, c sqs.Caller, url, _ string) error {
			_, err := e.svc.ListDeadLetterSourceQueues(ctx, c, sqs.ListDeadLetterSourceQueuesInput{QueueURL: url})
			return err
		}},
		{"ListQueueTags", true, func(e *env, c sqs.Caller, url, _ string) error {
			_, err := e.svc.ListQueueTags(ctx, c, url)
			return err
		}},
		{"PurgeQueue", true, func(e *env, c sqs.Caller, url, _ string) error {
			return e.svc.PurgeQueue(ctx, c, url)
		}},
		{"SetQueueAttributes", false, func(e *env, c sqs.Caller, url, _ string) error {
			return e.svc.SetQueueAttributes(ctx, c, sqs.SetQueueAttributesInput{QueueURL: url, Attributes: map[string]string{"DelaySeconds": "1"}})
		}},
		{"TagQueue", false, func(e *env, c sqs.Caller, url, _ string) error {
			return e.svc.TagQueue(ctx, c, sqs.TagQueueInput{QueueURL: url, Tags: map[string]string{"k": "v"}})
		}},
		{"UntagQueue", false, func(e *env, c sqs.Caller, url, _ string) error {
			return e.svc.UntagQueue(ctx, c, sqs.UntagQueueInput{QueueURL: url, TagKeys: []string{"k"}})
		}},
		{"AddPermission", false, func(e *env, c sqs.Caller, url, _ string) error {
			return e.svc.AddPermission(ctx, c, sqs.AddPermissionInput{QueueURL: url, Label: "l", AWSAccountIDs: []string{"222222222222"}, Actions: []string{"SendMessage"}})
		}},
		{"RemovePermission", false, func(e *env, c sqs.Caller, url, _ string) error {
			return e.svc.RemovePermission(ctx, c, sqs.RemovePermissionInput{QueueURL: url, Label: "l"})
		}},
		{"StartMessageMoveTask", false, func(e *env, c sqs.Caller, url, _ string) error {
			_, account, name, _ := sqs.ParseQueueURL(url)
			_, err := e.svc.StartMessageMoveTask(ctx, c, sqs.StartMessageMoveTaskInput{SourceARN: sqs.QueueARN("us-east-1", account, name)})
			return err
		}},
		{"ListMessageMoveTasks", false, func(e *env, c sqs.Caller, url, _ string) error {
			_, account, name, _ := sqs.ParseQueueURL(url)
			_, err := e.svc.ListMessageMoveTasks(ctx, c, sqs.ListMessageMoveTasksInput{SourceARN: sqs.QueueARN("us-east-1", account, name)})
			return err
		}},
		{"DeleteQueue", false, func(e *env, c sqs.Caller, url, _ string) error {
			return e.svc.DeleteQueue(ctx, c, url)
		}},
	}
}

// handleOf sends a message to url and receives it, returning its handle.
func (e *env) handleOf(t *testing.T, url string) string {
	t.Helper()
	e.send(t, url, "m")
	msgs := e.receive(t, url, 1, ptr(30))
	if len(msgs) != 1 {
		t.Fatalf("received %d messages", len(msgs))
	}
	return msgs[0].ReceiptHandle
}

// Another account's caller reaches a queue only through its policy: with
// no policy every action is AccessDenied, whether the queue exists or
// not; with a policy allowing sqs:* to that account, exactly the actions
// AWS lets a policy grant across accounts are allowed.
func TestCrossAccountAccess(t *testing.T) {
	allowAll := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111111111111:root"},"Action":"sqs:*","Resource":"*"}]}`
	for _, a := range queueActions() {
		t.Run(a.name, func(t *testing.T) {
			e := newEnv(t)
			url := e.createQueue(t, "q", nil)
			h := e.handleOf(t, url)
			wantCode(t, a.run(e, other, url, h), sqs.CodeAccessDenied)
			wantCode(t, a.run(e, other, "/"+account+"/absent", h), sqs.CodeAccessDenied)

			polURL := e.createQueue(t, "shared", map[string]string{"Policy": allowAll})
			h = e.handleOf(t, polURL)
			err := a.run(e, other, polURL, h)
			if a.cross {
				if sqs.AsError(err) != nil && sqs.AsError(err).Code == sqs.CodeAccessDenied {
					t.Fatalf("allowed by the policy, got %v", err)
				}
			} else {
				wantCode(t, err, sqs.CodeAccessDenied)
			}
			// The owner keeps every action.
			h = e.handleOf(t, url)
			if err := a.run(e, caller, url, h); sqs.AsError(err) != nil && sqs.AsError(err).Code == sqs.CodeAccessDenied {
				t.Fatalf("owner refused: %v", err)
			}
		})
	}
}

// A policy grants what it names, to whom it names, and an explicit Deny
// wins, also over the owner, except for the owner-only actions.
func TestQueuePolicyEvaluation(t *testing.T) {
	e := newEnv(t)
	sendOnly := `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"111111111111"},"Action":"sqs:SendMessage","Resource":"arn:aws:sqs:*:000000000000:inbox"}]}`
	url := e.createQueue(t, "inbox", map[string]string{"Policy": sendOnly})
	_, err := e.svc.SendMessage(e.ctx, other, sqs.SendMessageInput{QueueURL: url, MessageBody: "hello"})
	wantCode(t, err, "")
	third := sqs.Caller{Account: "222222222222"}
	_, err = e.svc.SendMessage(e.ctx, third, sqs.SendMessageInput{QueueURL: url, MessageBody: "hello"})
	wantCode(t, err, sqs.CodeAccessDenied)
	_, err = e.svc.ReceiveMessage(e.ctx, other, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(0)})
	wantCode(t, err, sqs.CodeAccessDenied)

	// A resource that does not match grants nothing.
	elsewhere := e.createQueue(t, "elsewhere", map[string]string{"Policy": sendOnly})
	_, err = e.svc.SendMessage(e.ctx, other, sqs.SendMessageInput{QueueURL: elsewhere, MessageBody: "x"})
	wantCode(t, err, sqs.CodeAccessDenied)

	denyPurge := `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:*"},{"Effect":"Deny","Principal":"*","Action":["sqs:PurgeQueue","sqs:SetQueueAttributes"]}]}`
	locked := e.createQueue(t, "locked", map[string]string{"Policy": denyPurge})
	wantCode(t, e.svc.PurgeQueue(e.ctx, other, locked), sqs.CodeAccessDenied)
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, locked), sqs.CodeAccessDenied)
	// The owner can always repair the policy.
	wantCode(t, e.svc.SetQueueAttributes(e.ctx, caller, sqs.SetQueueAttributesInput{QueueURL: locked, Attributes: map[string]string{"Policy": ""}}), "")
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, locked), "")
}

// AddPermission writes a statement that is then enforced; RemovePermission
// takes it back.
func TestAddPermissionIsEnforced(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "perm", nil)
	send := func() error {
		_, err := e.svc.SendMessage(e.ctx, other, sqs.SendMessageInput{QueueURL: url, MessageBody: "x"})
		return err
	}
	wantCode(t, send(), sqs.CodeAccessDenied)
	wantCode(t, e.svc.AddPermission(e.ctx, caller, sqs.AddPermissionInput{QueueURL: url, Label: "p1", AWSAccountIDs: []string{other.Account}, Actions: []string{"SendMessage"}}), "")
	// Written as AWS writes it: version 2008-10-17, members in AWS's order,
	// a single principal and action as strings.
	attrs, err := e.svc.GetQueueAttributes(e.ctx, caller, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: []string{"Policy"}})
	wantCode(t, err, "")
	arn := "arn:aws:sqs:us-east-1:" + account + ":perm"
	want := `{"Version":"2008-10-17","Id":"` + arn + `/SQSDefaultPolicy","Statement":[{"Sid":"p1","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` +
		other.Account + `:root"},"Action":"SQS:SendMessage","Resource":"` + arn + `"}]}`
	if attrs["Policy"] != want {
		t.Errorf("Policy after AddPermission:\n got %s\nwant %s", attrs["Policy"], want)
	}
	wantCode(t, e.svc.AddPermission(e.ctx, caller, sqs.AddPermissionInput{QueueURL: url, Label: "p2", AWSAccountIDs: []string{other.Account, "333333333333"},
		Actions: []string{"ReceiveMessage", "DeleteMessage"}}), "")
	attrs, err = e.svc.GetQueueAttributes(e.ctx, caller, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: []string{"Policy"}})
	wantCode(t, err, "")
	if !strings.Contains(attrs["Policy"], `"Principal":{"AWS":["arn:aws:iam::`+other.Account+`:root","arn:aws:iam::333333333333:root"]},"Action":["SQS:ReceiveMessage","SQS:DeleteMessage"]`) {
		t.Errorf("several principals and actions are not arrays: %s", attrs["Policy"])
	}
	wantCode(t, send(), "")
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sqs.RemovePermissionInput{QueueURL: url, Label: "p2"}), "")
	_, err = e.svc.ReceiveMessage(e.ctx, other, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(0)})
	wantCode(t, err, sqs.CodeAccessDenied)
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sqs.RemovePermissionInput{QueueURL: url, Label: "p1"}), "")
	wantCode(t, send(), sqs.CodeAccessDenied)
}

// Internal accounts are reached only by InternalCaller, which reaches
// nothing else; no client account may be internal.
func TestInternalAccounts(t *testing.T) {
	e := newEnv(t)
	internal := sqs.InternalCaller("herald-sns")
	url, err := e.svc.CreateQueue(e.ctx, internal, sqs.CreateQueueInput{QueueName: "sns-publish"})
	wantCode(t, err, "")
	// Every client account, even one whose name is the internal one, and
	// even with a policy that allows everyone, is refused.
	for _, c := range []sqs.Caller{caller, other, {Account: "herald-sns"}, {Account: ""}} {
		for _, a := range queueActions() {
			if err := a.run(e, c, url, "AQ"); sqs.AsError(err) == nil || sqs.AsError(err).Code != sqs.CodeAccessDenied {
				t.Errorf("%s by %q on the internal queue: %v, want AccessDenied", a.name, c.Account, err)
			}
		}
	}
	_, err = e.svc.CreateQueue(e.ctx, sqs.Caller{Account: "herald-sns"}, sqs.CreateQueueInput{QueueName: "x"})
	wantCode(t, err, sqs.CodeAccessDenied)
	_, err = e.svc.ListQueues(e.ctx, sqs.Caller{Account: "herald-sns"}, sqs.ListQueuesInput{})
	wantCode(t, err, sqs.CodeAccessDenied)
	// The internal caller cannot reach a client's queue either.
	mine := e.createQueue(t, "mine", nil)
	_, err = e.svc.SendMessage(e.ctx, internal, sqs.SendMessageInput{QueueURL: mine, MessageBody: "x"})
	wantCode(t, err, sqs.CodeAccessDenied)
	if sqs.ValidClientAccount("herald-sns") || !sqs.ValidClientAccount("123456789012") {
		t.Fatal("ValidClientAccount")
	}
}

// A service principal (SNS delivering a topic's message) reaches another
// account's queue only when the policy allows that topic.
func TestServicePrincipal(t *testing.T) {
	e := newEnv(t)
	topic := "arn:aws:sns:us-east-1:111111111111:news"
	sns := sqs.Caller{Account: "111111111111", Service: "sns.amazonaws.com", SourceARN: topic}
	fromTopic := `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`
	open := e.createQueue(t, "fromtopic", map[string]string{"Policy": fromTopic})
	closed := e.createQueue(t, "closed", nil)
	_, err := e.svc.SendMessage(e.ctx, sns, sqs.SendMessageInput{QueueURL: open, MessageBody: "x"})
	wantCode(t, err, "")
	_, err = e.svc.SendMessage(e.ctx, sns, sqs.SendMessageInput{QueueURL: closed, MessageBody: "x"})
	wantCode(t, err, sqs.CodeAccessDenied)
	sns.SourceARN = "arn:aws:sns:us-east-1:111111111111:other"
	_, err = e.svc.SendMessage(e.ctx, sns, sqs.SendMessageInput{QueueURL: open, MessageBody: "x"})
	wantCode(t, err, sqs.CodeAccessDenied)
}

// A dead-letter queue must belong to its source's account.
func TestRedriveAcrossAccountsRefused(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.CreateQueue(e.ctx, other, sqs.CreateQueueInput{QueueName: "theirdlq"}); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "src", Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:111111111111:theirdlq","maxReceiveCount":1}`}})
	wantCode(t, err, sqs.CodeInvalidParameterValue)
}

// TestCheckAccess: an action is checked as it would be authorized, without
// being taken: a policy letting another account receive lets it receive,
// not read the queue's attributes.
func TestCheckAccess(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "shared", nil)
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + other.Account +
		`:root"},"Action":"sqs:ReceiveMessage","Resource":"*"}]}`
	wantCode(t, e.svc.SetQueueAttributes(e.ctx, caller, sqs.SetQueueAttributesInput{QueueURL: url, Attributes: map[string]string{"Policy": policy}}), "")
	wantCode(t, e.svc.CheckAccess(e.ctx, other, sqs.ActReceiveMessage, url), "")
	wantCode(t, e.svc.CheckAccess(e.ctx, other, sqs.ActGetQueueAttributes, url), sqs.CodeAccessDenied)
	wantCode(t, e.svc.CheckAccess(e.ctx, caller, sqs.ActReceiveMessage, "/"+account+"/missing"), sqs.CodeQueueDoesNotExist)
	e.send(t, url, "m")
	if got := e.receive(t, url, 10, nil); len(got) != 1 {
		t.Fatalf("CheckAccess received messages: %d left of 1", len(got))
	}
}
