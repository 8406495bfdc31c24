package sqsload

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Config describes one benchmark run.
type Config struct {
	Server string // base URL of the server; the only address the run talks to
	// Servers, when set, are more base URLs the workers spread over:
	// worker w calls Servers[w mod len] (and Server, which is Servers[0]
	// when empty, creates and deletes the queues). A cluster of nodes
	// serving one set of queues is loaded this way (bench/scale).
	Servers     []string
	Concurrency int           // workers, each with its own keep-alive connection
	Duration    time.Duration // how long the load runs (0: until Requests)
	Requests    int           // stop after this many worker cycles (0: until Duration)
	Queues      int           // queues the load spreads over; for the idle-queues scenario, queues to create
	Batch       int           // messages per send and delete call and at most per receive (1..10)
	MessageSize int           // bytes of every message body
	Mix         Mix           // what each worker cycle does
	Rate        float64       // worker cycles per second in all, paced (open loop); 0: flat out
	Wait        int           // ReceiveMessage WaitTimeSeconds
	// Visibility is ReceiveMessage's VisibilityTimeout; negative chooses:
	// 0 when the mix receives without deleting (so pre-filled messages
	// come back and a receive-only load never drains its queue), otherwise
	// the queue's own.
	Visibility int
	// Prefill is how many messages each queue gets before the load starts
	// (rounded up to batches of 10); negative chooses: 1000 when the mix
	// receives but does not send, otherwise none.
	Prefill int
	Keep    bool // leave the queues behind instead of deleting them
	// Tags are given to every queue the run creates (e.g. herald:shards).
	Tags map[string]string
	// QueuePrefix names the run's queues (prefix-0, prefix-1, ...); empty
	// picks a unique one so runs never see each other's queues.
	QueuePrefix string
	// Settle is how long the idle-queues scenario waits after creating its
	// queues before reading the server's memory again.
	Settle   time.Duration
	Progress io.Writer // where the progress bar is drawn; nil for none
	// Marks, when set, gets the line MarkLoadStart as the mix's measured
	// phase begins (after the queues are created and filled) and
	// MarkLoadEnd as it ends (before they are deleted), so that a harness
	// can read the server's CPU over the phase alone.
	Marks io.Writer

	AccessKey, SecretKey, Region string // sign requests with SigV4 when both keys are set
}

// The lines Config.Marks gets.
const (
	MarkLoadStart = "sqsload: load start"
	MarkLoadEnd   = "sqsload: load end"
)

// mark writes line to c.Marks, if set.
func (c Config) mark(line string) {
	if c.Marks != nil {
		fmt.Fprintln(c.Marks, line)
	}
}

// Validate reports what is wrong with c, if anything, before a run.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults fills what the caller left to choose and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Server == "" && len(c.Servers) > 0 {
		c.Server = c.Servers[0]
	}
	if c.Server == "" {
		return c, fmt.Errorf("no server to load")
	}
	for _, s := range append([]string{c.Server}, c.Servers...) {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
			return c, fmt.Errorf("server %q: want an http:// or https:// URL", s)
		}
	}
	if c.Concurrency < 1 {
		return c, fmt.Errorf("concurrency %d: want at least 1", c.Concurrency)
	}
	if c.Queues < 1 {
		return c, fmt.Errorf("queues %d: want at least 1", c.Queues)
	}
	if c.Batch < 1 || c.Batch > MaxBatch {
		return c, fmt.Errorf("batch %d: want 1..%d", c.Batch, MaxBatch)
	}
	if c.MessageSize < 1 {
		return c, fmt.Errorf("message size %d: SQS needs at least one character", c.MessageSize)
	}
	if c.Wait < 0 || c.Wait > 20 {
		return c, fmt.Errorf("wait %d: want 0..20 seconds", c.Wait)
	}
	if c.Duration < 0 || c.Requests < 0 {
		return c, fmt.Errorf("duration and requests cannot be negative")
	}
	if c.Duration == 0 && c.Requests == 0 {
		c.Duration = 10 * time.Second
	}
	if c.Visibility < 0 && c.Mix.Receives > 0 && !c.Mix.Delete {
		c.Visibility = 0
	}
	if c.Prefill < 0 {
		c.Prefill = 0
		if c.Mix.Receives > 0 && c.Mix.Sends == 0 {
			c.Prefill = 1000
		}
	}
	if c.QueuePrefix == "" {
		c.QueuePrefix = "herald-bench-" + uuid.NewString()[:8]
	}
	return c, nil
}

// client returns a client of c.Server sized for c's concurrency; one call
// may take a whole long poll.
func (c Config) client() *Client { return c.clientOf(c.Server, c.Concurrency) }

func (c Config) clientOf(server string, connections int) *Client {
	return NewClient(server, Options{
		Connections: connections,
		Timeout:     time.Duration(c.Wait)*time.Second + 30*time.Second,
		AccessKey:   c.AccessKey, SecretKey: c.SecretKey, Region: c.Region,
	})
}

// workerClients returns the client of each worker: c (of c.Server) for
// every worker, or with Servers one client per server, worker w calling
// Servers[w mod len], and the function closing the extra clients.
func (c Config) workerClients(main *Client) ([]*Client, func()) {
	out := make([]*Client, c.Concurrency)
	if len(c.Servers) == 0 {
		for w := range out {
			out[w] = main
		}
		return out, func() {}
	}
	per := make([]*Client, len(c.Servers))
	for i, s := range c.Servers {
		per[i] = c.clientOf(s, (c.Concurrency+len(c.Servers)-1)/len(c.Servers))
	}
	for w := range out {
		out[w] = per[w%len(per)]
	}
	return out, func() {
		for _, p := range per {
			p.Close()
		}
	}
}

// queueName is the name of the run's i-th queue.
func (c Config) queueName(i int) string {
	return fmt.Sprintf("%s-%d", c.QueuePrefix, i)
}

// messageBody returns a body of size printable ASCII bytes, which SQS
// accepts and JSON needs no escapes for.
func messageBody(size int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, size)
	for i := range b {
		b[i] = letters[i%len(letters)]
	}
	return string(b)
}
