package wsload

import (
	"context"
	"time"

	"github.com/coder/websocket"
)

// The protocols Config.Protocol names.
const (
	ProtocolHerald     = "herald"     // Herald's /v1/ws, publishing with POST /v1/messages
	ProtocolCentrifugo = "centrifugo" // Centrifugo's JSON protocol, publishing with its server API
)

// protocol is what differs between the servers the benchmark measures: the
// WebSocket path, how a connection subscribes, what a delivery looks like
// and how a message is published.
type protocol interface {
	// wsPath is the path of the WebSocket endpoint.
	wsPath() string
	// subscribe makes connection i, just opened, a live subscriber of
	// its pattern or channel (i mod Patterns) and returns once the server
	// has said so.
	subscribe(ctx context.Context, ws *websocket.Conn, cfg Config, i int) error
	// decode appends the deliveries a server frame carries to into (n
	// negative for anything that is not one of the run's messages) and
	// reports whether the frame asks for a pong, which is pongFrame.
	decode(frame []byte, into []delivery) (out []delivery, pong bool)
	// publisher returns the function publishing body to pattern or
	// channel k.
	publisher(cfg Config) func(ctx context.Context, k int, body []byte) error
}

// delivery is one message received: its number and when it was published.
type delivery struct {
	n    int
	sent time.Time
}

// foreign is a frame, or part of one, that carries none of the run's messages.
var foreign = delivery{n: -1}

var protocols = map[string]protocol{
	ProtocolHerald:     heraldProtocol{},
	ProtocolCentrifugo: centrifugoProtocol{},
}

// pongFrame answers a Centrifugo ping (an empty command).
var pongFrame = []byte("{}")
