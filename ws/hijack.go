package ws

import (
	"bufio"
	"net"
	"net/http"
)

// Buffer sizes of an upgraded connection. net/http hands a hijacked
// connection over with its own 4 KiB reader and writer, which the
// WebSocket library keeps for the connection's life: 8 KiB per idle
// device. Client frames are small requests, and a server frame larger
// than the write buffer costs one more write call, so smaller buffers
// serve the protocol as well at a fraction of the memory.
const (
	DefaultReadBufferBytes  = 512
	DefaultWriteBufferBytes = 1024
)

// upgradeWriter wraps the ResponseWriter of an upgrade so that Hijack
// returns buffers of its sizes.
type upgradeWriter struct {
	http.ResponseWriter
	readSize, writeSize int
}

// Hijack takes the connection from net/http and gives it new buffers.
func (u *upgradeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	// The controller finds the Hijacker under middleware wrappers that
	// only Unwrap.
	nc, brw, err := http.NewResponseController(u.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Writer.Flush(); err != nil {
		nc.Close()
		return nil, nil, err
	}
	br := brw.Reader
	if br.Buffered() == 0 {
		// A client that sent frames right behind its request (rare) keeps
		// net/http's reader, which holds them.
		br = bufio.NewReaderSize(nc, u.readSize)
	}
	return nc, bufio.NewReadWriter(br, bufio.NewWriterSize(nc, u.writeSize)), nil
}

// Unwrap lets http.ResponseController reach the wrapped writer.
func (u *upgradeWriter) Unwrap() http.ResponseWriter { return u.ResponseWriter }
