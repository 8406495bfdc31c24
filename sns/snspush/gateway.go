// Package snspush hands SNS mobile pushes of platforms other than HERALD
// (APNS, GCM, ...) to a push gateway of your own through HTTP: each push is
// one POST of its JSON document (sns.Push) to the configured URL. 2xx
// means delivered; 4xx other than 429 is a permanent failure, and a 4xx
// whose JSON body is {"invalidToken": true} also says the device token is
// no longer valid (Herald then disables the endpoint, as AWS does); 5xx,
// 429, timeouts and connection errors are retried by the SNS service
// (snshook sorts the answers).
package snspush

import (
	"context"
	"encoding/json"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snshook"
)

// Config configures a Gateway.
type Config = snshook.Config

// Gateway posts pushes to the push gateway; it implements sns.PushGateway.
type Gateway struct{ hook *snshook.Hook }

var _ sns.PushGateway = (*Gateway)(nil)

// New checks cfg and returns its Gateway.
func New(cfg Config) (*Gateway, error) {
	h, err := snshook.New("push gateway", "Herald-SNS-Push", cfg)
	if err != nil {
		return nil, err
	}
	return &Gateway{hook: h}, nil
}

// refusal is what a gateway may answer with a 4xx.
type refusal struct {
	InvalidToken bool `json:"invalidToken"`
}

// SendPush posts p once.
func (g *Gateway) SendPush(ctx context.Context, p sns.Push) (invalidToken bool, err error) {
	raw, err := g.hook.Post(ctx, p)
	if err != nil && sns.IsPermanent(err) {
		var r refusal
		_ = json.Unmarshal(raw, &r) // any other body is a plain refusal
		return r.InvalidToken, err
	}
	return false, err
}
