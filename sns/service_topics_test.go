package sns_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sns"
)

func TestCreateTopic(t *testing.T) {
	e := newEnv(t)
	arn := e.createTopic(t, "orders", map[string]string{"DisplayName": "Orders"})
	if arn != "arn:aws:sns:us-east-1:"+account+":orders" {
		t.Fatalf("arn = %s", arn)
	}
	// Idempotent with the same attributes, or none.
	if again := e.createTopic(t, "orders", map[string]string{"DisplayName": "Orders"}); again != arn {
		t.Fatalf("second create = %s", again)
	}
	if again := e.createTopic(t, "orders", nil); again != arn {
		t.Fatalf("create without attributes = %s", again)
	}
	fifo := e.createTopic(t, "orders.fifo", map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"})
	if !strings.HasSuffix(fifo, ":orders.fifo") {
		t.Fatalf("fifo arn = %s", fifo)
	}
	tests := []struct {
		name  string
		topic string
		attrs map[string]string
		code  string
	}{
		{"different attributes", "orders", map[string]string{"DisplayName": "Other"}, sns.CodeInvalidParameter},
		{"empty name", "", nil, sns.CodeInvalidParameter},
		{"bad character", "a/b", nil, sns.CodeInvalidParameter},
		{"too long", strings.Repeat("a", 257), nil, sns.CodeInvalidParameter},
		{"fifo name without attribute", "x.fifo", nil, sns.CodeInvalidParameter},
		{"fifo attribute without suffix", "x", map[string]string{"FifoTopic": "true"}, sns.CodeInvalidParameter},
		{"content dedup on standard", "x", map[string]string{"ContentBasedDeduplication": "true"}, sns.CodeInvalidParameter},
		{"unknown attribute", "x", map[string]string{"Colour": "red"}, sns.CodeInvalidParameter},
		{"read-only attribute", "x", map[string]string{"TopicArn": "y"}, sns.CodeInvalidParameter},
		{"bad signature version", "x", map[string]string{"SignatureVersion": "3"}, sns.CodeInvalidParameter},
		{"bad tracing", "x", map[string]string{"TracingConfig": "On"}, sns.CodeInvalidParameter},
		{"bad policy", "x", map[string]string{"Policy": "{"}, sns.CodeInvalidParameter},
		{"bad delivery policy", "x", map[string]string{"DeliveryPolicy": `{"http":{"defaultHealthyRetryPolicy":{"numRetries":-1}}}`}, sns.CodeInvalidParameter},
		{"archive policy on standard", "x", map[string]string{"ArchivePolicy": `{"MessageRetentionPeriod":"30"}`}, sns.CodeInvalidParameter},
		{"long display name", "x", map[string]string{"DisplayName": strings.Repeat("d", 101)}, sns.CodeInvalidParameter},
		{"max length name", strings.Repeat("a", 256), nil, ""},
		{"signature version 2", "sig2", map[string]string{"SignatureVersion": "2", "TracingConfig": "Active"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.CreateTopic(e.ctx, caller, sns.CreateTopicInput{Name: tc.topic, Attributes: tc.attrs})
			wantCode(t, err, tc.code)
		})
	}
}

func TestTopicAttributes(t *testing.T) {
	e := newEnv(t)
	arn := e.createTopic(t, "news", nil)
	e.subscribe(t, arn, "sqs", e.createQueue(t, "q1", nil), nil)
	e.subscribe(t, arn, "http", "http://example.com/hook", nil) // pending
	attrs, err := e.svc.GetTopicAttributes(e.ctx, caller, arn)
	wantCode(t, err, "")
	want := map[string]string{"TopicArn": arn, "Owner": account, "SubscriptionsConfirmed": "1",
		"SubscriptionsPending": "1", "SubscriptionsDeleted": "0", "DisplayName": ""}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs[k], v)
		}
	}
	for _, k := range []string{"Policy", "EffectiveDeliveryPolicy"} {
		if !strings.HasPrefix(attrs[k], "{") {
			t.Errorf("%s = %q, want a JSON document", k, attrs[k])
		}
	}
	set := func(name, value, code string) {
		t.Helper()
		wantCode(t, e.svc.SetTopicAttributes(e.ctx, caller, sns.SetTopicAttributesInput{TopicARN: arn, AttributeName: name, AttributeValue: value}), code)
	}
	set("DisplayName", "News", "")
	set("DeliveryPolicy", `{"http":{"defaultHealthyRetryPolicy":{"numRetries":5,"minDelayTarget":1,"maxDelayTarget":1}}}`, "")
	set("FifoTopic", "true", sns.CodeInvalidParameter)
	set("SubscriptionsConfirmed", "3", sns.CodeInvalidParameter)
	set("Nope", "3", sns.CodeInvalidParameter)
	set("SignatureVersion", "0", sns.CodeInvalidParameter)
	attrs, _ = e.svc.GetTopicAttributes(e.ctx, caller, arn)
	if attrs["DisplayName"] != "News" || !strings.Contains(attrs["EffectiveDeliveryPolicy"], `"numRetries":5`) {
		t.Fatalf("after set: %v", attrs)
	}

	_, err = e.svc.GetTopicAttributes(e.ctx, caller, strings.Replace(arn, "news", "nothing", 1))
	wantCode(t, err, sns.CodeNotFound)
	_, err = e.svc.GetTopicAttributes(e.ctx, caller, "arn:aws:sqs:us-east-1:1:news")
	wantCode(t, err, sns.CodeInvalidParameter)
	other := caller
	other.Account = "111111111111"
	_, err = e.svc.GetTopicAttributes(e.ctx, other, arn)
	wantCode(t, err, sns.CodeAuthorizationError)
}

func TestDeleteTopic(t *testing.T) {
	e := newEnv(t)
	arn := e.createTopic(t, "gone", nil)
	e.subscribe(t, arn, "sqs", e.createQueue(t, "q", nil), nil)
	wantCode(t, e.svc.DeleteTopic(e.ctx, caller, arn), "")
	wantCode(t, e.svc.DeleteTopic(e.ctx, caller, arn), "") // idempotent, as AWS
	_, err := e.svc.GetTopicAttributes(e.ctx, caller, arn)
	wantCode(t, err, sns.CodeNotFound)
	// A new topic of the same name starts without the old subscriptions.
	e.createTopic(t, "gone", nil)
	out, err := e.svc.ListSubscriptionsByTopic(e.ctx, caller, arn, "")
	wantCode(t, err, "")
	if len(out.Subscriptions) != 0 {
		t.Fatalf("subscriptions survived: %v", out.Subscriptions)
	}
}

func TestListTopicsPages(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 230; i++ {
		e.createTopic(t, fmt.Sprintf("t%03d", i), nil)
	}
	var all []string
	token, pages := "", 0
	for {
		out, err := e.svc.ListTopics(e.ctx, caller, token)
		wantCode(t, err, "")
		if len(out.TopicARNs) > sns.MaxListPage {
			t.Fatalf("page of %d", len(out.TopicARNs))
		}
		all = append(all, out.TopicARNs...)
		pages++
		if token = out.NextToken; token == "" {
			break
		}
	}
	if len(all) != 230 || pages != 3 || !strings.HasSuffix(all[229], ":t229") {
		t.Fatalf("%d topics in %d pages", len(all), pages)
	}
	_, err := e.svc.ListTopics(e.ctx, caller, "!!!")
	wantCode(t, err, sns.CodeInvalidParameter)
	other := caller
	other.Account = "111111111111"
	out, _ := e.svc.ListTopics(e.ctx, other, "")
	if len(out.TopicARNs) != 0 {
		t.Fatalf("another account sees %d topics", len(out.TopicARNs))
	}
}

func TestTags(t *testing.T) {
	e := newEnv(t)
	arn := e.createTopic(t, "tagged", nil)
	wantCode(t, e.svc.TagResource(e.ctx, caller, sns.TagResourceInput{ResourceARN: arn, Tags: map[string]string{"a": "1", "b": "2"}}), "")
	wantCode(t, e.svc.UntagResource(e.ctx, caller, sns.UntagResourceInput{ResourceARN: arn, TagKeys: []string{"a"}}), "")
	tags, err := e.svc.ListTagsForResource(e.ctx, caller, arn)
	wantCode(t, err, "")
	if len(tags) != 1 || tags["b"] != "2" {
		t.Fatalf("tags = %v", tags)
	}
	many := map[string]string{}
	for i := 0; i < 50; i++ {
		many[fmt.Sprint("k", i)] = "v"
	}
	wantCode(t, e.svc.TagResource(e.ctx, caller, sns.TagResourceInput{ResourceARN: arn, Tags: many}), sns.CodeTagLimitExceeded)
	wantCode(t, e.svc.TagResource(e.ctx, caller, sns.TagResourceInput{ResourceARN: arn, Tags: map[string]string{"aws:x": "1"}}), sns.CodeInvalidParameter)
	_, err = e.svc.ListTagsForResource(e.ctx, caller, arn+"x")
	wantCode(t, err, sns.CodeResourceNotFound)
}

func TestPermissions(t *testing.T) {
	e := newEnv(t)
	arn := e.createTopic(t, "shared", nil)
	add := sns.AddPermissionInput{TopicARN: arn, Label: "friends", AWSAccountIDs: []string{"111111111111"}, ActionNames: []string{"Publish"}}
	wantCode(t, e.svc.AddPermission(e.ctx, caller, add), "")
	wantCode(t, e.svc.AddPermission(e.ctx, caller, add), sns.CodeInvalidParameter)
	attrs, _ := e.svc.GetTopicAttributes(e.ctx, caller, arn)
	if !strings.Contains(attrs["Policy"], `"Sid":"friends"`) || !strings.Contains(attrs["Policy"], "SNS:Publish") {
		t.Fatalf("policy = %s", attrs["Policy"])
	}
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sns.RemovePermissionInput{TopicARN: arn, Label: "friends"}), "")
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sns.RemovePermissionInput{TopicARN: arn, Label: "friends"}), sns.CodeInvalidParameter)
	attrs, _ = e.svc.GetTopicAttributes(e.ctx, caller, arn)
	if strings.Contains(attrs["Policy"], "friends") || !strings.Contains(attrs["Policy"], "__default_statement_ID") {
		t.Fatalf("policy = %s", attrs["Policy"])
	}
}

// TestPermissionsOnASingleStatementPolicy: a policy whose Statement is one
// object, not an array (IAM accepts both), can still be edited.
func TestPermissionsOnASingleStatementPolicy(t *testing.T) {
	e := newEnv(t)
	arn := e.createTopic(t, "single", nil)
	policy := `{"Version":"2012-10-17","Statement":{"Sid":"own","Effect":"Allow","Principal":{"AWS":"` + caller.Account + `"},"Action":"SNS:Publish","Resource":"` + arn + `"}}`
	wantCode(t, e.svc.SetTopicAttributes(e.ctx, caller, sns.SetTopicAttributesInput{TopicARN: arn, AttributeName: "Policy", AttributeValue: policy}), "")
	add := sns.AddPermissionInput{TopicARN: arn, Label: "friends", AWSAccountIDs: []string{"111111111111"}, ActionNames: []string{"Publish"}}
	wantCode(t, e.svc.AddPermission(e.ctx, caller, add), "")
	attrs, _ := e.svc.GetTopicAttributes(e.ctx, caller, arn)
	if !strings.Contains(attrs["Policy"], `"Sid":"own"`) || !strings.Contains(attrs["Policy"], `"Sid":"friends"`) {
		t.Fatalf("policy after AddPermission = %s, want both statements", attrs["Policy"])
	}
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sns.RemovePermissionInput{TopicARN: arn, Label: "own"}), "")
	attrs, _ = e.svc.GetTopicAttributes(e.ctx, caller, arn)
	if strings.Contains(attrs["Policy"], `"Sid":"own"`) || !strings.Contains(attrs["Policy"], `"Sid":"friends"`) {
		t.Fatalf("policy after RemovePermission = %s", attrs["Policy"])
	}
}
