// Package alertload measures CMB's flagship case on a Herald server: a
// nationwide alert system of set-top boxes, each with its own SQS queue
// subscribed to one SNS topic with a filter policy on its state and zip
// code, a share of them holding a WebSocket on which their queue's
// messages are pushed. It creates the devices, publishes an alert to one
// state, to one zip code and to the whole country, and reports how long
// each took to be in every matching queue, how fast a connected device
// saw it, and, by reading every device back, what was lost or duplicated.
// `herald bench alert` is built on it.
package alertload

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Config is what a run does.
type Config struct {
	Server      string // Herald's base URL
	Devices     int    // device queues and subscriptions (default 1,000,000)
	Connected   int    // devices holding a WebSocket during the alerts (default 1% of Devices, at most 10,000)
	Late        int    // offline devices that connect after the alerts and must get them over their WebSocket (default 1,000)
	States      int    // states the devices are spread over (default 50)
	Zips        int    // zip codes the devices are spread over (default Devices/100)
	Concurrency int    // workers of the setup and read-back phases (default 64)
	Timeout     time.Duration
	Idle        time.Duration // how long to measure the server idle with every device created (0: not measured)
	Keep        bool          // leave the topic and queues on the server
	Prefix      string        // name of the topic and prefix of the queues
	AccessKey   string
	SecretKey   string
	Region      string
	Progress    io.Writer
}

func (c Config) withDefaults() (Config, error) {
	if c.Server == "" {
		c.Server = "http://127.0.0.1:4566"
	}
	c.Server = strings.TrimRight(c.Server, "/")
	if c.Devices == 0 {
		c.Devices = 1_000_000
	}
	if c.Connected < 0 {
		c.Connected = min(10_000, c.Devices/100)
	}
	if c.Late < 0 {
		c.Late = min(1_000, c.Devices/100)
	}
	if c.States == 0 {
		c.States = 50
	}
	if c.Zips == 0 {
		c.Zips = max(1, c.Devices/100)
	}
	if c.Concurrency == 0 {
		c.Concurrency = 64
	}
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Minute
	}
	if c.Prefix == "" {
		c.Prefix = fmt.Sprintf("herald-bench-alert-%06d", rand.IntN(1_000_000))
	}
	return c, c.Validate()
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch {
	case c.Devices < 1:
		return errors.New("devices must be at least 1")
	case c.Connected > c.Devices || c.Late > c.Devices-max(c.Connected, 0):
		return errors.New("connected and late devices must be among the devices, apart")
	case c.States < 1 || c.Zips < 1 || c.Zips > 99_999:
		return errors.New("states must be at least 1, zips 1 to 99999")
	case c.Concurrency < 1:
		return errors.New("concurrency must be at least 1")
	case len(c.Prefix) > 60:
		return errors.New("prefix must be at most 60 characters")
	}
	return nil
}

// state and zip are device i's: every state and zip code has devices.
func (c Config) state(i int) string { return fmt.Sprintf("S%02d", i%c.States) }
func (c Config) zip(i int) string   { return fmt.Sprintf("%05d", (i/c.States)%c.Zips) }

// queueName is device i's queue.
func (c Config) queueName(i int) string { return fmt.Sprintf("%s-%07d", c.Prefix, i) }

// policy is device i's filter policy: its state, its zip code, or the
// whole country.
func (c Config) policy(i int) string {
	return fmt.Sprintf(`{"$or":[{"state":[%q]},{"zip":[%q]},{"scope":["nationwide"]}]}`, c.state(i), c.zip(i))
}

// fleet picks the connected and the late devices: spread evenly over the
// fleet, each at an offset within its stride, so that they fall in every
// state and zip code.
func (c Config) fleet() (connected, late map[int]bool) {
	connected, late = map[int]bool{}, map[int]bool{}
	if c.Connected > 0 {
		step := c.Devices / c.Connected
		for k := range c.Connected {
			connected[k*step+(k*31)%step] = true
		}
	}
	if c.Late > 0 {
		step := (c.Devices - c.Connected) / c.Late
		for k := range c.Late {
			i := k*step + (k*37+step/2)%step
			for connected[i] || late[i] {
				i = (i + 1) % c.Devices
			}
			late[i] = true
		}
	}
	return connected, late
}

// alert is one of the run's three publishes.
type alert struct {
	Name  string            `json:"name"`
	Attrs map[string]string `json:"attributes"`
}

// alerts are the run's publishes: one state, one zip code, the country.
func (c Config) alerts() []alert {
	return []alert{
		{"state", map[string]string{"state": c.state(0)}},
		{"zip", map[string]string{"zip": c.zip(c.States)}}, // a zip code of devices outside state 0, mostly
		{"nationwide", map[string]string{"scope": "nationwide"}},
	}
}

// matches reports whether device i is to get alert a.
func (c Config) matches(i int, a alert) bool {
	switch a.Name {
	case "state":
		return c.state(i) == a.Attrs["state"]
	case "zip":
		return c.zip(i) == a.Attrs["zip"]
	}
	return true
}
