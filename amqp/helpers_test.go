package amqp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	rabbit "github.com/rabbitmq/amqp091-go"
)

// The tests run against a real RabbitMQ: HERALD_TEST_AMQP names it
// (`scripts/services env` prints it), amqp://guest:guest@127.0.0.1:5672/ by
// default. Each test uses exchanges and queues of its own, deleted at the end.

const defaultTestURL = "amqp://guest:guest@127.0.0.1:5672/"

// amqpURL returns the test broker's URL, skipping the test when none
// answers, unless one was named or this is CI: then the test fails.
func amqpURL(t testing.TB) string {
	t.Helper()
	u, named := os.LookupEnv("HERALD_TEST_AMQP")
	if u == "" {
		u, named = defaultTestURL, false
	}
	conn, err := rabbit.Dial(u)
	if err == nil {
		conn.Close()
		return u
	}
	msg := fmt.Sprintf("no RabbitMQ answers at %s (%v); start one with `scripts/services start rabbitmq` "+
		"(and `eval \"$(scripts/services env)\"`)", u, err)
	if named || os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testOptions returns options on url with names unique to this test, fast
// backoffs, and a cleanup that deletes what the names declare.
func testOptions(t testing.TB, url string) Options {
	t.Helper()
	pre := fmt.Sprintf("test.%010x.", rand.Uint64()>>24)
	o := Options{
		URL:            url,
		Name:           "herald-test",
		IngestExchange: pre + "ingest",
		IngestQueue:    pre + "ingest",
		DLX:            pre + "ingest.dlx",
		DeadQueue:      pre + "ingest.dead",
		EventsExchange: pre + "events",
		RedialMin:      20 * time.Millisecond,
		RedialMax:      300 * time.Millisecond,
		RetryMin:       20 * time.Millisecond,
		RetryMax:       200 * time.Millisecond,
		Logger:         quietLogger(),
	}
	t.Cleanup(func() {
		// A channel per deletion: a refused one closes its channel.
		for _, q := range []string{o.IngestQueue, o.DeadQueue} {
			testChannel(t, url).QueueDelete(q, false, false, false)
		}
		for _, x := range []string{o.IngestExchange, o.DLX, o.EventsExchange} {
			testChannel(t, url).ExchangeDelete(x, false, false)
		}
	})
	return o
}

// testChannel opens a channel on a connection of the test's own, closed
// when the test ends.
func testChannel(t testing.TB, url string) *rabbit.Channel {
	t.Helper()
	conn, err := rabbit.Dial(url)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("channel: %v", err)
	}
	return ch
}

// tapQueue declares an exclusive queue bound to exchange with keys and
// returns its deliveries (auto-acknowledged).
func tapQueue(t testing.TB, ch *rabbit.Channel, exchange string, keys ...string) <-chan rabbit.Delivery {
	t.Helper()
	if err := ch.ExchangeDeclare(exchange, rabbit.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := ch.QueueBind(q.Name, k, exchange, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func readyCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// proxy is a TCP proxy in front of the broker that a test cuts (closing
// every connection and refusing new ones) and restores, to simulate an
// outage without touching the shared broker.
type proxy struct {
	ln       net.Listener
	upstream string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

// newProxy starts a proxy to the broker of url and returns the URL that
// goes through it.
func newProxy(t testing.TB, rawURL string) (*proxy, string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, upstream: u.Host, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.cut() })
	u.Host = ln.Addr().String()
	return p, u.String()
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		up, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[up] = true, true
		p.mu.Unlock()
		go pipe(c, up)
		go pipe(up, c)
	}
}

func pipe(dst, src net.Conn) {
	io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// cut closes every proxied connection and refuses new ones until restore.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *proxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// waitFor polls cond until it holds or d passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
