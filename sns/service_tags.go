package sns

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// MaxTags is the most tags a topic may have, as on AWS.
const MaxTags = 50

func validateTags(tags map[string]string) *Error {
	if len(tags) > MaxTags {
		return NewError(CodeTagLimitExceeded, "Could not complete request: tag quota of per resource exceeded")
	}
	for k, v := range tags {
		if k == "" || utf8.RuneCountInString(k) > 128 || strings.HasPrefix(strings.ToLower(k), "aws:") {
			return NewError(CodeInvalidParameter, "Invalid parameter: Tags Reason: invalid tag key %q", k)
		}
		if utf8.RuneCountInString(v) > 256 {
			return NewError(CodeInvalidParameter, "Invalid parameter: Tags Reason: invalid tag value for key %q", k)
		}
	}
	return nil
}

// tagTopic finds the topic a tagging action names; a missing one is
// ResourceNotFound, as AWS answers tagging actions.
func (s *Service) tagTopic(ctx context.Context, c Caller, arn, action string) (*Topic, *Error) {
	t, e := s.lookupTopic(ctx, c, arn, "ResourceArn", action)
	if e != nil && e.Code == CodeNotFound {
		return nil, NewError(CodeResourceNotFound, "Resource does not exist")
	}
	return t, e
}

func (s *Service) TagResource(ctx context.Context, c Caller, in TagResourceInput) error {
	t, e := s.tagTopic(ctx, c, in.ResourceARN, "TagResource")
	if e != nil {
		return e
	}
	tags := cloneMap(t.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	for k, v := range in.Tags {
		tags[k] = v
	}
	if e := validateTags(tags); e != nil {
		return e
	}
	t.Tags = tags
	return errOrNil(s.store.UpdateTopic(ctx, t))
}

func (s *Service) UntagResource(ctx context.Context, c Caller, in UntagResourceInput) error {
	t, e := s.tagTopic(ctx, c, in.ResourceARN, "UntagResource")
	if e != nil {
		return e
	}
	tags := cloneMap(t.Tags)
	for _, k := range in.TagKeys {
		delete(tags, k)
	}
	t.Tags = tags
	return errOrNil(s.store.UpdateTopic(ctx, t))
}

func (s *Service) ListTagsForResource(ctx context.Context, c Caller, arn string) (map[string]string, error) {
	t, e := s.tagTopic(ctx, c, arn, "ListTagsForResource")
	if e != nil {
		return nil, e
	}
	out := cloneMap(t.Tags)
	if out == nil {
		out = map[string]string{}
	}
	return out, nil
}

// policyDoc is a topic's access policy, kept as generic JSON except for
// its statements.
type policyDoc struct {
	Version   string     `json:"Version"`
	ID        string     `json:"Id,omitempty"`
	Statement statements `json:"Statement"`
}

// statements is a policy's Statement member: an array, or a single
// statement given as an object (which IAM accepts too), so that a topic
// policy set that way can still be edited by AddPermission and
// RemovePermission.
type statements []map[string]any

func (st *statements) UnmarshalJSON(b []byte) error {
	var one map[string]any
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*st = statements{one}
		return nil
	}
	return json.Unmarshal(b, (*[]map[string]any)(st))
}

func (s *Service) topicPolicy(t *Topic) (*policyDoc, *Error) {
	raw := t.Attributes[AttrPolicy]
	if raw == "" {
		raw = defaultTopicPolicy(s.topicARN(t), t.Account)
	}
	var d policyDoc
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return nil, ErrInvalidParameter("Policy: the topic's policy cannot be parsed")
	}
	if d.Version == "" {
		d.Version = "2008-10-17"
	}
	return &d, nil
}

func (s *Service) storePolicy(ctx context.Context, t *Topic, d *policyDoc) error {
	b, err := json.Marshal(d)
	if err != nil {
		return AsError(err)
	}
	t.Attributes = cloneMap(t.Attributes)
	if t.Attributes == nil {
		t.Attributes = map[string]string{}
	}
	t.Attributes[AttrPolicy] = string(b)
	return errOrNil(s.store.UpdateTopic(ctx, t))
}

// AddPermission adds a statement labelled in.Label to the topic's policy
// (enforced by lookupTopic, authorize.go).
func (s *Service) AddPermission(ctx context.Context, c Caller, in AddPermissionInput) error {
	t, e := s.lookupTopic(ctx, c, in.TopicARN, "TopicArn", "AddPermission")
	if e != nil {
		return e
	}
	if in.Label == "" || len(in.AWSAccountIDs) == 0 || len(in.ActionNames) == 0 {
		return ErrInvalidParameter("Label, AWSAccountId and ActionName are required")
	}
	d, e := s.topicPolicy(t)
	if e != nil {
		return e
	}
	for _, st := range d.Statement {
		if st["Sid"] == in.Label {
			return ErrInvalidParameter("Statement already exists")
		}
	}
	for _, a := range in.ActionNames {
		// Only the actions a topic policy can grant (as AWS: "Publish",
		// not "SNS:Publish" nor "*").
		if !crossAccountActions[a] {
			return errActionOutOfScope()
		}
	}
	principals := make([]string, len(in.AWSAccountIDs))
	for i, a := range in.AWSAccountIDs {
		principals[i] = "arn:aws:iam::" + a + ":root"
	}
	actions := make([]string, len(in.ActionNames))
	for i, a := range in.ActionNames {
		actions[i] = "SNS:" + a
	}
	d.Statement = append(d.Statement, map[string]any{
		"Sid": in.Label, "Effect": "Allow", "Principal": map[string]any{"AWS": oneOrMany(principals)},
		"Action": oneOrMany(actions), "Resource": s.topicARN(t),
	})
	return s.storePolicy(ctx, t, d)
}

// oneOrMany renders a list as AWS does in the statements it writes: a
// single value alone, several as an array.
func oneOrMany(v []string) any {
	if len(v) == 1 {
		return v[0]
	}
	return v
}

// RemovePermission removes the statement labelled in.Label.
func (s *Service) RemovePermission(ctx context.Context, c Caller, in RemovePermissionInput) error {
	t, e := s.lookupTopic(ctx, c, in.TopicARN, "TopicArn", "RemovePermission")
	if e != nil {
		return e
	}
	d, e := s.topicPolicy(t)
	if e != nil {
		return e
	}
	kept := d.Statement[:0]
	found := false
	for _, st := range d.Statement {
		if st["Sid"] == in.Label {
			found = true
			continue
		}
		kept = append(kept, st)
	}
	if !found {
		return ErrInvalidParameter("Label")
	}
	d.Statement = kept
	return s.storePolicy(ctx, t, d)
}
