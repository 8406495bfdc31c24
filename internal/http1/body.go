package http1

import (
	"errors"
	"io"
	"sync/atomic"
)

// errBodyClosed is what a read of a body after its handler returned gets,
// as with net/http.
var errBodyClosed = errors.New("http: invalid Read on closed Body")

// body is a request's body: its Content-Length bytes from the connection's
// reader. remaining is read by the slow-request watch, hence atomic.
type body struct {
	c      *conn
	left   atomic.Int64
	closed bool
}

func (b *body) reset(n int64) {
	b.left.Store(n)
	b.closed = false
}

func (b *body) remaining() int64 { return b.left.Load() }

func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, errBodyClosed
	}
	left := b.left.Load()
	if left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.c.br.Read(p)
	left -= int64(n)
	b.left.Store(left)
	if left == 0 {
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// Close leaves the rest to the server, which skips it or closes the
// connection.
func (b *body) Close() error { return nil }

func (b *body) close() { b.closed = true }
