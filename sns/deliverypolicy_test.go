package sns

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDefaultDeliveryPolicy(t *testing.T) {
	p := DefaultDeliveryPolicy()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	// AWS: up to three retries, 20 seconds apart.
	if p.Retries() != 3 {
		t.Fatalf("Retries = %d, want 3", p.Retries())
	}
	for r := 1; r <= 3; r++ {
		if d := p.Delay(r); d != 20*time.Second {
			t.Errorf("Delay(%d) = %v, want 20s", r, d)
		}
	}
	for _, r := range []int{-1, 0, 4} {
		if d := p.Delay(r); d != 0 {
			t.Errorf("Delay(%d) = %v, want 0 outside the schedule", r, d)
		}
	}
}

func secs(ss ...float64) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = seconds(s)
	}
	return out
}

func TestDeliveryPolicySchedule(t *testing.T) {
	tests := []struct {
		name string
		p    DeliveryPolicy
		want []time.Duration
	}{
		{
			name: "four phases",
			p: DeliveryPolicy{NumRetries: 8, NumNoDelayRetries: 2, NumMinDelayRetries: 2, NumMaxDelayRetries: 2,
				MinDelayTarget: 5, MaxDelayTarget: 15, BackoffFunction: BackoffLinear},
			want: secs(0, 0, 5, 5, 10, 15, 15, 15),
		},
		{
			// AWS's schedule for AWS-managed endpoints, without its long
			// post-backoff phase: 3 at once, 2 one second apart, 10 with
			// exponential backoff from 1 to 20 seconds.
			name: "AWS managed endpoints",
			p: DeliveryPolicy{NumRetries: 15, NumNoDelayRetries: 3, NumMinDelayRetries: 2,
				MinDelayTarget: 1, MaxDelayTarget: 20, BackoffFunction: BackoffExponential},
			want: secs(0, 0, 0, 1, 1,
				1+19*1.0/1023, 1+19*3.0/1023, 1+19*7.0/1023, 1+19*15.0/1023, 1+19*31.0/1023,
				1+19*63.0/1023, 1+19*127.0/1023, 1+19*255.0/1023, 1+19*511.0/1023, 20),
		},
		{name: "linear", p: DeliveryPolicy{NumRetries: 3, MinDelayTarget: 10, MaxDelayTarget: 25, BackoffFunction: BackoffLinear},
			want: secs(15, 20, 25)},
		{name: "arithmetic", p: DeliveryPolicy{NumRetries: 3, MinDelayTarget: 10, MaxDelayTarget: 25, BackoffFunction: BackoffArithmetic},
			want: secs(12.5, 17.5, 25)},
		{name: "geometric", p: DeliveryPolicy{NumRetries: 4, MinDelayTarget: 1, MaxDelayTarget: 16, BackoffFunction: BackoffGeometric},
			want: secs(2, 4, 8, 16)},
		{name: "exponential", p: DeliveryPolicy{NumRetries: 3, MinDelayTarget: 10, MaxDelayTarget: 24, BackoffFunction: BackoffExponential},
			want: secs(12, 16, 24)},
		{name: "no retries", p: DeliveryPolicy{NumRetries: 0, MinDelayTarget: 20, MaxDelayTarget: 20, BackoffFunction: BackoffLinear},
			want: nil},
		{name: "only immediate", p: DeliveryPolicy{NumRetries: 3, NumNoDelayRetries: 3, MinDelayTarget: 20, MaxDelayTarget: 20, BackoffFunction: BackoffLinear},
			want: secs(0, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.p.Validate(); err != nil {
				t.Fatal(err)
			}
			if tt.p.Retries() != len(tt.want) {
				t.Fatalf("Retries = %d, want %d", tt.p.Retries(), len(tt.want))
			}
			var total time.Duration
			for i, w := range tt.want {
				if d := tt.p.Delay(i + 1); d != w {
					t.Errorf("Delay(%d) = %v, want %v", i+1, d, w)
				}
				total += w
			}
			if got := tt.p.TotalDelay(); got != total {
				t.Errorf("TotalDelay = %v, want %v", got, total)
			}
		})
	}
}

// The backoff functions all rise from min to max; at every inner retry
// linear is the highest and exponential the lowest.
func TestBackoffFunctionsOrder(t *testing.T) {
	mk := func(f string) DeliveryPolicy {
		return DeliveryPolicy{NumRetries: 10, MinDelayTarget: 1, MaxDelayTarget: 60, BackoffFunction: f}
	}
	lin, ari, geo, exp := mk(BackoffLinear), mk(BackoffArithmetic), mk(BackoffGeometric), mk(BackoffExponential)
	for _, p := range []DeliveryPolicy{lin, ari, geo, exp} {
		prev := time.Second
		for r := 1; r <= 10; r++ {
			d := p.Delay(r)
			if d < prev {
				t.Errorf("%s: Delay(%d) = %v < Delay(%d) = %v", p.BackoffFunction, r, d, r-1, prev)
			}
			prev = d
		}
		if prev != 60*time.Second {
			t.Errorf("%s: last delay %v, want 60s", p.BackoffFunction, prev)
		}
	}
	for r := 1; r < 10; r++ {
		l, a, g, e := lin.Delay(r), ari.Delay(r), geo.Delay(r), exp.Delay(r)
		if !(l > a && l > g && a > e && g > e) {
			t.Errorf("retry %d: linear %v arithmetic %v geometric %v exponential %v", r, l, a, g, e)
		}
	}
}

func TestParseDeliveryPolicy(t *testing.T) {
	def := DefaultDeliveryPolicy()
	with := func(f func(*DeliveryPolicy)) DeliveryPolicy {
		p := DefaultDeliveryPolicy()
		f(&p)
		return p
	}
	tests := []struct {
		name       string
		topic, sub string
		want       DeliveryPolicy
	}{
		{name: "none", want: def},
		{name: "empty objects", topic: `{}`, sub: ` {} `, want: def},
		{name: "topic http without policy", topic: `{"http":{}}`, want: def},
		{name: "topic retries", topic: `{"http":{"defaultHealthyRetryPolicy":{"numRetries":5}}}`,
			want: with(func(p *DeliveryPolicy) { p.NumRetries = 5 })},
		{name: "topic full", topic: `{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":60,"numRetries":50,
			"numNoDelayRetries":3,"numMinDelayRetries":2,"numMaxDelayRetries":35,"backoffFunction":"exponential"},
			"disableSubscriptionOverrides":false,"defaultThrottlePolicy":{"maxReceivesPerSecond":10},
			"defaultRequestPolicy":{"headerContentType":"application/json"}}}`,
			want: DeliveryPolicy{NumRetries: 50, NumNoDelayRetries: 3, MinDelayTarget: 1, MaxDelayTarget: 60, NumMinDelayRetries: 2,
				NumMaxDelayRetries: 35, BackoffFunction: BackoffExponential, MaxReceivesPerSecond: 10, HeaderContentType: "application/json"}},
		{name: "subscription overrides topic section", topic: `{"http":{"defaultHealthyRetryPolicy":{"numRetries":5,"minDelayTarget":2},"defaultThrottlePolicy":{"maxReceivesPerSecond":3}}}`,
			sub:  `{"healthyRetryPolicy":{"numRetries":2}}`,
			want: with(func(p *DeliveryPolicy) { p.NumRetries = 2; p.MaxReceivesPerSecond = 3 })},
		{name: "subscription throttle and request", sub: `{"throttlePolicy":{"maxReceivesPerSecond":7},"requestPolicy":{"headerContentType":"application/xml"}}`,
			want: with(func(p *DeliveryPolicy) { p.MaxReceivesPerSecond = 7; p.HeaderContentType = "application/xml" })},
		{name: "overrides disabled", topic: `{"http":{"defaultHealthyRetryPolicy":{"numRetries":5},"disableSubscriptionOverrides":true}}`,
			sub:  `{"healthyRetryPolicy":{"numRetries":2},"throttlePolicy":{"maxReceivesPerSecond":7}}`,
			want: with(func(p *DeliveryPolicy) { p.NumRetries = 5 })},
		{name: "backoff function any case", sub: `{"healthyRetryPolicy":{"backoffFunction":"GEOMETRIC","minDelayTarget":1}}`,
			want: with(func(p *DeliveryPolicy) { p.BackoffFunction = BackoffGeometric; p.MinDelayTarget = 1 })},
		{name: "zero retries", sub: `{"healthyRetryPolicy":{"numRetries":0}}`,
			want: with(func(p *DeliveryPolicy) { p.NumRetries = 0 })},
		{name: "one hour exactly", sub: `{"healthyRetryPolicy":{"numRetries":100,"minDelayTarget":36,"maxDelayTarget":36}}`,
			want: with(func(p *DeliveryPolicy) { p.NumRetries = 100; p.MinDelayTarget = 36; p.MaxDelayTarget = 36 })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDeliveryPolicy(tt.topic, tt.sub)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseDeliveryPolicyErrors(t *testing.T) {
	tests := []struct {
		name, topic, sub, want string
	}{
		{name: "too many retries", sub: `{"healthyRetryPolicy":{"numRetries":101}}`, want: "numRetries"},
		{name: "negative retries", sub: `{"healthyRetryPolicy":{"numRetries":-1}}`, want: "numRetries"},
		{name: "negative no-delay", sub: `{"healthyRetryPolicy":{"numNoDelayRetries":-1}}`, want: "numNoDelayRetries"},
		{name: "negative min-delay retries", sub: `{"healthyRetryPolicy":{"numMinDelayRetries":-1}}`, want: "numMinDelayRetries"},
		{name: "negative max-delay retries", sub: `{"healthyRetryPolicy":{"numMaxDelayRetries":-1}}`, want: "numMaxDelayRetries"},
		{name: "phases exceed retries", sub: `{"healthyRetryPolicy":{"numRetries":3,"numNoDelayRetries":2,"numMaxDelayRetries":2}}`, want: "must not exceed numRetries"},
		{name: "min delay zero", sub: `{"healthyRetryPolicy":{"minDelayTarget":0}}`, want: "minDelayTarget"},
		{name: "max delay too long", sub: `{"healthyRetryPolicy":{"numRetries":1,"maxDelayTarget":3601}}`, want: "maxDelayTarget"},
		{name: "min above max", sub: `{"healthyRetryPolicy":{"minDelayTarget":30,"maxDelayTarget":20}}`, want: "minDelayTarget must not exceed"},
		{name: "unknown backoff", sub: `{"healthyRetryPolicy":{"backoffFunction":"cubic"}}`, want: "backoffFunction"},
		{name: "schedule over an hour", sub: `{"healthyRetryPolicy":{"numRetries":100,"minDelayTarget":37,"maxDelayTarget":37}}`, want: "3700 seconds"},
		{name: "throttle zero", sub: `{"throttlePolicy":{"maxReceivesPerSecond":0}}`, want: "maxReceivesPerSecond"},
		{name: "bad content type", sub: `{"requestPolicy":{"headerContentType":"not a type;;"}}`, want: "headerContentType"},
		{name: "unknown field", sub: `{"healthyRetryPolicy":{"numRetrys":3}}`, want: "numRetrys"},
		{name: "string for number", sub: `{"healthyRetryPolicy":{"numRetries":"3"}}`, want: "numRetries"},
		{name: "fraction", sub: `{"healthyRetryPolicy":{"numRetries":1.5}}`, want: "numRetries"},
		{name: "not json", sub: `{"healthyRetryPolicy":`, want: "DeliveryPolicy"},
		{name: "null", sub: `null`, want: "not a JSON object"},
		{name: "array", topic: `[]`, want: "not a JSON object"},
		{name: "trailing data", sub: `{} {}`, want: "trailing"},
		{name: "topic unknown protocol key", topic: `{"https":{}}`, want: "https"},
		{name: "bad topic hidden by override", topic: `{"http":{"defaultHealthyRetryPolicy":{"numRetries":500}}}`,
			sub: `{"healthyRetryPolicy":{"numRetries":2}}`, want: "numRetries"},
		{name: "bad subscription under disabled overrides", topic: `{"http":{"disableSubscriptionOverrides":true}}`,
			sub: `{"healthyRetryPolicy":{"numRetries":500}}`, want: "numRetries"},
		{name: "bad topic throttle", topic: `{"http":{"defaultThrottlePolicy":{"maxReceivesPerSecond":-4}}}`, want: "maxReceivesPerSecond"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDeliveryPolicy(tt.topic, tt.sub)
			var se *Error
			if !errors.As(err, &se) || se.Code != CodeInvalidParameter || se.Status != 400 {
				t.Fatalf("err = %v, want an InvalidParameter *Error", err)
			}
			if !strings.Contains(se.Message, tt.want) {
				t.Fatalf("message %q does not mention %q", se.Message, tt.want)
			}
		})
	}
}
