package main

import (
	"flag"
	"fmt"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snspush"
)

// registerPush adds --push-gateway-url: where SNS posts mobile pushes of
// platforms other than HERALD (docs/sns.md, "Mobile push").
func (c *snsNotifyConfig) registerPush(fs *flag.FlagSet) {
	fs.StringVar(&c.pushGatewayURL, "push-gateway-url", "", "URL SNS posts each mobile push of the APNS, GCM and other non-HERALD platforms to as JSON; empty: Publish to their endpoints is refused (HERALD endpoints need none)")
}

// pushGateway returns the PushGateway the flag configures (nil when not
// configured).
func (c *snsNotifyConfig) pushGateway() (sns.PushGateway, error) {
	if c.pushGatewayURL == "" {
		return nil, nil
	}
	g, err := snspush.New(snspush.Config{URL: c.pushGatewayURL})
	if err != nil {
		return nil, fmt.Errorf("--push-gateway-url: %w", err)
	}
	return g, nil
}
