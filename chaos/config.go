package chaos

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// The setups a drill runs Herald on.
const (
	StoreEmbedded  = "embedded"
	StoreCassandra = "cassandra"
)

// Config is what a drill is told. Zero fields take the defaults of
// withDefaults.
type Config struct {
	// Scenarios to run, in order: names from ScenarioNames, or "all".
	Scenarios []string
	// Store is the setup: StoreEmbedded or StoreCassandra.
	Store string
	// CassandraHosts are the Cassandra nodes (host:port, loopback). Herald
	// reaches each through a proxy of the drill's.
	CassandraHosts []string
	// CassandraKeyspace is the keyspace Herald uses; empty: a fresh one,
	// dropped at the end.
	CassandraKeyspace string
	// AMQPURL is the RabbitMQ of the amqp scenario (loopback); Herald
	// reaches it through a proxy, the drill's publishers directly.
	AMQPURL string

	// Messages is the number of acknowledged messages each scenario aims
	// for; Duration bounds each scenario's load.
	Messages int
	Duration time.Duration
	// Rate paces the producers, in messages per second in all; 0 runs
	// them flat out.
	Rate float64
	// Producers and Consumers are the concurrent workers of each side;
	// Batch is how many messages one produce call sends (SQS and AMQP
	// batches; one call each for SNS and the cache).
	Producers, Consumers, Batch int
	// PayloadBytes is the size of each message's payload (its body adds
	// the id and checksum).
	PayloadBytes int
	// Subscribers is the fan-out of the SNS scenarios.
	Subscribers int
	// Visibility is the VisibilityTimeout of the drill's queues.
	Visibility time.Duration

	// Faults are injected in this order (nil: DefaultFaults(Store)); each
	// scenario runs those that apply to it. FaultEvery is the pause
	// between the end of one fault and the start of the next; FaultRounds
	// the number of passes over Faults (0: until the load ends; then the
	// load also runs until every fault was injected).
	Faults      []FaultKind
	FaultEvery  time.Duration
	FaultRounds int
	// CutFor is how long a cut link stays cut; DownFor how long a killed
	// process stays down before it is started again.
	CutFor, DownFor time.Duration
	// DrainTimeout ends the wait for acknowledged messages after the load
	// (and again after the recheck restart) once that long passed without
	// one arriving; Duration bounds the wait in any case.
	DrainTimeout time.Duration
	// Settle bounds the wait for the recovery after the last fault.
	Settle time.Duration

	// HeraldBin is the herald binary to run; RedisServer the redis-server
	// binary (Cassandra setup); ServicesScript scripts/services, for the
	// cassandra-restart and rabbitmq-restart faults.
	HeraldBin, RedisServer, ServicesScript string
	// WorkDir holds Herald's data and logs ("": a temporary directory,
	// removed at the end unless the drill failed or KeepWorkDir is set).
	WorkDir     string
	KeepWorkDir bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// withDefaults fills in zero fields and checks the configuration.
func (c Config) withDefaults() (Config, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if c.Store == "" {
		c.Store = StoreEmbedded
	}
	if len(c.Scenarios) == 0 {
		c.Scenarios = []string{"sqs"}
	}
	def(&c.Messages, 10000)
	defDur(&c.Duration, 10*time.Minute)
	def(&c.Producers, 4)
	def(&c.Consumers, 4)
	def(&c.Batch, 10)
	def(&c.PayloadBytes, 128)
	def(&c.Subscribers, 2)
	defDur(&c.Visibility, 10*time.Second)
	defDur(&c.FaultEvery, 10*time.Second)
	defDur(&c.CutFor, 5*time.Second)
	defDur(&c.DownFor, time.Second)
	defDur(&c.DrainTimeout, 60*time.Second)
	defDur(&c.Settle, 30*time.Second)
	if c.RedisServer == "" {
		c.RedisServer = "redis-server"
	}
	if c.ServicesScript == "" {
		c.ServicesScript = "scripts/services"
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Faults == nil {
		c.Faults = DefaultFaults(c.Store)
	}
	switch {
	case c.Store != StoreEmbedded && c.Store != StoreCassandra:
		return c, fmt.Errorf("store %q: the setups are %s and %s", c.Store, StoreEmbedded, StoreCassandra)
	case c.HeraldBin == "":
		return c, errors.New("no herald binary given")
	case c.Batch > 10:
		return c, errors.New("batch: at most 10 (SQS's batch limit)")
	case c.Subscribers > 10:
		return c, errors.New("subscribers: at most 10")
	case c.Visibility%time.Second != 0:
		return c, errors.New("visibility timeout: whole seconds")
	case c.Rate < 0:
		return c, errors.New("rate: not negative")
	}
	if err := checkFaults(c.Faults, c.Store); err != nil {
		return c, err
	}
	if c.Store == StoreCassandra {
		if len(c.CassandraHosts) == 0 {
			c.CassandraHosts = []string{"127.0.0.1:9042"}
		}
		for i, h := range c.CassandraHosts {
			if !strings.Contains(h, ":") {
				c.CassandraHosts[i] = h + ":9042"
			}
			if err := checkLoopback(c.CassandraHosts[i]); err != nil {
				return c, fmt.Errorf("cassandra host: %w", err)
			}
		}
		if c.CassandraKeyspace != "" && !keyspaceRE.MatchString(c.CassandraKeyspace) {
			return c, fmt.Errorf("keyspace %q: letters, digits and underscores, starting with a letter", c.CassandraKeyspace)
		}
		bin, err := exec.LookPath(c.RedisServer)
		if err != nil {
			return c, fmt.Errorf("the Cassandra setup needs redis-server (the drill runs its own): %w", err)
		}
		c.RedisServer = bin
	}
	if c.AMQPURL != "" {
		u, err := url.Parse(c.AMQPURL)
		if err != nil || u.Host == "" {
			return c, fmt.Errorf("amqp url %q: not a URL", c.AMQPURL)
		}
		host := u.Host
		if u.Port() == "" {
			host += ":5672"
		}
		if err := checkLoopback(host); err != nil {
			return c, fmt.Errorf("amqp url: %w", err)
		}
	}
	for _, k := range c.Faults {
		if k == CassandraRestart || k == RabbitMQRestart {
			if _, err := exec.LookPath(c.ServicesScript); err != nil {
				return c, fmt.Errorf("fault %s runs %s: %w", k, c.ServicesScript, err)
			}
		}
	}
	return c, nil
}

// scenarioList resolves the Scenarios: "all" is every scenario (amqp only
// with an AMQP URL). notes says what was left out.
func (c Config) scenarioList() (names, notes []string, err error) {
	for _, s := range c.Scenarios {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
		case s == "all":
			for _, n := range ScenarioNames() {
				if n == "amqp" && c.AMQPURL == "" {
					notes = append(notes, "scenario amqp left out: no AMQP URL")
					continue
				}
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		case !slices.Contains(ScenarioNames(), s):
			return nil, nil, fmt.Errorf("unknown scenario %q (the scenarios: %s, or all)", s, strings.Join(ScenarioNames(), ", "))
		case s == "amqp" && c.AMQPURL == "":
			return nil, nil, errors.New("scenario amqp needs an AMQP URL (--amqp-url)")
		case !slices.Contains(names, s):
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		return nil, nil, errors.New("no scenario to run")
	}
	return names, notes, nil
}
