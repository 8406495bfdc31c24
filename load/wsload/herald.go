package wsload

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/coder/websocket"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
)

// heraldProtocol speaks Herald's WebSocket protocol (docs/websocket.md).
type heraldProtocol struct{}

// heraldFrame is the part of a Herald frame the benchmark reads. Message
// stays raw: in an error frame it is a string, in a message frame an
// object.
type heraldFrame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Code    string          `json:"code"`
	Message json.RawMessage `json:"message"`
}

func (heraldProtocol) wsPath() string { return "/v1/ws" }

// subscribe sends a live subscription to the connection's pattern and
// waits for the server's subscribed frame.
func (heraldProtocol) subscribe(ctx context.Context, ws *websocket.Conn, cfg Config, i int) error {
	return subscribeLive(ctx, ws, cfg.pattern(i%cfg.Patterns))
}

// subscribeLive sends a live subscription to pattern and waits for the
// server's subscribed frame.
func subscribeLive(ctx context.Context, ws *websocket.Conn, pattern string) error {
	sub, _ := json.Marshal(map[string]string{"type": "subscribe", "id": "s", "pattern": pattern, "mode": "live"})
	if err := ws.Write(ctx, websocket.MessageText, sub); err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return fmt.Errorf("subscribe: %w", err)
		}
		var f heraldFrame
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("subscribe: server frame %.100q: %w", b, err)
		}
		switch {
		case f.Type == "subscribed" && f.ID == "s":
			return nil
		case f.Type == "error":
			return fmt.Errorf("subscribe: %s: %s", f.Code, f.Message)
		}
	}
}

func (heraldProtocol) decode(frame []byte, into []delivery) ([]delivery, bool) {
	d := foreign
	if n, sent, ok := decodeDelivery(frame); ok {
		d = delivery{n: n, sent: sent}
	}
	return append(into, d), false
}

// decodeDelivery returns the message number and publish time carried by a
// live message frame. It scans instead of decoding the JSON: the frames
// are the server's (a "message" frame starts with its type), and the
// benchmark's messages carry a body and a metadata object with no member
// named body, so the first "body" member is the message's.
func decodeDelivery(b []byte) (n int, sent time.Time, ok bool) {
	if !bytes.HasPrefix(b, []byte(`{"type":"message"`)) {
		return 0, time.Time{}, false
	}
	i := bytes.Index(b, []byte(`"body":"`))
	if i < 0 {
		return 0, time.Time{}, false
	}
	enc := b[i+len(`"body":"`):]
	end := bytes.IndexByte(enc, '"')
	var raw [64]byte
	if end < 0 || base64.StdEncoding.DecodedLen(end) > len(raw) {
		return 0, time.Time{}, false
	}
	m, err := base64.StdEncoding.Decode(raw[:], enc[:end])
	if err != nil {
		return 0, time.Time{}, false
	}
	return parseBody(raw[:m])
}

// publisher puts each message through POST /v1/messages of the publish
// server under pattern k's path.
func (heraldProtocol) publisher(cfg Config) func(context.Context, int, []byte) error {
	c := client.New(cfg.PublishServer, cfg.HTTPClient)
	return func(ctx context.Context, k int, body []byte) error {
		_, _, err := c.Put(ctx, api.PutRequest{
			Metadata: json.RawMessage(`{"paths":["` + cfg.path(k) + `"]}`),
			Body:     body,
		})
		return err
	}
}
