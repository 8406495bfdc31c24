package e2e

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dropProxy is a TCP proxy in front of a server's WebSocket endpoint that
// can drop one server frame: once armed, the first text frame the server
// sends whose payload contains match is not passed on. It places a lost
// frame at an exact step, which a real server never produces, so that a
// test can check how a client notices the loss. It reads the server's
// frames as RFC 6455 lays them out (Herald does not compress, and writes
// each message as one frame).
type dropProxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	match   []byte // armed when non-nil
	dropped atomic.Int32
}

func startDropProxy(t *testing.T, target string) *dropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{ln: ln, target: target}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	})
	return p
}

func (p *dropProxy) addr() string { return p.ln.Addr().String() }

// arm makes the proxy drop the next server text frame containing match.
func (p *dropProxy) arm(match string) {
	p.mu.Lock()
	p.match = []byte(match)
	p.mu.Unlock()
}

// takeDrop reports whether frame payload is the one to drop, disarming.
func (p *dropProxy) takeDrop(opcode byte, payload []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.match == nil || opcode != 1 || !bytes.Contains(payload, p.match) {
		return false
	}
	p.match = nil
	p.dropped.Add(1)
	return true
}

func (p *dropProxy) pipe(c net.Conn) {
	defer c.Close()
	d, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return
	}
	defer d.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(d, c); done <- struct{}{} }()
	go func() { p.serverToClient(c, d); done <- struct{}{} }()
	<-done
}

// serverToClient copies the HTTP response head as it is and, after a 101
// (the WebSocket upgrade), the frames one by one, leaving out the one to
// drop; any other response (the page, its script) is copied as it is.
func (p *dropProxy) serverToClient(c, d net.Conn) {
	r := bufio.NewReader(d)
	upgraded := false
	for first := true; ; first = false {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		if first {
			upgraded = bytes.HasPrefix(line, []byte("HTTP/1.1 101"))
		}
		if _, err := c.Write(line); err != nil {
			return
		}
		if len(line) <= 2 { // the blank line ending the head
			break
		}
	}
	if !upgraded {
		io.Copy(c, r)
		return
	}
	for {
		head := make([]byte, 2, 14)
		if _, err := io.ReadFull(r, head); err != nil {
			return
		}
		n := uint64(head[1] & 0x7f)
		switch n {
		case 126:
			ext := make([]byte, 2)
			if _, err := io.ReadFull(r, ext); err != nil {
				return
			}
			head, n = append(head, ext...), uint64(binary.BigEndian.Uint16(ext))
		case 127:
			ext := make([]byte, 8)
			if _, err := io.ReadFull(r, ext); err != nil {
				return
			}
			head, n = append(head, ext...), binary.BigEndian.Uint64(ext)
		}
		if head[1]&0x80 != 0 { // masked (servers do not mask; passed on as is)
			key := make([]byte, 4)
			if _, err := io.ReadFull(r, key); err != nil {
				return
			}
			head = append(head, key...)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		if p.takeDrop(head[0]&0x0f, payload) {
			continue
		}
		if _, err := c.Write(append(head, payload...)); err != nil {
			return
		}
	}
}
