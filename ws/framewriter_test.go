package ws

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// framePair is a server connection upgraded as the Handler upgrades one
// (its frameWriter under the library) and a real client connected to it.
type framePair struct {
	server *websocket.Conn
	fw     *frameWriter
	client *websocket.Conn
}

func newFramePair(t *testing.T) *framePair {
	t.Helper()
	url, accepted := frameServer(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	client.SetReadLimit(1 << 20)
	p := <-accepted
	p.client = client
	t.Cleanup(func() { client.CloseNow(); p.server.CloseNow() })
	return p
}

// frameServer serves one upgrade at the returned URL and hands the server
// side over; beneath says whether it writes through a frameWriter (as the
// Handler does) or as the library alone would, over net/http's own buffers
// (then fw is nil).
func frameServer(tb testing.TB, beneath bool) (string, <-chan *framePair) {
	tb.Helper()
	accepted := make(chan *framePair, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uw := &upgradeWriter{ResponseWriter: w, readSize: DefaultReadBufferBytes}
		var rw http.ResponseWriter = uw
		if !beneath {
			rw = w
		}
		c, err := websocket.Accept(rw, r, nil)
		if err != nil {
			tb.Errorf("accept: %v", err)
			return
		}
		accepted <- &framePair{server: c, fw: uw.fw}
	}))
	tb.Cleanup(srv.Close)
	return srv.URL, accepted
}

// newRawFramePair is newFramePair with a client speaking raw TCP, which
// has read the upgrade's answer from br.
func newRawFramePair(tb testing.TB, beneath bool) (*framePair, net.Conn, *bufio.Reader) {
	tb.Helper()
	url, accepted := frameServer(tb, beneath)
	raw, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		tb.Fatal(err)
	}
	fmt.Fprintf(raw, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	br := bufio.NewReader(raw)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		tb.Fatalf("upgrade: %v %v", resp, err)
	}
	p := <-accepted
	tb.Cleanup(func() { p.server.CloseNow() })
	tb.Cleanup(func() { raw.Close() }) // first: ends a server's wait for an answer to its close
	return p, raw, br
}

// readText reads one message from the client's side and requires a text
// frame.
func (p *framePair) readText(t *testing.T) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, b, err := p.client.Read(ctx)
	if err != nil {
		t.Fatalf("client read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("message type %v, want text", typ)
	}
	return b
}

// Frames written beneath the library reach a real client whole, at every
// length encoding of RFC 6455 (7-bit, 16-bit, 64-bit), whether gathered
// into one write or written from their parts.
func TestTextFramesReachAClient(t *testing.T) {
	p := newFramePair(t)
	sizes := []int{0, 1, 125, 126, 127, 65535, 65536, 70000}
	payload := func(n int) []byte { return bytes.Repeat([]byte{'a' + byte(n%26)}, n) }

	var batch []byte
	for _, n := range sizes {
		batch = append(appendTextHeader(batch, n), payload(n)...)
	}
	if err := p.fw.writeFrames(batch); err != nil {
		t.Fatal(err)
	}
	for _, n := range sizes {
		if got := p.readText(t); !bytes.Equal(got, payload(n)) {
			t.Fatalf("gathered frame of %d bytes: got %d bytes", n, len(got))
		}
	}
	for _, n := range sizes {
		body, suffix := payload(n), []byte(fmt.Sprintf("|%d", n))
		if err := p.fw.writeLargeFrame(body, suffix); err != nil {
			t.Fatal(err)
		}
		if got, want := p.readText(t), append(body, suffix...); !bytes.Equal(got, want) {
			t.Fatalf("frame of %d+%d bytes from its parts: got %d bytes", n, len(suffix), len(got))
		}
	}
}

// The header is RFC 6455's for a final, unmasked text frame.
func TestAppendTextHeader(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []byte
	}{
		{0, []byte{0x81, 0}},
		{125, []byte{0x81, 125}},
		{126, []byte{0x81, 126, 0, 126}},
		{65535, []byte{0x81, 126, 0xff, 0xff}},
		{65536, []byte{0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0}},
	} {
		if got := appendTextHeader(nil, tc.n); !bytes.Equal(got, tc.want) {
			t.Errorf("header of %d bytes: % x, want % x", tc.n, got, tc.want)
		}
		if got := appendTextHeader(nil, tc.n); len(got) > maxHeaderBytes {
			t.Errorf("header of %d bytes is %d long, more than maxHeaderBytes", tc.n, len(got))
		}
	}
}

// Once the library has written a close frame, no text frame follows it,
// even while the connection stays open waiting for the client's answer.
// The client here speaks raw TCP, so that it can read the close frame
// without answering it.
func TestNoTextFrameAfterClose(t *testing.T) {
	p, raw, br := newRawFramePair(t, true)

	go p.server.Close(websocket.StatusNormalClosure, "bye") // waits for an answer that never comes
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	head := make([]byte, 2)
	if _, err := io.ReadFull(br, head); err != nil || head[0] != finBit|opClose {
		t.Fatalf("first frame % x (%v), want a close frame", head, err)
	}
	if _, err := io.ReadFull(br, make([]byte, head[1])); err != nil {
		t.Fatal(err)
	}
	if err := p.fw.writeFrames(append(appendTextHeader(nil, 2), "hi"...)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("text frame after close: %v, want net.ErrClosed", err)
	}
	if err := p.fw.writeLargeFrame([]byte("hi"), nil); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("large frame after close: %v, want net.ErrClosed", err)
	}
	raw.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := br.Read(make([]byte, 1)); n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("after the close frame: %d bytes, %v; want nothing while the server waits", n, err)
	}
}

// The library's control frames and Herald's text frames, written from
// several goroutines at once, never interleave: the client reads every
// text frame intact while the server's pings get their pongs.
func TestControlAndTextFramesDoNotInterleave(t *testing.T) {
	p := newFramePair(t)
	const writers, frames = 4, 200
	got := make(chan []byte, writers*frames)
	go func() {
		for {
			_, b, err := p.client.Read(context.Background())
			if err != nil {
				close(got)
				return
			}
			got <- b
		}
	}()
	// The server's reader must run for its pings' pongs to arrive.
	serverCtx := p.server.CloseRead(context.Background())

	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range frames {
				// Sizes on both sides of the 16-bit header, some past the
				// buffer's share, all carrying their writer and number.
				body := fmt.Appendf(nil, "%d/%d/", w, i)
				body = append(body, bytes.Repeat([]byte{'x'}, (i*997)%70000)...)
				var err error
				if i%3 == 0 {
					err = p.fw.writeLargeFrame(body[:len(body)-1], body[len(body)-1:])
				} else {
					err = p.fw.writeFrames(append(appendTextHeader(nil, len(body)), body...))
				}
				if err != nil {
					t.Errorf("writer %d frame %d: %v", w, i, err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			ctx, cancel := context.WithTimeout(serverCtx, 5*time.Second)
			err := p.server.Ping(ctx)
			cancel()
			if err != nil {
				t.Errorf("ping: %v", err)
				return
			}
		}
	})
	wg.Wait()

	next := make([]int, writers)
	for range writers * frames {
		var b []byte
		select {
		case b = <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("client stopped receiving frames")
		}
		var w, i int
		if _, err := fmt.Sscanf(string(b[:min(len(b), 16)]), "%d/%d/", &w, &i); err != nil || w < 0 || w >= writers {
			t.Fatalf("frame %.40q is not one of the writers'", b)
		}
		prefix := fmt.Sprintf("%d/%d/", w, i)
		if i != next[w] || len(b) != len(prefix)+(i*997)%70000 || bytes.Count(b[len(prefix):], []byte{'x'}) != len(b)-len(prefix) {
			t.Fatalf("writer %d: frame %d of %d bytes, want frame %d", w, i, len(b), next[w])
		}
		next[w]++
	}
}

// A write the socket cannot take whole leaves the connection's lock held
// until it is finished, so that a control frame the library writes
// meanwhile comes after the half-written frame, never inside it.
func TestPartialWriteHoldsTheConnection(t *testing.T) {
	p, _, br := newRawFramePair(t, true)
	const frames = 4000 // about 64 MB: more than the socket buffers hold
	var batch []byte
	for i := range frames {
		body := append(fmt.Appendf(nil, "%06d", i), bytes.Repeat([]byte{'y'}, 16000)...)
		batch = append(appendTextHeader(batch, len(body)), body...)
	}
	n, err := p.fw.tryWriteHold(batch)
	if err != nil || n >= len(batch) {
		t.Fatalf("tryWriteHold wrote %d of %d bytes (%v); want a partial write", n, len(batch), err)
	}
	if p.fw.mu.TryLock() {
		t.Fatal("the lock was released with the batch half written")
	}
	ping := []byte{finBit | 0x9, 0}
	pinged := make(chan error, 1)
	go func() { _, err := p.fw.Write(ping); pinged <- err }() // as the library writes a control frame
	finished := make(chan error, 1)
	go func() { finished <- p.fw.finishHeld(batch[n:]) }()

	for i := range frames {
		op, payload := readRawFrame(t, br)
		if op != finBit|opText || string(payload[:6]) != fmt.Sprintf("%06d", i) || len(payload) != 16006 {
			t.Fatalf("frame %d: opcode %#x, %d bytes starting %.6q", i, op, len(payload), payload)
		}
	}
	if op, _ := readRawFrame(t, br); op != finBit|0x9 {
		t.Fatalf("after the batch: opcode %#x, want the ping", op)
	}
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	if err := <-pinged; err != nil {
		t.Fatal(err)
	}
}

// readRawFrame reads one unmasked frame: its first byte and its payload.
func readRawFrame(t *testing.T, br *bufio.Reader) (byte, []byte) {
	t.Helper()
	var h [10]byte
	if _, err := io.ReadFull(br, h[:2]); err != nil {
		t.Fatal(err)
	}
	n := int(h[1] & 0x7f)
	switch n {
	case 126:
		io.ReadFull(br, h[2:4])
		n = int(binary.BigEndian.Uint16(h[2:4]))
	case 127:
		io.ReadFull(br, h[2:10])
		n = int(binary.BigEndian.Uint64(h[2:10]))
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(br, payload); err != nil {
		t.Fatal(err)
	}
	return h[0], payload
}
