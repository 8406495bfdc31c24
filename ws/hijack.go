package ws

import (
	"bufio"
	"net"
	"net/http"
)

// Buffer sizes of an upgraded connection. net/http hands a hijacked
// connection over with its own 4 KiB reader and writer, which the
// WebSocket library would keep for the connection's life: 8 KiB per idle
// device. Client frames are small requests, so a small read buffer serves
// them as well. The library writes only control frames, through a buffer
// of controlBufferBytes; Herald's frames are gathered in buffers of
// DefaultWriteBufferBytes taken from a pool only while a batch is written.
const (
	DefaultReadBufferBytes  = 512
	DefaultWriteBufferBytes = 16 << 10
)

// upgradeWriter wraps the ResponseWriter of an upgrade so that Hijack
// returns a read buffer of readSize and a write buffer over fw, the
// frameWriter of the connection.
type upgradeWriter struct {
	http.ResponseWriter
	readSize int
	fw       *frameWriter // set by Hijack
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
	u.fw = newFrameWriter(nc)
	return nc, bufio.NewReadWriter(br, bufio.NewWriterSize(u.fw, controlBufferBytes)), nil
}

// Unwrap lets http.ResponseController reach the wrapped writer.
func (u *upgradeWriter) Unwrap() http.ResponseWriter { return u.ResponseWriter }
