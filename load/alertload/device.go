package alertload

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// A device is one set-top box's WebSocket: subscribed to its own queue
// (subscribe_queue), acking every queue_message it gets.

// frame is the part of a server frame a device reads.
type frame struct {
	Type          string `json:"type"`
	ID            string `json:"id"`
	Code          string `json:"code"`
	Message       any    `json:"message"`
	Body          string `json:"body"`
	ReceiptHandle string `json:"receipt_handle"`
}

// arrivals records, per alert, the devices that got it over a WebSocket
// and how long after its publish.
type arrivals struct {
	mu        sync.Mutex
	got       []map[int]int // per alert: device -> frames
	latencies [][]time.Duration
	published []time.Time // per alert, when its Publish call began
	other     int         // frames that were no alert of this run
	closed    int         // connections the server ended
	firstErr  string
}

func newArrivals(alerts int) *arrivals {
	a := &arrivals{got: make([]map[int]int, alerts), latencies: make([][]time.Duration, alerts), published: make([]time.Time, alerts)}
	for i := range a.got {
		a.got[i] = map[int]int{}
	}
	return a
}

func (a *arrivals) setPublished(n int, t time.Time) {
	a.mu.Lock()
	a.published[n] = t
	a.mu.Unlock()
}

func (a *arrivals) record(device int, body string, now time.Time) {
	n, _, ok := parseAlert(body)
	a.mu.Lock()
	defer a.mu.Unlock()
	if !ok || n >= len(a.got) {
		a.other++
		return
	}
	a.got[n][device]++
	if a.got[n][device] == 1 && !a.published[n].IsZero() {
		a.latencies[n] = append(a.latencies[n], now.Sub(a.published[n]))
	}
}

// count returns how many devices got alert n.
func (a *arrivals) count(n int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.got[n])
}

func (a *arrivals) failed(err error) {
	a.mu.Lock()
	a.closed++
	if a.firstErr == "" {
		a.firstErr = err.Error()
	}
	a.mu.Unlock()
}

// alertBody is the text of alert n, published at t.
func alertBody(prefix string, n int, t time.Time) string {
	return fmt.Sprintf("alert %d %d %s", n, t.UnixNano(), prefix)
}

func parseAlert(body string) (n int, at time.Time, ok bool) {
	f := strings.Fields(body)
	if len(f) < 3 || f[0] != "alert" {
		return 0, time.Time{}, false
	}
	n, err1 := strconv.Atoi(f[1])
	ns, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || n < 0 {
		return 0, time.Time{}, false
	}
	return n, time.Unix(0, ns), true
}

// device is one open WebSocket.
type device struct {
	i     int
	queue string
	ws    *websocket.Conn
}

// connectDevice opens device i's WebSocket and subscribes it to its queue.
func connectDevice(ctx context.Context, wsURL string, i int, queue string) (*device, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(1 << 20)
	sub, _ := json.Marshal(map[string]any{"type": "subscribe_queue", "id": "q", "queue": queue, "max_in_flight": 10})
	if err := ws.Write(ctx, websocket.MessageText, sub); err != nil {
		ws.CloseNow()
		return nil, err
	}
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			ws.CloseNow()
			return nil, err
		}
		var f frame
		if err := json.Unmarshal(b, &f); err != nil {
			ws.CloseNow()
			return nil, fmt.Errorf("server frame %.100q: %w", b, err)
		}
		switch {
		case f.Type == "subscribed" && f.ID == "q":
			return &device{i: i, queue: queue, ws: ws}, nil
		case f.Type == "error":
			ws.CloseNow()
			return nil, fmt.Errorf("subscribe_queue %s: %s: %v", queue, f.Code, f.Message)
		}
	}
}

// read records the device's queue messages and acks each, until the
// connection ends (reported unless ctx has ended).
func (d *device) read(ctx context.Context, rec *arrivals) {
	acks := 0
	for {
		_, b, err := d.ws.Read(ctx)
		now := time.Now()
		if err != nil {
			if ctx.Err() == nil {
				rec.failed(err)
			}
			return
		}
		var f frame
		if json.Unmarshal(b, &f) != nil || f.Type != "queue_message" {
			continue
		}
		rec.record(d.i, f.Body, now)
		acks++
		ack, _ := json.Marshal(map[string]string{"type": "ack", "id": "a" + strconv.Itoa(acks), "queue": d.queue, "receipt_handle": f.ReceiptHandle})
		if err := d.ws.Write(ctx, websocket.MessageText, ack); err != nil {
			if ctx.Err() == nil {
				rec.failed(err)
			}
			return
		}
	}
}
