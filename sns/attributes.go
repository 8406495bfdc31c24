package sns

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/heraldmq/herald/sqs"
)

// Topic attribute names, as AWS spells them.
const (
	AttrDisplayName               = "DisplayName"
	AttrPolicy                    = "Policy"
	AttrDeliveryPolicy            = "DeliveryPolicy"
	AttrFifoTopic                 = "FifoTopic"
	AttrContentBasedDeduplication = "ContentBasedDeduplication"
	AttrKmsMasterKeyID            = "KmsMasterKeyId"
	AttrSignatureVersion          = "SignatureVersion"
	AttrTracingConfig             = "TracingConfig"
	AttrArchivePolicy             = "ArchivePolicy"
	AttrFifoThroughputScope       = "FifoThroughputScope"
	AttrDataProtectionPolicy      = "DataProtectionPolicy"
)

// Subscription attribute names, as AWS spells them.
const (
	AttrRawMessageDelivery  = "RawMessageDelivery"
	AttrFilterPolicy        = "FilterPolicy"
	AttrFilterPolicyScope   = "FilterPolicyScope"
	AttrRedrivePolicy       = "RedrivePolicy"
	AttrSubscriptionRoleArn = "SubscriptionRoleArn"
	AttrReplayPolicy        = "ReplayPolicy"

	// attrConfirmationAuthenticated is kept in Subscription.Attributes
	// once ConfirmSubscription asked for authenticated unsubscribes.
	attrConfirmationAuthenticated = "ConfirmationWasAuthenticated"
)

// Filter policy scopes.
const (
	ScopeMessageAttributes = "MessageAttributes"
	ScopeMessageBody       = "MessageBody"
)

// readOnlyTopicAttrs are returned by GetTopicAttributes but cannot be set.
var readOnlyTopicAttrs = map[string]bool{
	"TopicArn": true, "Owner": true, "SubscriptionsConfirmed": true, "SubscriptionsPending": true,
	"SubscriptionsDeleted": true, "EffectiveDeliveryPolicy": true,
}

// feedbackAttrs are the delivery-status logging attributes AWS accepts on
// topics; Herald stores and returns them without acting on them.
func isFeedbackAttr(name string) bool {
	for _, p := range []string{"HTTP", "SQS", "Lambda", "Application", "Firehose"} {
		switch name {
		case p + "SuccessFeedbackRoleArn", p + "FailureFeedbackRoleArn", p + "SuccessFeedbackSampleRate":
			return true
		}
	}
	return false
}

func invalidAttr(name string) *Error { return ErrInvalidParameter("Attributes Reason: %s", name) }

// validateTopicAttribute checks one settable topic attribute. create is
// true for CreateTopic (FifoTopic may only be given there); fifo says
// whether the topic is (or is being created as) a FIFO topic.
func (s *Service) validateTopicAttribute(name, value string, create, fifo bool) *Error {
	switch name {
	case AttrDisplayName:
		if utf8.RuneCountInString(value) > 100 {
			return ErrInvalidParameter("DisplayName")
		}
	case AttrPolicy:
		return validPolicyText(name, value)
	case AttrDataProtectionPolicy:
		return validDataProtectionPolicy(value)
	case AttrDeliveryPolicy:
		if value == "" {
			return nil
		}
		if err := s.cfg.DeliveryPolicies.ValidateTopic(value); err != nil {
			return policyAttrError(err)
		}
	case AttrFifoTopic:
		if !create {
			return ErrInvalidParameter("Attributes Reason: FifoTopic cannot be changed after the topic is created")
		}
		if value != "true" && value != "false" {
			return ErrInvalidParameter("Attributes Reason: FifoTopic must be true or false")
		}
	case AttrContentBasedDeduplication:
		if value != "true" && value != "false" {
			return ErrInvalidParameter("Attributes Reason: ContentBasedDeduplication must be true or false")
		}
		if !fifo && value == "true" {
			return ErrInvalidParameter("Attributes Reason: Content based deduplication can only be set for FIFO topics")
		}
	case AttrKmsMasterKeyID:
	case AttrSignatureVersion:
		if value != "1" && value != "2" {
			return ErrInvalidParameter("Attributes Reason: SignatureVersion must be 1 or 2")
		}
	case AttrTracingConfig:
		if value != "PassThrough" && value != "Active" {
			return ErrInvalidParameter("Attributes Reason: TracingConfig must be PassThrough or Active")
		}
	case AttrArchivePolicy:
		if !fifo {
			return ErrInvalidParameter("Attributes Reason: ArchivePolicy can only be set for FIFO topics")
		}
		if value != "" && !json.Valid([]byte(value)) {
			return ErrInvalidParameter("Attributes Reason: ArchivePolicy: failed to parse JSON")
		}
	case AttrFifoThroughputScope:
		if !fifo {
			return ErrInvalidParameter("Attributes Reason: FifoThroughputScope can only be set for FIFO topics")
		}
		if value != "Topic" && value != "MessageGroup" {
			return ErrInvalidParameter("Attributes Reason: FifoThroughputScope must be Topic or MessageGroup")
		}
	default:
		if isFeedbackAttr(name) {
			return nil
		}
		return ErrInvalidParameter("AttributeName")
	}
	return nil
}

// topicFIFO reports whether t is a FIFO topic.
func topicFIFO(t *Topic) bool { return boolAttr(t.Attributes, AttrFifoTopic) }

// boolAttrs are the attributes whose values are booleans. AWS reads them
// whatever their case ("True", "TRUE"); Herald stores them lower-case.
var boolAttrs = map[string]bool{AttrFifoTopic: true, AttrContentBasedDeduplication: true, AttrRawMessageDelivery: true}

// canonicalValue is value as Herald stores attribute name: a boolean
// spelling true or false in any case becomes "true" or "false"; anything
// else is left as it is, for the validation to judge.
func canonicalValue(name, value string) string {
	if boolAttrs[name] && (strings.EqualFold(value, "true") || strings.EqualFold(value, "false")) {
		return strings.ToLower(value)
	}
	return value
}

// canonicalAttrs is a copy of attrs with canonicalValue applied (nil stays
// nil).
func canonicalAttrs(attrs map[string]string) map[string]string {
	if attrs == nil {
		return nil
	}
	out := make(map[string]string, len(attrs))
	for k, v := range attrs {
		out[k] = canonicalValue(k, v)
	}
	return out
}

// defaultTopicPolicy is the access policy AWS gives a new topic: the owner
// may do everything.
func defaultTopicPolicy(arn, account string) string {
	doc := map[string]any{
		"Version": "2008-10-17",
		"Id":      "__default_policy_ID",
		"Statement": []any{map[string]any{
			"Sid":       "__default_statement_ID",
			"Effect":    "Allow",
			"Principal": map[string]any{"AWS": "*"},
			"Action": []string{"SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission",
				"SNS:RemovePermission", "SNS:DeleteTopic", "SNS:Subscribe", "SNS:ListSubscriptionsByTopic", "SNS:Publish"},
			"Resource":  arn,
			"Condition": map[string]any{"StringEquals": map[string]any{"AWS:SourceOwner": account}},
		}},
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

// validateSubscriptionAttribute checks one settable subscription attribute
// of a subscription with protocol. subscribing says whether it comes with
// Subscribe: AWS's reasons then start "Attributes Reason: ", while
// SetSubscriptionAttributes names the attribute at once.
func (s *Service) validateSubscriptionAttribute(name, value, protocol string, subscribing bool) *Error {
	reason := ""
	if subscribing {
		reason = "Attributes Reason: "
	}
	switch name {
	case AttrRawMessageDelivery:
		if value != "true" && value != "false" {
			return ErrInvalidParameter("%sRawMessageDelivery: Invalid value [%s]. Must be true or false.", reason, value)
		}
	case AttrFilterPolicy:
		// Parsed by checkFilterPolicy once the scope is known.
	case AttrFilterPolicyScope:
		if value != ScopeMessageAttributes && value != ScopeMessageBody {
			return ErrInvalidParameter("%sFilterPolicyScope: Invalid value [%s]. Please use either MessageBody or MessageAttributes", reason, value)
		}
	case AttrDeliveryPolicy:
		if protocol != ProtocolHTTP && protocol != ProtocolHTTPS {
			return ErrInvalidParameter("Attributes Reason: DeliveryPolicy: Delivery policy is only supported for HTTP/S subscriptions")
		}
		if value == "" {
			return nil
		}
		if err := s.cfg.DeliveryPolicies.ValidateSubscription(value); err != nil {
			return policyAttrError(err)
		}
	case AttrRedrivePolicy:
		if value == "" {
			return nil
		}
		if _, err := parseRedrivePolicy(value); err != nil {
			return ErrInvalidParameter("%s%v", reason, err)
		}
	case AttrSubscriptionRoleArn, AttrReplayPolicy:
		if name == AttrReplayPolicy && value != "" && !json.Valid([]byte(value)) {
			return ErrInvalidParameter("Attributes Reason: ReplayPolicy: failed to parse JSON")
		}
	default:
		return ErrInvalidParameter("%sAttributeName", reason)
	}
	return nil
}

// parseRedrivePolicy returns the dead-letter queue ARN of a subscription's
// RedrivePolicy ({"deadLetterTargetArn": "<SQS queue ARN>"}); its error is
// AWS's reason.
func parseRedrivePolicy(value string) (string, error) {
	var p struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
	}
	if err := json.Unmarshal([]byte(value), &p); err != nil {
		return "", errors.New("RedrivePolicy: failed to parse JSON.")
	}
	if _, _, _, err := sqs.ParseQueueARN(p.DeadLetterTargetArn); err != nil {
		return "", errors.New("RedrivePolicy: deadLetterTargetArn is an invalid arn")
	}
	return p.DeadLetterTargetArn, nil
}

// checkFilterPolicy parses the FilterPolicy of merged subscription
// attributes in their scope.
func (s *Service) checkFilterPolicy(attrs map[string]string) *Error {
	p := attrs[AttrFilterPolicy]
	if p == "" {
		return nil
	}
	if _, err := s.cfg.Filter(p, filterScope(attrs)); err != nil {
		return ErrInvalidParameter("Filter policy: %v", err)
	}
	return nil
}

// filterScope is the effective FilterPolicyScope of a subscription.
func filterScope(attrs map[string]string) string {
	if v := attrs[AttrFilterPolicyScope]; v != "" {
		return v
	}
	return ScopeMessageAttributes
}

// boolAttr reads a "true"/"false" attribute (false when absent).
func boolAttr(attrs map[string]string, name string) bool {
	return strings.EqualFold(attrs[name], "true")
}
