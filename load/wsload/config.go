// Package wsload measures a WebSocket fan-out: Herald's gateway
// (docs/websocket.md) or, for comparison, a Centrifugo server
// (Config.Protocol). It opens many connections, each with one live
// subscription, reads the server's memory per connection from its
// Prometheus /metrics, publishes messages through the server's HTTP API
// and records the latency of every delivery, from the start of the publish
// to the frame's arrival on each subscribed connection.
package wsload

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Config is what Run is told.
type Config struct {
	Server          string        // http:// or https:// base URL of the server
	PublishServer   string        // Herald: another node (of another data center, say) to publish through; default Server
	Protocol        string        // ProtocolHerald (default) or ProtocolCentrifugo
	APIKey          string        // Centrifugo: the server API key publishes send (X-API-Key)
	TokenSecret     string        // Centrifugo: HMAC secret of the connection JWTs; empty: connect without a token
	Connections     int           // WebSocket connections to open
	Patterns        int           // distinct patterns; connection i subscribes to pattern i % Patterns
	Messages        int           // messages to publish
	Rate            float64       // messages per second
	Timeout         time.Duration // longest connect+subscribe of one connection, and longest wait for deliveries after the last publish
	DialConcurrency int           // connections being opened at once (default 64)
	Run             string        // word unique to the run in its paths (default: random)
	Settle          time.Duration // pause before the second memory reading (default 1s; negative: none)
	HTTPClient      *http.Client  // for publishing and /metrics (default: a fresh client)
	Progress        io.Writer     // progress lines, or nil
}

// Validate reports a Config Run would refuse.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

func (c Config) withDefaults() (Config, error) {
	if !strings.HasPrefix(c.Server, "http://") && !strings.HasPrefix(c.Server, "https://") {
		return c, fmt.Errorf("server %q: want an http:// or https:// URL", c.Server)
	}
	switch {
	case c.Connections < 1:
		return c, fmt.Errorf("connections %d: want at least 1", c.Connections)
	case c.Patterns < 1 || c.Patterns > c.Connections:
		return c, fmt.Errorf("patterns %d: want 1..connections (%d)", c.Patterns, c.Connections)
	case c.Messages < 1:
		return c, fmt.Errorf("messages %d: want at least 1", c.Messages)
	case c.Rate <= 0:
		return c, fmt.Errorf("rate %g: want more than 0 messages per second", c.Rate)
	case c.Timeout <= 0:
		return c, fmt.Errorf("timeout %s: want more than 0", c.Timeout)
	case c.DialConcurrency < 0:
		return c, fmt.Errorf("dial concurrency %d: cannot be negative", c.DialConcurrency)
	}
	if c.Protocol == "" {
		c.Protocol = ProtocolHerald
	}
	if c.PublishServer != "" {
		if c.Protocol != ProtocolHerald {
			return c, fmt.Errorf("publish server: only with protocol %s", ProtocolHerald)
		}
		if !strings.HasPrefix(c.PublishServer, "http://") && !strings.HasPrefix(c.PublishServer, "https://") {
			return c, fmt.Errorf("publish server %q: want an http:// or https:// URL", c.PublishServer)
		}
	}
	c.PublishServer = strings.TrimSuffix(c.PublishServer, "/")
	if _, ok := protocols[c.Protocol]; !ok {
		return c, fmt.Errorf("protocol %q: want %s or %s", c.Protocol, ProtocolHerald, ProtocolCentrifugo)
	}
	c.Server = strings.TrimSuffix(c.Server, "/")
	if c.PublishServer == "" {
		c.PublishServer = c.Server
	}
	if c.DialConcurrency == 0 {
		c.DialConcurrency = 64
	}
	if c.Run == "" {
		c.Run = uuid.NewString()[:8]
	}
	if c.Settle == 0 {
		c.Settle = time.Second
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	}
	return c, nil
}

// proto is the protocol c names, Herald's when it names none.
func (c Config) proto() protocol {
	if p, ok := protocols[c.Protocol]; ok {
		return p
	}
	return protocols[ProtocolHerald]
}

// wsURL is the server's WebSocket address: /v1/ws for Herald.
func (c Config) wsURL() string {
	return "ws" + strings.TrimPrefix(c.Server, "http") + c.proto().wsPath()
}

// pattern is the k-th subscription pattern and path the path a message
// for it is published under (Herald); channel is the k-th channel
// (Centrifugo).
func (c Config) pattern(k int) string { return fmt.Sprintf("bench.%s.%d.#", c.Run, k) }
func (c Config) path(k int) string    { return fmt.Sprintf("bench.%s.%d.m", c.Run, k) }
func (c Config) channel(k int) string { return fmt.Sprintf("bench-%s-%d", c.Run, k) }
