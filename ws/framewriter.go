package ws

import (
	"bytes"
	"encoding/binary"
	"net"
	"sync"
)

// Herald writes its text frames itself, beneath the WebSocket library.
// The library keeps the handshake, the reading, and the control frames
// (ping, pong, close); a connection's writer encodes each of its frames'
// headers (RFC 6455 §5.2: a server's frames are never masked) and gathers
// a batch of frames into one buffer taken from a pool, written in one
// system call. The library's own path costs two channel locks, a copy into
// the connection's buffer and a flush per frame, and the buffer stays with
// the connection for its life; in a 10,000-way fan-out that was 15% of the
// server's CPU (BENCHMARKS.md, "WebSocket fan-out: frames written beneath
// the library").

// controlBufferBytes is the library's write buffer: a server's control
// frame (a 2-byte header and at most 125 bytes) fits in it whole, so the
// library writes each one with a single Write call.
const controlBufferBytes = 128

// maxHeaderBytes is the longest header of an unmasked frame.
const maxHeaderBytes = 10

// opText and opClose are RFC 6455's opcodes; finBit ends a message.
const (
	finBit  = 0x80
	opText  = 0x1
	opClose = 0x8
)

// frameWriter is the connection as the library writes to it, and the way
// Herald's text frames reach the socket. One mutex orders the two, so
// frames never interleave, and once the library has written a close
// frame no text frame follows it.
type frameWriter struct {
	nc        net.Conn
	mu        sync.Mutex
	closeSent bool
}

// Write writes what the library flushes: one whole control frame per call,
// since only control frames pass through the library's buffer.
func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closeSent {
		return 0, net.ErrClosed
	}
	if len(p) > 0 && p[0]&0x0f == opClose {
		w.closeSent = true
	}
	return w.nc.Write(p)
}

// writeFrames writes b, whole frames built with appendTextHeader, in one
// call.
func (w *frameWriter) writeFrames(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closeSent {
		return net.ErrClosed
	}
	_, err := w.nc.Write(b)
	return err
}

// writeLargeFrame writes one frame too large to copy into a batch, whose
// payload is payload then suffix: the header and both parts gathered in
// one call (writev). suffix is copied, so that it may lie on the caller's
// stack.
func (w *frameWriter) writeLargeFrame(payload, suffix []byte) error {
	parts := net.Buffers{appendTextHeader(nil, len(payload)+len(suffix)), payload, bytes.Clone(suffix)}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closeSent {
		return net.ErrClosed
	}
	_, err := parts.WriteTo(w.nc)
	return err
}

// appendTextHeader appends the header of a final, unmasked text frame
// whose payload is n bytes.
func appendTextHeader(dst []byte, n int) []byte {
	dst = append(dst, finBit|opText)
	switch {
	case n < 126:
		return append(dst, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(dst, 126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(dst, 127), uint64(n))
	}
}

// batchPool holds the buffers writers gather frames in, of one capacity.
type batchPool struct {
	size int
	pool sync.Pool
}

func (p *batchPool) get() *[]byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, p.size)
	return &b
}

func (p *batchPool) put(b *[]byte) {
	if cap(*b) != p.size {
		return
	}
	*b = (*b)[:0]
	p.pool.Put(b)
}
