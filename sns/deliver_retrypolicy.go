package sns

import (
	"encoding/json"
	"errors"
	"time"
)

// awsPolicies is the default DeliveryPolicies: ParseDeliveryPolicy with
// AWS's semantics, and the effective policy rendered as AWS shows
// EffectiveDeliveryPolicy.
type awsPolicies struct{}

func (awsPolicies) ValidateTopic(p string) error {
	_, err := ParseDeliveryPolicy(p, "")
	return err
}

func (awsPolicies) ValidateSubscription(p string) error {
	_, err := ParseDeliveryPolicy("", p)
	return err
}

func (awsPolicies) Effective(topic, sub string) (RetryPolicy, string, error) {
	p, err := ParseDeliveryPolicy(topic, sub)
	if err != nil {
		return nil, "", err
	}
	return p, effectivePolicyJSON(p), nil
}

// effectivePolicyJSON renders p as AWS's EffectiveDeliveryPolicy.
func effectivePolicyJSON(p DeliveryPolicy) string {
	ct := p.HeaderContentType
	if ct == "" {
		ct = "text/plain; charset=UTF-8"
	}
	backoff := p.BackoffFunction
	if backoff == "" {
		backoff = BackoffLinear
	}
	http := map[string]any{
		"defaultHealthyRetryPolicy": map[string]any{
			"minDelayTarget": p.MinDelayTarget, "maxDelayTarget": p.MaxDelayTarget, "numRetries": p.NumRetries,
			"numMaxDelayRetries": p.NumMaxDelayRetries, "numNoDelayRetries": p.NumNoDelayRetries,
			"numMinDelayRetries": p.NumMinDelayRetries, "backoffFunction": backoff,
		},
		"disableSubscriptionOverrides": false,
		"defaultRequestPolicy":         map[string]any{"headerContentType": ct},
	}
	if p.MaxReceivesPerSecond > 0 {
		http["defaultThrottlePolicy"] = map[string]any{"maxReceivesPerSecond": p.MaxReceivesPerSecond}
	}
	b, _ := json.Marshal(map[string]any{"http": http})
	return string(b)
}

// policyAttrError returns err as an SNS error (InvalidParameter unless it
// already is an *Error).
func policyAttrError(err error) *Error {
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	return ErrInvalidParameter("Attributes Reason: DeliveryPolicy: %v", err)
}

// fixedRetry retries n times, delay apart.
type fixedRetry struct {
	n     int
	delay time.Duration
}

func (r fixedRetry) Retries() int            { return r.n }
func (r fixedRetry) Delay(int) time.Duration { return r.delay }
