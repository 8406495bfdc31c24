package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/google/uuid"
)

// amqpURL is the RabbitMQ the tests use: HERALD_TEST_AMQP, as
// `scripts/services env` prints it, or the services script's default.
func amqpURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("HERALD_TEST_AMQP")
	if u == "" {
		u = "amqp://guest:guest@127.0.0.1:5672/"
	}
	conn, err := rabbit.Dial(u)
	if err != nil {
		msg := fmt.Sprintf("RabbitMQ at %s does not answer (%v); start it with `scripts/services start rabbitmq`", u, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	conn.Close()
	return u
}

// amqpNames are the exchanges and queues of one test, so tests sharing the
// broker never see each other's messages.
type amqpNames struct{ ingest, ingestQueue, dlx, events string }

func newAMQPNames() amqpNames {
	id := uuid.NewString()[:8]
	return amqpNames{ingest: "t-ingest-" + id, ingestQueue: "t-ingest-q-" + id, dlx: "t-dlx-" + id, events: "t-events-" + id}
}

func (n amqpNames) args(u string) []string {
	return []string{"--amqp-url", u, "--amqp-ingest-exchange", n.ingest, "--amqp-ingest-queue", n.ingestQueue,
		"--amqp-dlx", n.dlx, "--amqp-events-exchange", n.events}
}

// rabbitChannel opens a confirming channel for the test's own publishing
// and consuming.
func rabbitChannel(t *testing.T, u string) *rabbit.Channel {
	t.Helper()
	conn, err := rabbit.Dial(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	return ch
}

// publishConfirmed publishes and waits for the broker's confirm.
func publishConfirmed(t *testing.T, ch *rabbit.Channel, exchange, key string, msg rabbit.Publishing) {
	t.Helper()
	ctx := ctxFor(t, 10*time.Second)
	dc, err := ch.PublishWithDeferredConfirmWithContext(ctx, exchange, key, true, false, msg)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := dc.WaitContext(ctx); err != nil || !ok {
		t.Fatalf("publish to %s %s not confirmed: %v", exchange, key, err)
	}
}

// bindQueue declares an exclusive queue bound to exchange with key and
// returns its deliveries.
func bindQueue(t *testing.T, ch *rabbit.Channel, exchange, key string) <-chan rabbit.Delivery {
	t.Helper()
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(q.Name, key, exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	d, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// latestJSON returns the answer of latest(pattern) as the HTTP API gives it.
func latestJSON(t *testing.T, s *server, pattern string) string {
	t.Helper()
	resp, err := http.Get(s.URL + "/v1/latest?pattern=" + url.QueryEscape(pattern))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestAMQPIngestAndEvents is the acceptance flow: a backend
// publishes to the ingest exchange with a path as routing key; the message
// is in the cache, and comes back as an event on a queue bound to the
// events exchange with feeds.#.
func TestAMQPIngestAndEvents(t *testing.T) {
	u := amqpURL(t)
	names := newAMQPNames()
	s := startServer(t, "", names.args(u)...)
	ch := rabbitChannel(t, u)
	waitExchange(t, ch, names.events)
	events := bindQueue(t, ch, names.events, "feeds.#")
	word := "n" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	path := "feeds." + word + ".12345"

	publishConfirmed(t, ch, names.ingest, path, rabbit.Publishing{Body: []byte("breaking"), DeliveryMode: rabbit.Persistent,
		Headers: rabbit.Table{"title": "Hello"}})

	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(latestJSON(t, s, "feeds."+word+".#"), `"path":"`+path+`"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the ingested message is not in latest(feeds.%s.#): %s", word, latestJSON(t, s, "feeds."+word+".#"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := latestJSON(t, s, "feeds."+word+".#"); !strings.Contains(got, `"title":"Hello"`) || !strings.Contains(got, `"YnJlYWtpbmc="`) {
		t.Errorf("the ingested message lost its header or body: %s", got)
	}
	select {
	case d := <-events:
		if d.RoutingKey != path || !strings.Contains(string(d.Body), `"YnJlYWtpbmc="`) {
			t.Errorf("event %s %s", d.RoutingKey, d.Body)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no event arrived on the queue bound with feeds.#")
	}
}

// TestAMQPInvalidMessageGoesToDeadLetterExchange sends a message whose
// routing key is not a valid path: it lands in the dead-letter exchange with
// the reason, never silently dropped.
func TestAMQPInvalidMessageGoesToDeadLetterExchange(t *testing.T) {
	u := amqpURL(t)
	names := newAMQPNames()
	startServer(t, "", names.args(u)...)
	ch := rabbitChannel(t, u)
	waitExchange(t, ch, names.dlx)
	dead := bindQueue(t, ch, names.dlx, "#")
	publishConfirmed(t, ch, names.ingest, "not a path!", rabbit.Publishing{Body: []byte("x")})
	select {
	case d := <-dead:
		if reason, _ := d.Headers["x-herald-error"].(string); reason == "" || string(d.Body) != "x" {
			t.Errorf("dead-lettered %q with headers %v", d.Body, d.Headers)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the invalid message did not reach the dead-letter exchange")
	}
}

// waitExchange waits until Herald has declared exchange.
func waitExchange(t *testing.T, ch *rabbit.Channel, exchange string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		// A passive declare of a missing exchange closes the channel:
		// probe on a channel of its own.
		conn, err := rabbit.Dial(amqpURL(t))
		if err != nil {
			t.Fatal(err)
		}
		probe, err := conn.Channel()
		if err == nil {
			err = probe.ExchangeDeclarePassive(exchange, "topic", true, false, false, false, nil)
		}
		conn.Close()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Herald did not declare exchange %s: %v", exchange, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tcpProxy forwards a local port to target and can cut every connection,
// standing in for a broker that goes away and comes back.
type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	up     bool
	conns  []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target, up: true}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		up := p.up
		p.mu.Unlock()
		if !up {
			c.Close()
			continue
		}
		b, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, b)
		p.mu.Unlock()
		go func() { io.Copy(b, c); b.Close() }()
		go func() { io.Copy(c, b); c.Close() }()
	}
}

// cut closes every connection and refuses new ones until restore.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = false
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *tcpProxy) restore() {
	p.mu.Lock()
	p.up = true
	p.mu.Unlock()
}

// TestAMQPBrokerOutageLosesNothing cuts Herald off from RabbitMQ in the
// middle of an ingest stream and lets it back: every message the broker
// confirmed to the backend ends up in the cache, and Herald recovers by
// itself.
func TestAMQPBrokerOutageLosesNothing(t *testing.T) {
	u := amqpURL(t)
	parsed, _ := url.Parse(u)
	proxy := newTCPProxy(t, parsed.Host)
	viaProxy := *parsed
	viaProxy.Host = proxy.addr()
	names := newAMQPNames()
	s := startServer(t, "", names.args(viaProxy.String())...)
	ch := rabbitChannel(t, u) // the backend talks to the broker directly
	waitExchange(t, ch, names.ingest)

	word := "o" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	const n = 300
	for i := range n {
		if i == 100 {
			waitHealth(t, s, "rabbitmq", "ok")
			proxy.cut()
			time.Sleep(2 * time.Second) // Herald is cut off; the backend keeps publishing
			// The outage is visible on /healthz.
			if h := healthOf(t, s)["rabbitmq"]; !strings.HasPrefix(h, "reconnecting") {
				t.Errorf("/healthz during the outage says rabbitmq %q, want reconnecting", h)
			}
		}
		if i == 200 {
			proxy.restore()
		}
		publishConfirmed(t, ch, names.ingest, fmt.Sprintf("%s.m%d", word, i), rabbit.Publishing{Body: []byte(fmt.Sprint(i)), DeliveryMode: rabbit.Persistent})
		time.Sleep(5 * time.Millisecond)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := strings.Count(latestAll(t, s, word+".*"), `"path":"`+word+`.m`)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d confirmed messages reached the cache after the outage", got, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// latestAll returns every page of latest(pattern) concatenated.
func latestAll(t *testing.T, s *server, pattern string) string {
	t.Helper()
	var all strings.Builder
	cursor := ""
	for {
		q := "pattern=" + url.QueryEscape(pattern) + "&limit=1000"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		resp, err := http.Get(s.URL + "/v1/latest?" + q)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Items      []json.RawMessage `json:"items"`
			NextCursor string            `json:"next_cursor"`
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatalf("latest: %v: %s", err, b)
		}
		for _, it := range page.Items {
			all.Write(it)
		}
		if page.NextCursor == "" {
			return all.String()
		}
		cursor = page.NextCursor
	}
}

// TestAMQPEventsCrossNodes runs two Herald nodes on one Cassandra and
// RabbitMQ: a message put through node A reaches an event-stream
// subscriber on node B.
func TestAMQPEventsCrossNodes(t *testing.T) {
	requireCassandra(t)
	u := amqpURL(t)
	names := newAMQPNames()
	a := cassandra.start(t, "", names.args(u)...)
	b := cassandra.start(t, "", names.args(u)...)
	word := "x" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+"/v1/events?pattern="+url.QueryEscape(word+".#"), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("node B's event stream: %d %s", resp.StatusCode, body)
	}
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				got <- line
				return
			}
		}
	}()
	// Node B binds its queue when the subscription starts: give the
	// binding a moment before the put.
	put := func() {
		body := fmt.Sprintf(`{"metadata":{"paths":["%s.news.1"]},"body":"aGk="}`, word)
		r, err := http.Post(a.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
	}
	time.Sleep(500 * time.Millisecond)
	put()
	select {
	case line := <-got:
		if !strings.Contains(line, word+".news.1") {
			t.Errorf("node B got event %s", line)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("a put through node A did not reach node B's event subscriber")
	}
}

// TestAMQPIngestOverItsRateGoesToDeadLetterExchange: with the amqp door
// limited to 2 messages a second (burst 2), a backend publishing 10 at
// once gets 2 stored and 8 in the dead-letter exchange with the reason
// "rate exceeded", each exactly once: none lost, none stored twice.
func TestAMQPIngestOverItsRateGoesToDeadLetterExchange(t *testing.T) {
	u := amqpURL(t)
	names := newAMQPNames()
	s := startServer(t, "", append(names.args(u), "--limit", "amqp=2/s:2")...)
	ch := rabbitChannel(t, u)
	waitExchange(t, ch, names.dlx)
	dead := bindQueue(t, ch, names.dlx, "#")
	word := uniqueWord(t)
	for i := range 10 {
		publishConfirmed(t, ch, names.ingest, fmt.Sprintf("%s.m%d", word, i), rabbit.Publishing{Body: []byte(fmt.Sprint(i))})
	}
	deadKeys := map[string]bool{}
	deadline := time.After(30 * time.Second)
	for len(deadKeys) < 8 {
		select {
		case d := <-dead:
			reason, _ := d.Headers["x-herald-error"].(string)
			if !strings.Contains(reason, "rate exceeded") {
				t.Fatalf("dead-lettered %s with reason %q, want rate exceeded", d.RoutingKey, reason)
			}
			if deadKeys[d.RoutingKey] {
				t.Fatalf("%s dead-lettered twice", d.RoutingKey)
			}
			deadKeys[d.RoutingKey] = true
		case <-deadline:
			t.Fatalf("%d of 8 messages over the rate reached the dead-letter exchange", len(deadKeys))
		}
	}
	stored := func() error {
		body := latestJSON(t, s, word+".*")
		stored := strings.Count(body, `"path":`)
		if stored != 2 {
			return fmt.Errorf("%d messages stored, want 2: %s", stored, body)
		}
		for k := range deadKeys {
			if strings.Contains(body, `"path":"`+k+`"`) {
				return fmt.Errorf("%s both stored and dead-lettered", k)
			}
		}
		return nil
	}
	// The two admitted puts may land after the eight refusals: poll.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := stored()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	if n := throttledCount(t, s, "amqp"); n != 8 {
		t.Errorf("herald_throttled_total{door=amqp} = %v, want 8", n)
	}
}
