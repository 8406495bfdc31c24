package sns

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"strings"
	"time"
)

// DeliveryPolicy is the effective retry, throttle and request policy of an
// http/https subscription, as AWS's DeliveryPolicy attribute describes it.
//
// A failed first attempt is followed by up to NumRetries retries in four
// phases: NumNoDelayRetries at once, NumMinDelayRetries MinDelayTarget
// seconds apart, a backoff phase from MinDelayTarget to MaxDelayTarget
// shaped by BackoffFunction, and NumMaxDelayRetries MaxDelayTarget seconds
// apart. Delays are in whole seconds as AWS configures them.
type DeliveryPolicy struct {
	NumRetries         int
	NumNoDelayRetries  int
	MinDelayTarget     int // seconds
	MaxDelayTarget     int // seconds
	NumMinDelayRetries int
	NumMaxDelayRetries int
	BackoffFunction    string // "linear", "arithmetic", "geometric", "exponential"

	// MaxReceivesPerSecond is the throttle policy; 0 means no throttling.
	MaxReceivesPerSecond int
	// HeaderContentType is the request policy's Content-Type of
	// notifications; "" means AWS's default, "text/plain; charset=UTF-8".
	HeaderContentType string
}

// Backoff functions of a DeliveryPolicy.
const (
	BackoffLinear      = "linear"
	BackoffArithmetic  = "arithmetic"
	BackoffGeometric   = "geometric"
	BackoffExponential = "exponential"
)

// AWS's bounds of an HTTP/S delivery policy.
const (
	maxPolicyRetries     = 100
	maxPolicyDelay       = 3600 // seconds, for MaxDelayTarget and for the whole schedule
	defaultPolicyDelay   = 20
	defaultPolicyRetries = 3
)

// DefaultDeliveryPolicy is AWS's policy for http/https subscriptions when
// neither the topic nor the subscription sets one: 3 retries, 20 seconds
// apart (min = max = 20 s, linear backoff, no throttling).
func DefaultDeliveryPolicy() DeliveryPolicy {
	return DeliveryPolicy{
		NumRetries:      defaultPolicyRetries,
		MinDelayTarget:  defaultPolicyDelay,
		MaxDelayTarget:  defaultPolicyDelay,
		BackoffFunction: BackoffLinear,
	}
}

// The JSON documents of the DeliveryPolicy attributes. Pointers tell absent
// fields from zero ones.
type retryPolicyJSON struct {
	MinDelayTarget     *int    `json:"minDelayTarget"`
	MaxDelayTarget     *int    `json:"maxDelayTarget"`
	NumRetries         *int    `json:"numRetries"`
	NumNoDelayRetries  *int    `json:"numNoDelayRetries"`
	NumMinDelayRetries *int    `json:"numMinDelayRetries"`
	NumMaxDelayRetries *int    `json:"numMaxDelayRetries"`
	BackoffFunction    *string `json:"backoffFunction"`
}

type throttlePolicyJSON struct {
	MaxReceivesPerSecond *int `json:"maxReceivesPerSecond"`
}

type requestPolicyJSON struct {
	HeaderContentType *string `json:"headerContentType"`
}

type topicPolicyJSON struct {
	HTTP *struct {
		DefaultHealthyRetryPolicy    *retryPolicyJSON    `json:"defaultHealthyRetryPolicy"`
		DisableSubscriptionOverrides *bool               `json:"disableSubscriptionOverrides"`
		DefaultThrottlePolicy        *throttlePolicyJSON `json:"defaultThrottlePolicy"`
		DefaultRequestPolicy         *requestPolicyJSON  `json:"defaultRequestPolicy"`
	} `json:"http"`
}

type subscriptionPolicyJSON struct {
	HealthyRetryPolicy *retryPolicyJSON    `json:"healthyRetryPolicy"`
	ThrottlePolicy     *throttlePolicyJSON `json:"throttlePolicy"`
	RequestPolicy      *requestPolicyJSON  `json:"requestPolicy"`
}

// ParseDeliveryPolicy returns the effective policy of an http/https
// subscription from its topic's DeliveryPolicy attribute and its own (either
// may be ""). Each section (retry, throttle, request) comes from the
// subscription if it sets that section and the topic does not set
// disableSubscriptionOverrides, else from the topic, else AWS's defaults;
// fields absent from the chosen section take AWS's defaults. Both documents
// are validated (also the part an override hides), so the function also
// validates a SetTopicAttributes or SetSubscriptionAttributes value alone.
// Errors are *Error with code InvalidParameter.
func ParseDeliveryPolicy(topicPolicy, subscriptionPolicy string) (DeliveryPolicy, error) {
	var tp topicPolicyJSON
	if err := decodePolicy(topicPolicy, &tp); err != nil {
		return DeliveryPolicy{}, err
	}
	var sp subscriptionPolicyJSON
	if err := decodePolicy(subscriptionPolicy, &sp); err != nil {
		return DeliveryPolicy{}, err
	}

	var (
		retry    *retryPolicyJSON
		throttle *throttlePolicyJSON
		request  *requestPolicyJSON
		locked   bool
	)
	if h := tp.HTTP; h != nil {
		retry, throttle, request = h.DefaultHealthyRetryPolicy, h.DefaultThrottlePolicy, h.DefaultRequestPolicy
		locked = h.DisableSubscriptionOverrides != nil && *h.DisableSubscriptionOverrides
		// Validate the topic's retry section on its own, so a bad topic
		// policy is refused even when a subscription overrides it.
		if retry != nil {
			if _, err := retryPolicy(retry); err != nil {
				return DeliveryPolicy{}, err
			}
		}
	}
	if sp.HealthyRetryPolicy != nil {
		if _, err := retryPolicy(sp.HealthyRetryPolicy); err != nil {
			return DeliveryPolicy{}, err
		}
	}
	if !locked {
		if sp.HealthyRetryPolicy != nil {
			retry = sp.HealthyRetryPolicy
		}
		if sp.ThrottlePolicy != nil {
			throttle = sp.ThrottlePolicy
		}
		if sp.RequestPolicy != nil {
			request = sp.RequestPolicy
		}
	}

	p := DefaultDeliveryPolicy()
	if retry != nil {
		var err error
		if p, err = retryPolicy(retry); err != nil {
			return DeliveryPolicy{}, err
		}
	}
	for _, t := range []*throttlePolicyJSON{tp.throttle(), sp.ThrottlePolicy} {
		if t != nil && t.MaxReceivesPerSecond != nil && *t.MaxReceivesPerSecond < 1 {
			return DeliveryPolicy{}, policyError("maxReceivesPerSecond must be at least 1")
		}
	}
	if throttle != nil && throttle.MaxReceivesPerSecond != nil {
		p.MaxReceivesPerSecond = *throttle.MaxReceivesPerSecond
	}
	for _, r := range []*requestPolicyJSON{tp.request(), sp.RequestPolicy} {
		if r != nil && r.HeaderContentType != nil {
			if _, _, err := mime.ParseMediaType(*r.HeaderContentType); err != nil {
				return DeliveryPolicy{}, policyError("headerContentType %q is not a media type", *r.HeaderContentType)
			}
		}
	}
	if request != nil && request.HeaderContentType != nil {
		p.HeaderContentType = *request.HeaderContentType
	}
	return p, nil
}

func (tp *topicPolicyJSON) throttle() *throttlePolicyJSON {
	if tp.HTTP == nil {
		return nil
	}
	return tp.HTTP.DefaultThrottlePolicy
}

func (tp *topicPolicyJSON) request() *requestPolicyJSON {
	if tp.HTTP == nil {
		return nil
	}
	return tp.HTTP.DefaultRequestPolicy
}

func decodePolicy(doc string, into any) error {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return nil
	}
	if !strings.HasPrefix(doc, "{") {
		return policyError("not a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return policyError("%s", jsonProblem(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return policyError("trailing data after the JSON object")
	}
	return nil
}

func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s must be %s", te.Field, te.Type)
	}
	return err.Error()
}

func policyError(format string, args ...any) *Error {
	return ErrInvalidParameter("DeliveryPolicy: "+format, args...)
}

// retryPolicy validates a healthy retry policy against AWS's bounds and
// returns it with absent fields defaulted.
func retryPolicy(r *retryPolicyJSON) (DeliveryPolicy, error) {
	p := DefaultDeliveryPolicy()
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	set(&p.NumRetries, r.NumRetries)
	set(&p.NumNoDelayRetries, r.NumNoDelayRetries)
	set(&p.MinDelayTarget, r.MinDelayTarget)
	set(&p.MaxDelayTarget, r.MaxDelayTarget)
	set(&p.NumMinDelayRetries, r.NumMinDelayRetries)
	set(&p.NumMaxDelayRetries, r.NumMaxDelayRetries)
	if r.BackoffFunction != nil {
		p.BackoffFunction = strings.ToLower(*r.BackoffFunction)
	}
	return p, p.Validate()
}

// Validate checks p against AWS's documented bounds: 0 ≤ numRetries ≤ 100;
// the phase counts non-negative and together at most numRetries;
// 1 ≤ minDelayTarget ≤ maxDelayTarget ≤ 3600; a known backoff function;
// maxReceivesPerSecond 0 (unset) or ≥ 1; and the whole retry schedule no
// longer than 3,600 seconds.
func (p DeliveryPolicy) Validate() error {
	switch {
	case p.NumRetries < 0 || p.NumRetries > maxPolicyRetries:
		return policyError("numRetries must be between 0 and %d", maxPolicyRetries)
	case p.NumNoDelayRetries < 0:
		return policyError("numNoDelayRetries must be at least 0")
	case p.NumMinDelayRetries < 0:
		return policyError("numMinDelayRetries must be at least 0")
	case p.NumMaxDelayRetries < 0:
		return policyError("numMaxDelayRetries must be at least 0")
	case p.NumNoDelayRetries+p.NumMinDelayRetries+p.NumMaxDelayRetries > p.NumRetries:
		return policyError("numNoDelayRetries + numMinDelayRetries + numMaxDelayRetries must not exceed numRetries")
	case p.MinDelayTarget < 1:
		return policyError("minDelayTarget must be at least 1")
	case p.MaxDelayTarget > maxPolicyDelay:
		return policyError("maxDelayTarget must be at most %d", maxPolicyDelay)
	case p.MinDelayTarget > p.MaxDelayTarget:
		return policyError("minDelayTarget must not exceed maxDelayTarget")
	case p.MaxReceivesPerSecond < 0:
		return policyError("maxReceivesPerSecond must be at least 1")
	}
	switch p.BackoffFunction {
	case BackoffLinear, BackoffArithmetic, BackoffGeometric, BackoffExponential:
	default:
		return policyError("backoffFunction must be one of linear, arithmetic, geometric, exponential")
	}
	if total := p.TotalDelay(); total > maxPolicyDelay*time.Second {
		return policyError("the retry schedule lasts %d seconds, more than %d", int(total/time.Second), maxPolicyDelay)
	}
	return nil
}

// Retries is the number of retries after the first attempt.
func (p DeliveryPolicy) Retries() int { return p.NumRetries }

// TotalDelay is the sum of the delays before all retries.
func (p DeliveryPolicy) TotalDelay() time.Duration {
	var total time.Duration
	for r := 1; r <= p.NumRetries; r++ {
		total += p.Delay(r)
	}
	return total
}

// Delay is the time to wait before retry number retry (1 is the first
// retry, after the first attempt failed); 0 outside 1..Retries().
//
// Retries 1..NumNoDelayRetries go at once; the next NumMinDelayRetries wait
// MinDelayTarget; the last NumMaxDelayRetries wait MaxDelayTarget; the B
// retries between them (the backoff phase) wait, for i = 1..B,
//
//	linear       min + (max-min)·i/B
//	arithmetic   min + (max-min)·i(i+1)/(B(B+1))   (steps growing by a constant)
//	geometric    min·(max/min)^(i/B)                (a constant ratio)
//	exponential  min + (max-min)·(2^i−1)/(2^B−1)    (doubling steps)
//
// so each function rises from MinDelayTarget and reaches MaxDelayTarget at
// the last backoff retry, in the order AWS's backoff graph shows (linear
// fastest, exponential slowest until the end). AWS publishes the graph,
// not the formulas, and adds jitter; Delay is exact and rounded to the
// millisecond, and callers may jitter it.
func (p DeliveryPolicy) Delay(retry int) time.Duration {
	if retry < 1 || retry > p.NumRetries {
		return 0
	}
	minD, maxD := float64(p.MinDelayTarget), float64(p.MaxDelayTarget)
	if retry <= p.NumNoDelayRetries {
		return 0
	}
	if retry <= p.NumNoDelayRetries+p.NumMinDelayRetries {
		return seconds(minD)
	}
	backoff := p.NumRetries - p.NumNoDelayRetries - p.NumMinDelayRetries - p.NumMaxDelayRetries
	i := retry - p.NumNoDelayRetries - p.NumMinDelayRetries
	if i > backoff {
		return seconds(maxD)
	}
	b := float64(backoff)
	x := float64(i)
	var d float64
	switch p.BackoffFunction {
	case BackoffArithmetic:
		d = minD + (maxD-minD)*x*(x+1)/(b*(b+1))
	case BackoffGeometric:
		d = minD * math.Pow(maxD/minD, x/b)
	case BackoffExponential:
		d = minD + (maxD-minD)*(math.Exp2(x)-1)/(math.Exp2(b)-1)
	default:
		d = minD + (maxD-minD)*x/b
	}
	return seconds(d)
}

func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1000)) * time.Millisecond
}
