package chaos

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// proxy forwards TCP connections from a port of 127.0.0.1 to a target, so
// that the drill can cut the link between Herald and a service: cut resets
// every open connection and refuses (resets) new ones until heal. The
// target never sees the cut except as connections that end.
type proxy struct {
	name   string
	target string
	ln     net.Listener

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{} // both ends of every open link
	wg    sync.WaitGroup        // the accept loop and every link

	accepted, refused atomic.Int64
}

// newProxy listens on a free port of 127.0.0.1 and forwards to target
// (which must be a loopback address).
func newProxy(name, target string) (*proxy, error) {
	if err := checkLoopback(target); err != nil {
		return nil, fmt.Errorf("proxy %s: %w", name, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %w", name, err)
	}
	p := &proxy{name: name, target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// addr is where clients connect instead of the target.
func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			p.refused.Add(1)
			reset(c)
			continue
		}
		p.conns[c] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		p.accepted.Add(1)
		go p.link(c)
	}
}

// link dials the target for the accepted connection c and copies both
// ways until either side ends or the link is cut.
func (p *proxy) link(c net.Conn) {
	defer p.wg.Done()
	s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		p.drop(c)
		reset(c)
		return
	}
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		p.drop(c)
		reset(c)
		reset(s)
		return
	}
	p.conns[s] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{})
	go func() {
		io.Copy(s, c)
		closeWrite(s)
		close(done)
	}()
	io.Copy(c, s)
	closeWrite(c)
	<-done
	p.drop(c)
	p.drop(s)
	c.Close()
	s.Close()
}

func (p *proxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// cutLinks resets every open connection and refuses new ones until heal.
func (p *proxy) cutLinks() {
	p.mu.Lock()
	p.cut = true
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	clear(p.conns)
	p.mu.Unlock()
	for _, c := range conns {
		reset(c)
	}
}

// heal accepts connections again.
func (p *proxy) heal() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}

// close stops listening, cuts every link and waits for the proxy's
// goroutines.
func (p *proxy) close() {
	p.ln.Close()
	p.cutLinks()
	p.wg.Wait()
}

// reset closes c so that the peer sees a reset, as after a broken link,
// rather than an orderly end of stream.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
}

// checkLoopback refuses an address that is not a loopback IP and port:
// the drill only ever talks to processes of this machine.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return errors.New(addr + " is not a loopback address (the drill only runs against this machine)")
	}
	return nil
}
