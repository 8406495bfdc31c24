package cassandrastore

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// proxy forwards TCP connections from a fixed local port to Cassandra and
// can be switched off (listener closed, every connection cut) and on again,
// to play a Cassandra that goes away and comes back without touching the
// shared test server.
type proxy struct {
	addr, target string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

// newProxy reserves a local port for a proxy to target, switched off.
func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String(), target: target, conns: map[net.Conn]bool{}}
	ln.Close()
	t.Cleanup(p.down)
	return p
}

func (p *proxy) up(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatalf("proxy listen on %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
}

func (p *proxy) serve(c net.Conn) {
	s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil {
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close(); c.Close() }()
	io.Copy(c, s)
	c.Close()
	s.Close()
}

// down closes the listener and cuts every connection.
func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// TestRecoversWhenCassandraComesBack starts a store while "Cassandra" (a
// proxy to it) is down, then brings it up, takes it down and brings it up
// again: the store answers Unavailable quickly while it is down and
// recovers by itself each time.
func TestRecoversWhenCassandraComesBack(t *testing.T) {
	addr := cassandraAddr(t)
	p := newProxy(t, addr)
	host, port, _ := net.SplitHostPort(p.addr)
	proxyPort, _ := strconv.Atoi(port)
	ks := freshKeyspace(t, addr)
	st, err := Open(t.Context(), Options{
		Hosts:    []string{p.addr},
		Keyspace: ks,
		Logger:   quietLogger(),
		// Cassandra announces itself at its own address: send the
		// driver back through the proxy.
		configure: func(c *gocql.ClusterConfig) {
			c.AddressTranslator = gocql.AddressTranslatorFunc(func(net.IP, int) (net.IP, int) {
				return net.ParseIP(host), proxyPort
			})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	now := time.Now().UTC().Truncate(time.Millisecond)
	put := func() error {
		_, _, err := st.PutMessage(t.Context(), newMsg(time.Now(), now, time.Hour, "recovery.a"))
		return err
	}
	expectDown := func(what string) {
		t.Helper()
		start := time.Now()
		err := put()
		if herald.ErrorCode(err) != herald.EUnavailable {
			t.Fatalf("%s: PutMessage = %v, want an Unavailable error", what, err)
		}
		d := time.Since(start)
		if d > 7*time.Second {
			t.Errorf("%s: PutMessage took %v to fail", what, d)
		}
		t.Logf("%s: PutMessage failed after %v: %v", what, d, err)
	}
	waitUp := func(what string) time.Duration {
		t.Helper()
		start := time.Now()
		for {
			err := put()
			if err == nil {
				return time.Since(start)
			}
			if time.Since(start) > 90*time.Second {
				t.Fatalf("%s: still failing after %v: %v", what, time.Since(start), err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	expectDown("down at start")
	p.up(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := st.Ready(ctx); err != nil {
		t.Fatalf("Ready once up: %v", err)
	}
	t.Logf("first connection: a put after %v", waitUp("first connection"))

	p.down()
	// Every connection is cut: requests fail at once or within a timeout.
	expectDown("cut")
	readyCtx, cancelReady := context.WithTimeout(t.Context(), time.Second)
	defer cancelReady()
	if err := st.Ready(readyCtx); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("Ready while down = %v, want an Unavailable error", err)
	}
	if _, err := st.GetMessages(t.Context(), []uuid.UUID{uuid.New()}); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("GetMessages while down: %v", err)
	}
	time.Sleep(2 * time.Second)
	expectDown("down a while")

	p.up(t)
	t.Logf("back up: a put succeeds after %v", waitUp("back up"))
	if err := st.Ready(t.Context()); err != nil {
		t.Errorf("Ready once back up: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := put(); !errors.Is(err, errClosed) {
		t.Errorf("put after Close: %v", err)
	}
}
