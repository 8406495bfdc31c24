package sns

import (
	"context"
	"encoding/json"
)

// Data protection policies: Herald keeps a topic's policy as its
// DataProtectionPolicy attribute (so both engines store it with the topic,
// with no schema of their own) and returns it as given. It checks that the
// policy is a JSON object, not AWS's policy grammar, and does not apply it
// to messages (docs/sns.md).

// validDataProtectionPolicy checks a data protection policy: a JSON object.
func validDataProtectionPolicy(text string) *Error {
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil || doc == nil {
		return errDataProtectionPolicy()
	}
	return nil
}

// GetDataProtectionPolicy returns the policy of the topic resourceARN
// names, "" when it has none.
func (s *Service) GetDataProtectionPolicy(ctx context.Context, c Caller, resourceARN string) (string, error) {
	t, e := s.lookupTopic(ctx, c, resourceARN, "ResourceArn", "GetDataProtectionPolicy")
	if e != nil {
		return "", e
	}
	return t.Attributes[AttrDataProtectionPolicy], nil
}

// PutDataProtectionPolicy sets (or replaces) the policy of the topic
// in.ResourceARN names.
func (s *Service) PutDataProtectionPolicy(ctx context.Context, c Caller, in PutDataProtectionPolicyInput) error {
	t, e := s.lookupTopic(ctx, c, in.ResourceARN, "ResourceArn", "PutDataProtectionPolicy")
	if e != nil {
		return e
	}
	if e := validDataProtectionPolicy(in.DataProtectionPolicy); e != nil {
		return e
	}
	t.Attributes = cloneMap(t.Attributes)
	if t.Attributes == nil {
		t.Attributes = map[string]string{}
	}
	t.Attributes[AttrDataProtectionPolicy] = in.DataProtectionPolicy
	return errOrNil(s.store.UpdateTopic(ctx, t))
}
