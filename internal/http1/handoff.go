package http1

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"sync"
	"syscall"
)

// handoffListener is the listener the Fallback serves: Accept returns the
// connections the lean server hands over.
type handoffListener struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

// give hands c to the Fallback, or closes it if the listener is closed.
func (l *handoffListener) give(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.closed:
		c.Close()
	}
}

// replayConn is a handed-over connection: reads take what the lean server
// had buffered first, then the connection's own bytes. It keeps a copy of
// those bytes (usually one request head), not the lean server's 16 KiB
// reader, which goes back to the pool: a WebSocket upgrade is handed over,
// and a storm of them took a new reader each.
type replayConn struct {
	net.Conn
	pending []byte
}

// newReplayConn hands over nc with what br holds of it; br is then
// returned to the pool.
func newReplayConn(nc net.Conn, br *bufio.Reader) *replayConn {
	c := &replayConn{Conn: nc}
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		c.pending = bytes.Clone(b)
	}
	putReader(br)
	return c
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		if len(c.pending) == 0 {
			c.pending = nil
		}
		return n, nil
	}
	return c.Conn.Read(p)
}

// SyscallConn returns the raw connection of a handed-over TCP connection,
// so that a WebSocket writer may write to it without waiting (ws's
// frameWriter). Only writes may go through it: a read would skip what
// the lean server had buffered.
func (c *replayConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}
