package sns_test

import (
	"testing"

	"github.com/heraldmq/herald/sns"
)

func TestDataProtectionPolicy(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	get := func(t *testing.T) string {
		t.Helper()
		p, err := e.svc.GetDataProtectionPolicy(e.ctx, caller, topic)
		wantCode(t, err, "")
		return p
	}
	put := func(policy string) error {
		return e.svc.PutDataProtectionPolicy(e.ctx, caller, sns.PutDataProtectionPolicyInput{ResourceARN: topic, DataProtectionPolicy: policy})
	}
	if p := get(t); p != "" {
		t.Fatalf("a new topic's policy = %q, want none", p)
	}
	// Stored and returned as given, whitespace and order included.
	first := `{ "Name": "basic", "Version": "2021-06-01",
  "Statement": [{"DataDirection": "Inbound", "Principal": ["*"], "Operation": {"Deny": {}}}] }`
	wantCode(t, put(first), "")
	if p := get(t); p != first {
		t.Fatalf("policy = %q, want %q", p, first)
	}
	second := `{"Name":"updated","Version":"2021-06-01","Statement":[]}`
	wantCode(t, put(second), "")
	if p := get(t); p != second {
		t.Fatalf("replaced policy = %q, want %q", p, second)
	}
	// The policy is kept apart from what SetTopicAttributes changes.
	wantCode(t, e.svc.SetTopicAttributes(e.ctx, caller, sns.SetTopicAttributesInput{TopicARN: topic, AttributeName: "DisplayName", AttributeValue: "d"}), "")
	if p := get(t); p != second {
		t.Fatalf("policy after SetTopicAttributes = %q", p)
	}

	const invalid = "Invalid parameter: DataProtectionPolicy Reason: the policy is not a valid JSON document"
	for _, bad := range []string{"", "not json", `{"Name":`, `["a"]`, `"text"`, "null"} {
		wantError(t, put(bad), sns.CodeInvalidParameter, invalid)
	}
	if p := get(t); p != second {
		t.Fatalf("a refused policy changed it to %q", p)
	}

	_, err := e.svc.GetDataProtectionPolicy(e.ctx, caller, topic+"-missing")
	wantError(t, err, sns.CodeNotFound, "Topic does not exist")
	err = e.svc.PutDataProtectionPolicy(e.ctx, caller, sns.PutDataProtectionPolicyInput{ResourceARN: "t", DataProtectionPolicy: second})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: ResourceArn Reason: An ARN must have at least 6 elements, not 1")
}

// TestDataProtectionPolicyAtCreateTopic: CreateTopic's DataProtectionPolicy
// is the one Get returns, checked the same way.
func TestDataProtectionPolicyAtCreateTopic(t *testing.T) {
	e := newEnv(t)
	policy := `{"Name":"p","Version":"2021-06-01","Statement":[]}`
	topic := e.createTopic(t, "t", map[string]string{"DataProtectionPolicy": policy})
	got, err := e.svc.GetDataProtectionPolicy(e.ctx, caller, topic)
	wantCode(t, err, "")
	if got != policy {
		t.Fatalf("policy = %q, want %q", got, policy)
	}
	_, err = e.svc.CreateTopic(e.ctx, caller, sns.CreateTopicInput{Name: "u", Attributes: map[string]string{"DataProtectionPolicy": "{"}})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: DataProtectionPolicy Reason: the policy is not a valid JSON document")
}

// TestDataProtectionPolicyDenied: like every topic action, an explicit
// Deny in the topic's policy binds the owner.
func TestDataProtectionPolicyDenied(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	deny := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":["sns:GetDataProtectionPolicy","sns:PutDataProtectionPolicy"],"Resource":"` + topic + `"}]}`
	wantCode(t, e.svc.SetTopicAttributes(e.ctx, caller, sns.SetTopicAttributesInput{TopicARN: topic, AttributeName: "Policy", AttributeValue: deny}), "")
	_, err := e.svc.GetDataProtectionPolicy(e.ctx, caller, topic)
	wantCode(t, err, sns.CodeAuthorizationError)
	err = e.svc.PutDataProtectionPolicy(e.ctx, caller, sns.PutDataProtectionPolicyInput{ResourceARN: topic, DataProtectionPolicy: "{}"})
	wantCode(t, err, sns.CodeAuthorizationError)
}
