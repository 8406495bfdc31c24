// Package snspush hands SNS mobile pushes of platforms other than HERALD
// (APNS, GCM, ...) to a push gateway of your own through HTTP: each push is
// one POST of its JSON document (sns.Push) to the configured URL. 2xx
// means delivered; 4xx other than 429 is a permanent failure, and a 4xx
// whose JSON body is {"invalidToken": true} also says the device token is
// no longer valid (Herald then disables the endpoint, as AWS does); 5xx,
// 429, timeouts and connection errors are retried by the SNS service.
package snspush

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

// Config configures a Gateway.
type Config struct {
	URL     string        // http or https
	Timeout time.Duration // of one POST (15 s)
	Client  *http.Client  // nil: one with Timeout that follows no redirects
}

// Gateway posts pushes to the push gateway; it implements sns.PushGateway.
type Gateway struct {
	url    string
	client *http.Client
}

var _ sns.PushGateway = (*Gateway)(nil)

// New checks cfg and returns its Gateway.
func New(cfg Config) (*Gateway, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("push gateway %q: want an http or https URL", cfg.URL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	c := cfg.Client
	if c == nil {
		c = &http.Client{Timeout: cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return &Gateway{url: cfg.URL, client: c}, nil
}

// refusal is what a gateway may answer with a 4xx.
type refusal struct {
	InvalidToken bool `json:"invalidToken"`
}

// SendPush posts p once.
func (g *Gateway) SendPush(ctx context.Context, p sns.Push) (invalidToken bool, err error) {
	body, err := json.Marshal(p)
	if err != nil {
		return false, sns.Permanent(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.url, bytes.NewReader(body))
	if err != nil {
		return false, sns.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Herald-SNS-Push")
	resp, err := g.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return false, nil
	case code >= 400 && code < 500 && code != http.StatusTooManyRequests:
		var r refusal
		_ = json.Unmarshal(raw, &r) // any other body is a plain refusal
		return r.InvalidToken, sns.Permanent(fmt.Errorf("push gateway answered %s", resp.Status))
	default:
		return false, fmt.Errorf("push gateway answered %s", resp.Status)
	}
}
