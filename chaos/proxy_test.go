package chaos

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// startEcho runs a line echo server on loopback for the test.
func startEcho(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	p, err := newProxy("test", target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p
}

// echo sends line over c and reads it back.
func echo(c net.Conn, line string) (string, error) {
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSuffix(got, "\n"), err
}

// dialEcho connects through the proxy and checks one round trip.
func dialEcho(t *testing.T, addr string) (net.Conn, error) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	if got, err := echo(c, "ping"); err != nil || got != "ping" {
		return c, fmt.Errorf("round trip: %q, %v", got, err)
	}
	return c, nil
}

func TestProxyCutAndHeal(t *testing.T) {
	p := startProxy(t, startEcho(t))

	before, err := dialEcho(t, p.addr())
	if err != nil {
		t.Fatalf("before the cut: %v", err)
	}
	p.cutLinks()
	// The open link is reset...
	if got, err := echo(before, "after"); err == nil {
		t.Fatalf("an open link still echoes %q after the cut", got)
	}
	// ... and new ones are refused until the heal.
	if _, err := dialEcho(t, p.addr()); err == nil {
		t.Fatal("a new link works while the proxy is cut")
	}
	if p.refused.Load() == 0 {
		t.Error("the proxy counted no refused connection while cut")
	}
	p.heal()
	if _, err := dialEcho(t, p.addr()); err != nil {
		t.Fatalf("after the heal: %v", err)
	}
}

func TestProxyCloseEndsLinks(t *testing.T) {
	p, err := newProxy("test", startEcho(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := dialEcho(t, p.addr())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("close did not return with a link open")
	}
	if _, err := echo(c, "x"); err == nil {
		t.Error("a link still works after close")
	}
}

func TestCheckLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:9042", true},
		{"127.0.0.2:9042", true},
		{"[::1]:6379", true},
		{"localhost:5672", true},
		{"10.0.0.1:9042", false},
		{"cassandra.example.com:9042", false},
		{"127.0.0.1", false}, // no port
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if err := checkLoopback(tc.addr); (err == nil) != tc.ok {
				t.Errorf("checkLoopback(%q) = %v, want ok=%v", tc.addr, err, tc.ok)
			}
		})
	}
	if _, err := newProxy("x", "192.0.2.1:80"); err == nil {
		t.Error("newProxy accepted a target that is not loopback")
	}
}
