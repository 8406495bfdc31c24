package http1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Connection states, for Shutdown: only an idle connection is closed under
// a client.
const (
	stateIdle int32 = iota
	stateActive
	stateClosed
)

// maxDrainBytes is how much of a body a handler left unread is skipped to
// keep the connection; past it the connection closes (as net/http does).
const maxDrainBytes = 256 << 10

var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, maxHeaderBytes) }}

// putReader returns br to the pool, emptied. A reader of another size is
// dropped: readHead relies on the buffer holding a whole header block,
// and a smaller reader in the pool (a test once put one there) made
// well-formed requests look cut short.
func putReader(br *bufio.Reader) {
	br.Reset(nil)
	if br.Size() == maxHeaderBytes {
		readerPool.Put(br)
	}
}

// conn is one client connection on the lean path. Its buffers, body and
// writer are reused by each of its requests in turn.
type conn struct {
	srv      *Server
	nc       net.Conn
	br       *bufio.Reader
	remote   string
	state    atomic.Int32
	ctx      context.Context
	served   int  // requests answered
	linger   bool // closing with a body unread: see closeWriteAndWait
	lastPost bool // the last one was a POST

	head head
	body body
	w    response

	// The watch of a slow request (see watch).
	timer     *time.Timer
	wmu       sync.Mutex
	reqDone   bool
	watching  bool
	watchDone chan struct{}
	gone      bool // the watch saw the client leave
	cancel    context.CancelFunc
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, nc: nc, remote: nc.RemoteAddr().String()}
	c.ctx = context.WithValue(context.Background(), http.LocalAddrContextKey, nc.LocalAddr())
	c.body.c = c
	c.w.c = c
	c.timer = time.AfterFunc(time.Hour, c.watch)
	c.timer.Stop()
	return c
}

// serve runs the connection's requests until it closes or is handed over.
func (c *conn) serve() {
	handedOver := false
	defer func() {
		if err := recover(); err != nil && err != http.ErrAbortHandler {
			buf := make([]byte, 64<<10)
			buf = buf[:runtime.Stack(buf, false)]
			c.srv.logf("http1: panic serving %s: %v\n%s", c.remote, err, buf)
		}
		c.stopWatch() // a handler's panic leaves its watch running
		if c.cancel != nil {
			c.cancel()
		}
		if !handedOver {
			c.state.Store(stateClosed)
			if c.linger {
				c.closeWriteAndWait()
			}
			c.nc.Close()
			putReader(c.br)
		}
		c.srv.forget(c)
	}()
	c.br = readerPool.Get().(*bufio.Reader)
	c.br.Reset(c.nc)
	for {
		ok, err := c.readHead()
		if err != nil {
			return
		}
		if !ok {
			if c.state.CompareAndSwap(stateActive, stateClosed) {
				handedOver = true
				c.nc.SetReadDeadline(time.Time{})
				rc := newReplayConn(c.nc, c.br) // c.br is back in the pool
				c.br = nil
				c.srv.handoff.give(rc)
			}
			return
		}
		if !c.serveRequest() {
			return
		}
		c.served++
		c.lastPost = c.head.method == http.MethodPost
		if !c.state.CompareAndSwap(stateActive, stateIdle) || c.srv.shutdown.Load() {
			return
		}
	}
}

// readHead waits for the next request and parses its head without
// consuming it. ok false with no error means: hand the connection over.
func (c *conn) readHead() (ok bool, err error) {
	// As net/http: a new connection has ReadHeaderTimeout to send its
	// head, a kept-alive one IdleTimeout to start the next.
	wait := c.srv.IdleTimeout
	if c.served == 0 || wait <= 0 {
		wait = c.srv.ReadHeaderTimeout
	}
	if wait > 0 {
		c.nc.SetReadDeadline(time.Now().Add(wait))
	} else {
		c.nc.SetReadDeadline(time.Time{})
	}
	// As net/http, a kept-alive connection waits for 4 bytes: one that
	// ends with fewer closes silently.
	first := 1
	if c.served > 0 {
		first = 4
	}
	peek, err := c.br.Peek(first)
	if err != nil {
		return false, err
	}
	if c.lastPost {
		// net/http's tolerance of the CRLF old clients sent after a POST.
		n := 0
		for n < len(peek) && (peek[n] == '\r' || peek[n] == '\n') {
			n++
		}
		c.br.Discard(n)
	}
	if !c.state.CompareAndSwap(stateIdle, stateActive) {
		return false, net.ErrClosed
	}
	deadlineSet := false
	for {
		buf, _ := c.br.Peek(c.br.Buffered())
		if n := headLen(buf); n > 0 {
			if !parseHead(buf[:n], &c.head) {
				return false, nil
			}
			c.br.Discard(n)
			return true, nil
		}
		if len(buf) >= maxHeaderBytes {
			return false, nil
		}
		if !deadlineSet && c.served > 0 && c.srv.ReadHeaderTimeout > 0 {
			c.nc.SetReadDeadline(time.Now().Add(c.srv.ReadHeaderTimeout))
			deadlineSet = true
		}
		if _, err := c.br.Peek(len(buf) + 1); err != nil {
			if isTimeout(err) {
				return false, err
			}
			// A head cut short: net/http answers it in its own way.
			return false, nil
		}
	}
}

// headLen is the length of the header block at the start of buf, up to
// and including the empty line that ends it, or 0 if buf holds no whole
// block. Lines may end in LF alone here (parseHead then refuses them), so
// that such a head is handed over at once rather than waited on.
func headLen(buf []byte) int {
	pos := 0
	for {
		i := bytes.IndexByte(buf[pos:], '\n')
		if i < 0 {
			return 0
		}
		line := buf[pos : pos+i]
		pos += i + 1
		if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
			return pos
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// serveRequest runs the handler on the parsed head and writes its answer.
// It reports whether the connection may serve another request.
func (c *conn) serveRequest() bool {
	h := &c.head
	ctx, cancel := context.WithCancel(c.ctx)
	c.cancel = cancel
	req := &http.Request{
		Method:        h.method,
		URL:           h.url,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h.header,
		ContentLength: h.contentLength,
		Close:         h.close,
		Host:          h.host,
		RemoteAddr:    c.remote,
		RequestURI:    h.target,
	}
	c.body.reset(h.contentLength)
	if h.contentLength > 0 {
		req.Body = &c.body
	} else {
		req.Body = http.NoBody
	}
	req = req.WithContext(ctx)
	c.w.reset()
	c.nc.SetReadDeadline(time.Time{})
	c.startWatch()

	c.srv.Handler.ServeHTTP(&c.w, req)

	c.stopWatch()
	cancel()
	c.body.close()
	if c.gone {
		return false
	}
	keep := !h.close && !c.w.closeAfter() && !c.srv.shutdown.Load()
	if left := c.body.remaining(); left > 0 {
		switch {
		case keep && left <= maxDrainBytes:
			if _, err := io.CopyN(io.Discard, c.br, left); err != nil {
				keep = false
			}
		default:
			keep = false
			c.linger = true
		}
	}
	if err := c.w.finish(!keep); err != nil {
		return false
	}
	return keep
}

// startWatch arms the slow-request timer of the request starting now.
func (c *conn) startWatch() {
	c.wmu.Lock()
	c.reqDone = false
	c.watching = false
	c.gone = false
	c.wmu.Unlock()
	c.timer.Reset(c.srv.slowRequest())
}

// watch runs when a handler has run for SlowRequest: once the body has been
// read, a read on the connection waits for the client's next bytes, and
// cancels the request's context if the client leaves instead.
func (c *conn) watch() {
	c.wmu.Lock()
	if c.reqDone {
		c.wmu.Unlock()
		return
	}
	if c.body.remaining() > 0 {
		c.timer.Reset(c.srv.slowRequest())
		c.wmu.Unlock()
		return
	}
	c.watching = true
	done := make(chan struct{})
	c.watchDone = done
	cancel := c.cancel
	c.wmu.Unlock()
	defer close(done)
	// A pipelined next request is left in the buffer for its turn.
	if _, err := c.br.Peek(1); err != nil {
		c.wmu.Lock()
		if !c.reqDone || !isTimeout(err) {
			c.gone = true
			cancel()
		}
		c.wmu.Unlock()
	}
}

// stopWatch ends the watch of the finished request and waits for its read.
func (c *conn) stopWatch() {
	c.wmu.Lock()
	c.reqDone = true
	watching, done := c.watching, c.watchDone
	c.wmu.Unlock()
	c.timer.Stop()
	if !watching {
		return
	}
	c.nc.SetReadDeadline(aLongTimeAgo)
	<-done
}

var aLongTimeAgo = time.Unix(1, 0)

// lingerDelay is how long a connection closing with bytes unread waits
// after its FIN (net/http waits as long).
const lingerDelay = 500 * time.Millisecond

// closeWriteAndWait sends FIN and waits before the close: closing a socket
// with unread bytes sends a reset, which could destroy the answer before
// the client reads it.
func (c *conn) closeWriteAndWait() {
	if tc, ok := c.nc.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
		time.Sleep(lingerDelay)
	}
}
