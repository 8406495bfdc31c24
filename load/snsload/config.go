package snsload

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/load/sqsload"
)

// Config describes one benchmark run.
type Config struct {
	Server      string // base URL of the server; the only server the run calls
	Subscribers int    // HTTP endpoints (http scenario) or queues (queues scenario) subscribed to the topic
	// Listeners is how many local ports the HTTP subscribers are spread
	// over, so a server's per-host connection limits apply as they would
	// to several real hosts.
	Listeners int
	// Concurrency is the number of publishers (http scenario) and of the
	// workers that create, subscribe, receive and delete (both).
	Concurrency int
	Duration    time.Duration // how long the http scenario publishes
	// Rate paces the http scenario's publishes per second in all; a
	// message's latency then counts from when it was due. 0: flat out.
	Rate        float64
	MessageSize int           // bytes of every published message (at least what its header needs)
	Drain       time.Duration // how long the http scenario waits for late deliveries after the last publish
	// Timeout bounds the wait for HTTP subscriptions to be confirmed, and
	// in the queues scenario for the message to reach every queue.
	Timeout time.Duration
	Wait    int  // queues scenario: ReceiveMessage WaitTimeSeconds (0..20)
	Keep    bool // leave the topic (and queues) behind
	// Prefix names the run's topic and queues; empty picks a unique one.
	Prefix   string
	Progress io.Writer // where progress bars are drawn; nil for none

	AccessKey, SecretKey, Region string // sign requests with SigV4 when both keys are set
}

// Validate reports what is wrong with c, if anything, before a run.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

func (c Config) withDefaults() (Config, error) {
	if !strings.HasPrefix(c.Server, "http://") && !strings.HasPrefix(c.Server, "https://") {
		return c, fmt.Errorf("server %q: want an http:// or https:// URL", c.Server)
	}
	switch {
	case c.Subscribers < 1:
		return c, fmt.Errorf("subscribers %d: want at least 1", c.Subscribers)
	case c.Concurrency < 1:
		return c, fmt.Errorf("concurrency %d: want at least 1", c.Concurrency)
	case c.Duration <= 0:
		return c, fmt.Errorf("duration %s: want more than 0", c.Duration)
	case c.Rate < 0:
		return c, fmt.Errorf("rate %g: cannot be negative", c.Rate)
	case c.Drain < 0 || c.Timeout <= 0:
		return c, fmt.Errorf("drain cannot be negative and timeout must be positive")
	case c.Wait < 0 || c.Wait > 20:
		return c, fmt.Errorf("wait %d: want 0..20 seconds", c.Wait)
	case c.MessageSize < 0 || c.MessageSize > 256*1024:
		return c, fmt.Errorf("message size %d: want 0..262144 bytes", c.MessageSize)
	}
	if c.Listeners < 1 {
		c.Listeners = 1
	}
	c.Listeners = min(c.Listeners, c.Subscribers)
	if c.Prefix == "" {
		c.Prefix = "herald-bench-sns-" + uuid.NewString()[:8]
	}
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	return c, nil
}

// snsClient returns the run's SNS client, with a connection per worker.
func (c Config) snsClient() *Client {
	return NewClient(c.Server, c.Concurrency, 30*time.Second, c.AccessKey, c.SecretKey, c.Region)
}

// sqsClient returns the run's SQS client; one call may take a whole long poll.
func (c Config) sqsClient() *sqsload.Client {
	return sqsload.NewClient(c.Server, sqsload.Options{
		Connections: c.Concurrency,
		Timeout:     time.Duration(c.Wait)*time.Second + 30*time.Second,
		AccessKey:   c.AccessKey, SecretKey: c.SecretKey, Region: c.Region,
	})
}

// Latency is a distribution's percentiles.
type Latency struct {
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	P999 time.Duration `json:"p999_ns"`
	Max  time.Duration `json:"max_ns"`
}

func (l Latency) String() string {
	return fmt.Sprintf("p50 %s p90 %s p99 %s p99.9 %s max %s", short(l.P50), short(l.P90), short(l.P99), short(l.P999), short(l.Max))
}

// short rounds d for reading.
func short(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
