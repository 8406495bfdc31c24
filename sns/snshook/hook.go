// Package snshook posts JSON documents to an operator's HTTP hook (the SMS
// webhook, the mobile push gateway) and sorts the answers as SNS delivery
// needs them: 2xx accepted; 4xx other than 429 a permanent failure
// (sns.Permanent); 5xx, 429, timeouts and connection errors worth a retry.
// A hook's answer body (at most 64 KiB) goes back to the caller, which
// reads what its protocol lets a hook say there.
package snshook

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

// Config configures a Hook.
type Config struct {
	URL     string        // http or https
	Timeout time.Duration // of one POST (15 s)
	Client  *http.Client  // nil: one with Timeout that follows no redirects
}

// maxAnswer bounds the answer body read.
const maxAnswer = 64 << 10

// Hook posts documents to one URL.
type Hook struct {
	name, url, agent string
	client           *http.Client
}

// New checks cfg and returns its Hook; name ("sms webhook") prefixes its
// errors, agent is its User-Agent.
func New(name, agent string, cfg Config) (*Hook, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s %q: want an http or https URL", name, cfg.URL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	c := cfg.Client
	if c == nil {
		c = &http.Client{Timeout: cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return &Hook{name: name, url: cfg.URL, agent: agent, client: c}, nil
}

// Post posts doc as JSON once and returns the answer's body. err is nil
// for a 2xx, an sns.Permanent error (with the body still returned) for a
// 4xx other than 429, and a plain error otherwise.
func (h *Hook) Post(ctx context.Context, doc any) (answer []byte, err error) {
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, sns.Permanent(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, sns.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", h.agent)
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return raw, nil
	case code >= 400 && code < 500 && code != http.StatusTooManyRequests:
		return raw, sns.Permanent(fmt.Errorf("%s answered %s", h.name, resp.Status))
	default:
		return nil, fmt.Errorf("%s answered %s", h.name, resp.Status)
	}
}
