// Package snssms hands SNS text messages to an SMS gateway through an HTTP
// webhook: each message is one POST of its JSON document (sns.SMS) to the
// configured URL. 2xx means accepted; an answer {"optedOut": true} means
// the recipient opted out (Herald records it); 4xx other than 429 is a
// permanent failure; 5xx, 429, timeouts and connection errors are retried
// by the SNS service (snshook sorts the answers).
package snssms

import (
	"context"
	"encoding/json"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snshook"
)

// Config configures a Webhook.
type Config = snshook.Config

// Webhook posts messages to the gateway; it implements sns.SMSSender.
type Webhook struct{ hook *snshook.Hook }

var _ sns.SMSSender = (*Webhook)(nil)

// New checks cfg and returns its Webhook.
func New(cfg Config) (*Webhook, error) {
	h, err := snshook.New("sms webhook", "Herald-SNS-SMS", cfg)
	if err != nil {
		return nil, err
	}
	return &Webhook{hook: h}, nil
}

// answer is what a gateway may answer.
type answer struct {
	OptedOut bool `json:"optedOut"`
}

// SendSMS posts m once.
func (w *Webhook) SendSMS(ctx context.Context, m sns.SMS) (bool, error) {
	raw, err := w.hook.Post(ctx, m)
	if err != nil {
		return false, err
	}
	var a answer
	_ = json.Unmarshal(raw, &a) // any other answer is a plain acceptance
	return a.OptedOut, nil
}
