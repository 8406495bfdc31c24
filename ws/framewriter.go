package ws

import (
	"bytes"
	"encoding/binary"
	"net"
	"sync"
	"syscall"
)

// Herald writes its text frames itself, beneath the WebSocket library.
// The library keeps the handshake, the reading, and the control frames
// (ping, pong, close); a connection's writer encodes each of its frames'
// headers (RFC 6455 §5.2: a server's frames are never masked) and gathers
// a batch of frames into one buffer taken from a pool, written in one
// system call. The library's own path costs two channel locks, a copy into
// the connection's buffer and a flush per frame, and the buffer stays with
// the connection for its life; in a 10,000-way fan-out that was 17% of the
// server's CPU (BENCHMARKS.md, "WebSocket fan-out: frames written beneath
// the library"). Writing beneath the library also lets the pool's writers
// write without waiting for the socket (tryWriteHold).

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
	rc        syscall.RawConn // nc's, to write without waiting; nil when nc has none (TLS)
	mu        sync.Mutex
	closeSent bool
}

// newFrameWriter returns nc's frameWriter.
func newFrameWriter(nc net.Conn) *frameWriter {
	w := &frameWriter{nc: nc}
	if sc, ok := nc.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			w.rc = rc
		}
	}
	return w
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

// tryWriteHold writes as much of b, whole frames, as the socket takes
// now, without waiting; w.rc must be set. When it returns 0 <= n < len(b)
// and no error, it leaves w.mu held, so that nothing comes between the
// part of a frame written and the rest: the caller must then call
// finishHeld, from any goroutine. It returns -1, having written nothing,
// when the library is writing a control frame (which may itself wait for
// a full socket): the caller then writes b with writeFrames, elsewhere.
func (w *frameWriter) tryWriteHold(b []byte) (n int, err error) {
	if !w.mu.TryLock() {
		return -1, nil
	}
	if w.closeSent {
		w.mu.Unlock()
		return 0, net.ErrClosed
	}
	var werr error
	err = w.rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, e := syscall.Write(int(fd), b[n:])
			if m > 0 {
				n += m
			}
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return true // full: the rest waits for finishHeld
			case e != nil:
				werr = e
				return true
			case m <= 0:
				return true
			}
		}
		return true // never wait for the socket here
	})
	if err == nil {
		err = werr
	}
	if err != nil || n == len(b) {
		w.mu.Unlock()
	}
	return n, err
}

// finishHeld writes b, waiting for the socket as long as it must, and
// releases the lock tryWriteHold left held.
func (w *frameWriter) finishHeld(b []byte) error {
	defer w.mu.Unlock()
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
