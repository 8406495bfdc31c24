package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// wsQueueScenario sends to an SQS queue and consumes it through the
// WebSocket gateway: each consumer is one connection subscribed to the
// queue (subscribe_queue), which checks and acks every queue_message
// frame, and reconnects when the connection ends (Herald killed).
type wsQueueScenario struct {
	q sqsQueue
}

func (s *wsQueueScenario) uses() uses       { return uses{sqs: true} }
func (s *wsQueueScenario) subscribers() int { return 1 }

// heraldArgs lets the drill's connections in without a token (the
// default only on the embedded store).
func (s *wsQueueScenario) heraldArgs(*world) []string { return []string{"--ws-anonymous", "true"} }

func (s *wsQueueScenario) afterStop(context.Context, *scenarioRun) {}

func (s *wsQueueScenario) setup(ctx context.Context, r *scenarioRun) error {
	return s.q.create(ctx, r, r.prefix(), false)
}

func (s *wsQueueScenario) produce(ctx context.Context, r *scenarioRun, worker, n int) error {
	return s.q.send(ctx, r, worker, n)
}

func (s *wsQueueScenario) consume(ctx context.Context, r *scenarioRun, worker int, stop <-chan struct{}) {
	for !stopped(stop) && ctx.Err() == nil {
		if err := s.session(ctx, r, stop); err != nil {
			r.fail("websocket", err)
			if !sleep(ctx, stop, 200*time.Millisecond) {
				return
			}
		}
	}
}

// wsFrame is the part of a server frame the consumer reads.
type wsFrame struct {
	Type          string `json:"type"`
	ID            string `json:"id"`
	Queue         string `json:"queue"`
	ReceiptHandle string `json:"receipt_handle"`
	Body          string `json:"body"`
	Code          string `json:"code"`
	Message       any    `json:"message"`
}

// session runs one connection until it fails or, after stop, until its
// unsubscribe_queue is answered: the frames pushed before that answer are
// still checked and acked, so no message is left unseen in the socket.
func (s *wsQueueScenario) session(ctx context.Context, r *scenarioRun, stop <-chan struct{}) error {
	wsURL := "ws" + strings.TrimPrefix(r.url, "http") + "/v1/ws"
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, _, err := websocket.Dial(dctx, wsURL, &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled,
		HTTPClient: &http.Client{Transport: &http.Transport{Proxy: nil}}})
	cancel()
	if err != nil {
		return err
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	write := func(v any) error {
		b, _ := json.Marshal(v)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return c.Write(wctx, websocket.MessageText, b)
	}
	vt := int(r.cfg.Visibility / time.Second)
	if err := write(map[string]any{"type": "subscribe_queue", "id": "q", "queue": s.q.url, "visibility_timeout": vt, "max_in_flight": 10}); err != nil {
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-stop:
			write(map[string]any{"type": "unsubscribe_queue", "id": "u", "queue": s.q.url})
			select {
			case <-time.After(5 * time.Second):
				c.CloseNow()
			case <-done:
			}
		case <-done:
		}
	}()
	acks := 0
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			if stopped(stop) {
				return nil
			}
			return err
		}
		arrived := time.Now()
		var f wsFrame
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("a frame that is not JSON: %s", clip(string(data), 100))
		}
		switch f.Type {
		case "queue_message":
			r.received(f.Body, 0, arrived)
			acks++
			// The ack names the queue as subscribe_queue did: the frame's
			// queue member is a URL on host "localhost", which the
			// gateway does not accept in an ack.
			if err := write(map[string]any{"type": "ack", "id": "a" + strconv.Itoa(acks), "queue": s.q.url, "receipt_handle": f.ReceiptHandle}); err != nil {
				return err
			}
		case "unsubscribed":
			c.Close(websocket.StatusNormalClosure, "")
			return nil
		case "error":
			err := fmt.Errorf("error frame for %s: %s: %v", f.ID, f.Code, f.Message)
			if f.ID == "q" {
				return err // the subscription failed (Herald still starting): reconnect
			}
			r.fail("ack", err)
		case "subscribed", "acked":
		default:
			r.fail("websocket", errors.New("unexpected frame "+clip(string(data), 100)))
		}
	}
}

func (s *wsQueueScenario) finish(*scenarioRun) {}

func (s *wsQueueScenario) teardown(ctx context.Context, r *scenarioRun) { s.q.remove(ctx) }
