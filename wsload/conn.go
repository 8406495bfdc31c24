package wsload

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	ws        *websocket.Conn
	seen      []uint64        // bitset of the message numbers received
	buf       []byte          // the frame being read
	latencies []time.Duration // of this connection's deliveries: no lock between two reads
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

// read records the connection's deliveries until the connection is closed:
// by the server (counted unless ctx has ended) or by the run at its end.
// It reads with a context that has no deadline, so the library arms no
// timer per frame, and into one buffer reused for every frame: the
// benchmark's client shares the server's cores, and its per-frame costs
// count in the latencies it reports.
func (s *subscriber) read(ctx context.Context, rec *recorder) {
	for {
		b, err := s.next()
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

// next reads one frame into s.buf.
func (s *subscriber) next() ([]byte, error) {
	_, r, err := s.ws.Reader(context.Background())
	if err != nil {
		return nil, err
	}
	s.buf = s.buf[:0]
	for {
		if len(s.buf) == cap(s.buf) {
			s.buf = append(s.buf, 0)[:len(s.buf)]
		}
		n, err := r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if err == io.EOF {
			return s.buf, nil
		}
		if err != nil {
			return nil, err
		}
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
	s.latencies = append(s.latencies, now.Sub(sent))
	rec.delivered.Add(1)
}

// collect adds the latencies of subs, whose readers have ended.
func (rec *recorder) collect(subs []*subscriber) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range subs {
		rec.latencies = append(rec.latencies, s.latencies...)
	}
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
