package wsload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"
)

// centrifugoProtocol speaks Centrifugo's client protocol (version 2, JSON)
// on /connection/websocket and publishes through its server HTTP API,
// POST /api/publish. Commands carry an id their reply repeats; several
// replies or pushes may share a frame, one JSON object a line; an empty
// object from the server is a ping, answered with an empty object.
type centrifugoProtocol struct{}

// Ids of the two commands a connection sends.
const (
	centrifugoConnectID   = 1
	centrifugoSubscribeID = 2
)

// centrifugoError is an error in a reply or in a server API answer.
type centrifugoError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// centrifugoReply is the part of a reply the benchmark reads.
type centrifugoReply struct {
	ID    uint32           `json:"id"`
	Error *centrifugoError `json:"error"`
}

func (centrifugoProtocol) wsPath() string { return "/connection/websocket" }

// subscribe connects (with a token when cfg.TokenSecret is set) and
// subscribes to the connection's channel, one command at a time.
func (centrifugoProtocol) subscribe(ctx context.Context, ws *websocket.Conn, cfg Config, i int) error {
	token := ""
	if cfg.TokenSecret != "" {
		var err error
		if token, err = centrifugoToken(cfg.TokenSecret, "bench-"+strconv.Itoa(i), time.Now().Add(time.Hour)); err != nil {
			return fmt.Errorf("connect: %w", err)
		}
	}
	if err := centrifugoCall(ctx, ws, centrifugoConnectID, centrifugoConnect(centrifugoConnectID, token)); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	cmd := centrifugoSubscribe(centrifugoSubscribeID, cfg.channel(i%cfg.Patterns))
	if err := centrifugoCall(ctx, ws, centrifugoSubscribeID, cmd); err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	return nil
}

// centrifugoCall sends cmd and waits for the reply of id, answering pings
// meanwhile.
func centrifugoCall(ctx context.Context, ws *websocket.Conn, id uint32, cmd []byte) error {
	if err := ws.Write(ctx, websocket.MessageText, cmd); err != nil {
		return err
	}
	for {
		_, frame, err := ws.Read(ctx)
		if err != nil {
			return err
		}
		for _, line := range bytes.Split(frame, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if string(line) == "{}" {
				if err := ws.Write(ctx, websocket.MessageText, pongFrame); err != nil {
					return err
				}
				continue
			}
			var r centrifugoReply
			if err := json.Unmarshal(line, &r); err != nil {
				return fmt.Errorf("server frame %.100q: %w", line, err)
			}
			if r.ID != id {
				continue
			}
			if r.Error != nil {
				return fmt.Errorf("error %d: %s", r.Error.Code, r.Error.Message)
			}
			return nil
		}
	}
}

// centrifugoToken is a connection JWT for user, signed with HS256.
func centrifugoToken(secret, user string, expires time.Time) (string, error) {
	claims := jwt.RegisteredClaims{Subject: user, ExpiresAt: jwt.NewNumericDate(expires)}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
}

// centrifugoConnect is the connect command; an empty token is left out,
// for a server that lets connections in without one.
func centrifugoConnect(id uint32, token string) []byte {
	type connect struct {
		Token string `json:"token,omitempty"`
		Name  string `json:"name"`
	}
	b, _ := json.Marshal(struct {
		ID      uint32  `json:"id"`
		Connect connect `json:"connect"`
	}{id, connect{Token: token, Name: "herald-bench"}})
	return b
}

// centrifugoSubscribe is the subscribe command to channel.
func centrifugoSubscribe(id uint32, channel string) []byte {
	type subscribe struct {
		Channel string `json:"channel"`
	}
	b, _ := json.Marshal(struct {
		ID        uint32    `json:"id"`
		Subscribe subscribe `json:"subscribe"`
	}{id, subscribe{channel}})
	return b
}

// centrifugoPublish is the server API's publish request: body becomes the
// publication's data, a JSON string.
func centrifugoPublish(channel string, body []byte) []byte {
	b, _ := json.Marshal(struct {
		Channel string `json:"channel"`
		Data    string `json:"data"`
	}{channel, string(body)})
	return b
}

// decode reads every line of a frame: publications of the run's messages,
// pings (empty objects), anything else counted as foreign.
func (centrifugoProtocol) decode(frame []byte, into []delivery) ([]delivery, bool) {
	pong := false
	for len(frame) > 0 {
		line := frame
		if i := bytes.IndexByte(frame, '\n'); i >= 0 {
			line, frame = frame[:i], frame[i+1:]
		} else {
			frame = nil
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
		case string(line) == "{}":
			pong = true
		default:
			d := foreign
			if n, sent, ok := decodePublication(line); ok {
				d = delivery{n: n, sent: sent}
			}
			into = append(into, d)
		}
	}
	return into, pong
}

// decodePublication returns the message number and publish time of a
// publication push, {"push":{"channel":...,"pub":{"data":"N T",...}}}. It
// scans rather than decodes, as decodeDelivery does: the data the
// benchmark publishes is a string without escapes.
func decodePublication(line []byte) (n int, sent time.Time, ok bool) {
	if !bytes.HasPrefix(line, []byte(`{"push":`)) {
		return 0, time.Time{}, false
	}
	i := bytes.Index(line, []byte(`"pub":`))
	if i < 0 {
		return 0, time.Time{}, false
	}
	line = line[i:]
	j := bytes.Index(line, []byte(`"data":"`))
	if j < 0 {
		return 0, time.Time{}, false
	}
	data := line[j+len(`"data":"`):]
	end := bytes.IndexByte(data, '"')
	if end < 0 {
		return 0, time.Time{}, false
	}
	return parseBody(data[:end])
}

// publisher posts each message to the server API's /api/publish.
func (centrifugoProtocol) publisher(cfg Config) func(context.Context, int, []byte) error {
	url := cfg.Server + "/api/publish"
	return func(ctx context.Context, k int, body []byte) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(centrifugoPublish(cfg.channel(k), body)))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if cfg.APIKey != "" {
			req.Header.Set("X-API-Key", cfg.APIKey)
		}
		resp, err := cfg.HTTPClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("publish: HTTP %d: %.200s", resp.StatusCode, answer)
		}
		var r struct {
			Error *centrifugoError `json:"error"`
		}
		if err := json.Unmarshal(answer, &r); err != nil {
			return fmt.Errorf("publish: answer %.200q: %w", answer, err)
		}
		if r.Error != nil {
			return fmt.Errorf("publish: error %d: %s", r.Error.Code, r.Error.Message)
		}
		return nil
	}
}
