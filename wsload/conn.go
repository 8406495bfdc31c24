package wsload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// readLimit bounds one server frame: the benchmark's messages are tiny, and
// a small limit keeps many connections cheap.
const readLimit = 64 << 10

// frame is the part of a server frame the benchmark reads. Message stays
// raw: in an error frame it is a string, in a message frame an object.
type frame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Code    string          `json:"code"`
	Message json.RawMessage `json:"message"`
}

// subscriber is one connection with its subscription.
type subscriber struct {
	ws   *websocket.Conn
	seen []uint64 // bitset of the message numbers received
}

// recorder collects the deliveries of every connection.
type recorder struct {
	messages int

	delivered  atomic.Int64
	duplicates atomic.Int64
	foreign    atomic.Int64 // frames that are not one of the run's messages
	closed     atomic.Int64 // connections the server ended early

	mu        sync.Mutex
	latencies []time.Duration
	closes    map[string]int // why connections ended early
}

func newRecorder(messages, expect int) *recorder {
	return &recorder{messages: messages, latencies: make([]time.Duration, 0, expect), closes: map[string]int{}}
}

// connect opens a connection and subscribes it (live) to pattern.
func connect(ctx context.Context, url, pattern string, timeout time.Duration) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(readLimit)
	sub, _ := json.Marshal(map[string]string{"type": "subscribe", "id": "s", "pattern": pattern, "mode": "live"})
	if err := c.Write(ctx, websocket.MessageText, sub); err != nil {
		c.CloseNow()
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			c.CloseNow()
			return nil, fmt.Errorf("subscribe: %w", err)
		}
		var f frame
		if err := json.Unmarshal(b, &f); err != nil {
			c.CloseNow()
			return nil, fmt.Errorf("subscribe: server frame %.100q: %w", b, err)
		}
		switch {
		case f.Type == "subscribed" && f.ID == "s":
			return c, nil
		case f.Type == "error":
			c.CloseNow()
			return nil, fmt.Errorf("subscribe: %s: %s", f.Code, f.Message)
		}
	}
}

// read records the connection's deliveries until ctx ends or the server
// closes the connection.
func (s *subscriber) read(ctx context.Context, rec *recorder) {
	for {
		_, b, err := s.ws.Read(ctx)
		now := time.Now()
		if err != nil {
			if ctx.Err() == nil {
				rec.closed.Add(1)
				rec.closedWith(err)
			}
			return
		}
		n, sent, ok := decodeDelivery(b)
		if !ok {
			n = -1
		}
		s.record(rec, n, sent, now)
	}
}

// record counts message n, sent at sent and received at now; n outside the
// run's messages counts as a foreign frame.
func (s *subscriber) record(rec *recorder, n int, sent, now time.Time) {
	if n < 0 || n >= rec.messages {
		rec.foreign.Add(1)
		return
	}
	if s.seen[n/64]&(1<<(n%64)) != 0 {
		rec.duplicates.Add(1)
		return
	}
	s.seen[n/64] |= 1 << (n % 64)
	rec.delivered.Add(1)
	rec.mu.Lock()
	rec.latencies = append(rec.latencies, now.Sub(sent))
	rec.mu.Unlock()
}

func (rec *recorder) closedWith(err error) {
	why := err.Error()
	if code := websocket.CloseStatus(err); code != -1 {
		why = "close " + strconv.Itoa(int(code))
	}
	rec.mu.Lock()
	rec.closes[why]++
	rec.mu.Unlock()
}

// decodeDelivery returns the message number and publish time carried by a
// message frame.
func decodeDelivery(b []byte) (n int, sent time.Time, ok bool) {
	var f frame
	if json.Unmarshal(b, &f) != nil || f.Type != "message" {
		return 0, time.Time{}, false
	}
	var m struct {
		Body []byte `json:"body"`
	}
	if json.Unmarshal(f.Message, &m) != nil {
		return 0, time.Time{}, false
	}
	return parseBody(m.Body)
}

// body is what message n published at sent carries.
func body(n int, sent time.Time) []byte {
	return []byte(strconv.Itoa(n) + " " + strconv.FormatInt(sent.UnixNano(), 10))
}

func parseBody(b []byte) (n int, sent time.Time, ok bool) {
	num, ts, found := strings.Cut(string(b), " ")
	if !found {
		return 0, time.Time{}, false
	}
	n, err1 := strconv.Atoi(num)
	ns, err2 := strconv.ParseInt(ts, 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, time.Time{}, false
	}
	return n, time.Unix(0, ns), true
}
