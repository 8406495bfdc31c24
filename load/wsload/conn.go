package wsload

import (
	"context"
	"errors"
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

// subscriber is one connection with its subscription.
type subscriber struct {
	ws        *websocket.Conn
	proto     protocol
	seen      []uint64        // bitset of the message numbers received
	buf       []byte          // the frame being read
	got       []delivery      // the deliveries of the frame being read
	latencies []time.Duration // of this connection's deliveries: no lock between two reads
	numbers   []int32         // the message of each of latencies
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
	byMessage [][]time.Duration // latencies by message number
	closes    map[string]int    // why connections ended early
}

func newRecorder(messages, expect int) *recorder {
	return &recorder{messages: messages, latencies: make([]time.Duration, 0, expect),
		byMessage: make([][]time.Duration, messages), closes: map[string]int{}}
}

// connect opens connection i and subscribes it (live) to its pattern or
// channel.
func connect(ctx context.Context, cfg Config, url string, i int) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	c, err := dial(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := cfg.proto().subscribe(ctx, c, cfg, i); err != nil {
		c.CloseNow()
		return nil, err
	}
	return c, nil
}

// dial opens a WebSocket connection to url, uncompressed, reading frames of
// up to readLimit bytes.
func dial(ctx context.Context, url string) (*websocket.Conn, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(readLimit)
	return c, nil
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
		var pong bool
		s.got, pong = s.proto.decode(b, s.got[:0])
		for _, d := range s.got {
			s.record(rec, d.n, d.sent, now)
		}
		if pong {
			// A failed pong ends the connection, which the next read reports.
			_ = s.ws.Write(ctx, websocket.MessageText, pongFrame)
		}
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
	s.numbers = append(s.numbers, int32(n))
	rec.delivered.Add(1)
}

// collect adds the latencies of subs, whose readers have ended.
func (rec *recorder) collect(subs []*subscriber) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range subs {
		rec.latencies = append(rec.latencies, s.latencies...)
		for i, n := range s.numbers {
			rec.byMessage[n] = append(rec.byMessage[n], s.latencies[i])
		}
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
