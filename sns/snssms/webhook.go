// Package snssms hands SNS text messages to an SMS gateway through an HTTP
// webhook: each message is one POST of its JSON document (sns.SMS) to the
// configured URL. 2xx means accepted; an answer {"optedOut": true} means
// the recipient opted out (Herald records it); 4xx other than 429 is a
// permanent failure; 5xx, 429, timeouts and connection errors are retried
// by the SNS service.
package snssms

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/heraldmq/herald/sns"
)

// Config configures a Webhook.
type Config struct {
	URL     string        // http or https
	Timeout time.Duration // of one POST (15 s)
	Client  *http.Client  // nil: one with Timeout, no redirects
}

// Webhook posts messages to the gateway; it implements sns.SMSSender.
type Webhook struct {
	url    string
	client *http.Client
}

var _ sns.SMSSender = (*Webhook)(nil)

// New checks cfg and returns its Webhook.
func New(cfg Config) (*Webhook, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("sms webhook %q: want an http or https URL", cfg.URL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	c := cfg.Client
	if c == nil {
		c = &http.Client{Timeout: cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return &Webhook{url: cfg.URL, client: c}, nil
}

// answer is what a gateway may answer.
type answer struct {
	OptedOut bool `json:"optedOut"`
}

// SendSMS posts m once.
func (w *Webhook) SendSMS(ctx context.Context, m sns.SMS) (bool, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return false, sns.Permanent(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return false, sns.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Herald-SNS-SMS")
	resp, err := w.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		var a answer
		_ = json.Unmarshal(raw, &a) // any other answer is a plain acceptance
		return a.OptedOut, nil
	case code >= 400 && code < 500 && code != http.StatusTooManyRequests:
		return false, sns.Permanent(fmt.Errorf("sms webhook answered %s", resp.Status))
	default:
		return false, fmt.Errorf("sms webhook answered %s", resp.Status)
	}
}
