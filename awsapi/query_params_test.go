package awsapi

import (
	"net/url"
	"testing"
)

// TestQueryLegacyUnindexedMembers covers the un-indexed forms the SQS
// Query reference still documents for one-member requests, such as
// "Attribute.Name=Policy&Attribute.Value=..." for SetQueueAttributes and
// "AttributeName=All" for GetQueueAttributes, alongside the indexed forms
// the SDKs send.
func TestQueryLegacyUnindexedMembers(t *testing.T) {
	cases := []struct {
		name      string
		form      url.Values
		wantMap   map[string]string
		wantNames []string
	}{
		{name: "indexed", form: form("Attribute.1.Name", "Policy", "Attribute.1.Value", "p", "AttributeName.1", "All"),
			wantMap: map[string]string{"Policy": "p"}, wantNames: []string{"All"}},
		{name: "un-indexed", form: form("Attribute.Name", "VisibilityTimeout", "Attribute.Value", "35", "AttributeName", "All"),
			wantMap: map[string]string{"VisibilityTimeout": "35"}, wantNames: []string{"All"}},
		{name: "both", form: form("Attribute.Name", "DelaySeconds", "Attribute.Value", "1", "Attribute.2.Name", "Policy",
			"Attribute.2.Value", "p", "AttributeName", "Policy", "AttributeName.1", "DelaySeconds"),
			wantMap: map[string]string{"DelaySeconds": "1", "Policy": "p"}, wantNames: []string{"Policy", "DelaySeconds"}},
		{name: "none", form: form("QueueUrl", "q")},
		// botocore sends an empty list as its member name with no value.
		{name: "botocore empty list", form: form("AttributeNames", "", "Attributes", "")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &queryParams{form: tc.form}
			m, err := p.stringMap("Attribute", "Name", "Value")
			if err != nil {
				t.Fatalf("stringMap: %v", err)
			}
			equal(t, m, tc.wantMap)
			names, err := p.list("AttributeName")
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			equal(t, names, tc.wantNames)
		})
	}
}

// TestQueryMemberIndexErrors checks that member indexes stay strict: a
// segment that is neither a canonical index nor a field of the un-indexed
// form is refused rather than ignored.
func TestQueryMemberIndexErrors(t *testing.T) {
	cases := []struct {
		name string
		form url.Values
		read func(p *queryParams) error
	}{
		{"leading zero", form("TagKey.01", "a"), func(p *queryParams) error { _, err := p.list("TagKey"); return err }},
		{"zero", form("TagKey.0", "a"), func(p *queryParams) error { _, err := p.list("TagKey"); return err }},
		{"unknown field", form("Attribute.Nmae", "a"), func(p *queryParams) error { _, err := p.stringMap("Attribute", "Name", "Value"); return err }},
		{"un-indexed value without name", form("Attribute.Value", "a"), func(p *queryParams) error {
			_, err := p.stringMap("Attribute", "Name", "Value")
			return err
		}},
		{"same key twice", form("Attribute.Name", "Policy", "Attribute.1.Name", "Policy"), func(p *queryParams) error {
			_, err := p.stringMap("Attribute", "Name", "Value")
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.read(&queryParams{form: tc.form}); err == nil {
				t.Fatalf("%v was accepted", tc.form)
			}
		})
	}
}
