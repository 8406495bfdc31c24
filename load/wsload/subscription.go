package wsload

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Subscription is one WebSocket connection to a Herald server with one
// live subscription, for a load generator that publishes on its own and
// only needs the deliveries (bench/scale's ws-fanout, with connections
// spread over several nodes). Its messages carry bodies made by Body.
type Subscription struct {
	s *subscriber
}

// Subscribe opens a connection to Herald's /v1/ws at server (an http:// or
// https:// base URL), subscribes it live to pattern and returns once the
// server has confirmed the subscription, all within timeout.
func Subscribe(ctx context.Context, server, pattern string, timeout time.Duration) (*Subscription, error) {
	if !strings.HasPrefix(server, "http://") && !strings.HasPrefix(server, "https://") {
		return nil, fmt.Errorf("server %q: want an http:// or https:// URL", server)
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("timeout %s: want more than 0", timeout)
	}
	cfg := Config{Server: strings.TrimSuffix(server, "/"), Protocol: ProtocolHerald}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := dial(ctx, cfg.wsURL())
	if err != nil {
		return nil, err
	}
	if err := subscribeLive(ctx, c, pattern); err != nil {
		c.CloseNow()
		return nil, err
	}
	return &Subscription{s: &subscriber{ws: c, proto: heraldProtocol{}}}, nil
}

// Read reads the connection's frames until it ends, handing got every
// message a frame carries: its number and publish time as Body wrote them
// (n is -1 for a frame that is not such a message) and when the frame was
// read. It reads into one buffer reused for every frame, with no timer
// per frame, as Run's connections do. It returns the error that ended the
// connection: the one Close causes, or the server's (its close code, say;
// websocket.CloseStatus reads it).
func (s *Subscription) Read(got func(n int, sent, received time.Time)) error {
	for {
		b, err := s.s.next()
		now := time.Now()
		if err != nil {
			return err
		}
		s.s.got, _ = s.s.proto.decode(b, s.s.got[:0])
		for _, d := range s.s.got {
			got(d.n, d.sent, now)
		}
	}
}

// Close ends the connection at once; a Read in progress returns.
func (s *Subscription) Close() { s.s.ws.CloseNow() }

// Body is what a message numbered n (0 or more) and published at sent
// carries, so that Read recognises its deliveries.
func Body(n int, sent time.Time) []byte { return body(n, sent) }
