package amqp

import (
	"sort"
	"sync"
)

// Links tracks which of a node's RabbitMQ connections (by role: events
// publisher, events consumer, ingest consumer) are up, for /healthz and
// /metrics. The zero value is ready; share one between Events and Ingest
// through Options.Links.
type Links struct {
	mu sync.Mutex
	up map[string]bool
}

func (l *Links) set(role string, up bool) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.up == nil {
		l.up = map[string]bool{}
	}
	l.up[role] = up
}

// Up returns each known role and whether its connection is up, by role.
func (l *Links) Up() map[string]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]bool, len(l.up))
	for r, u := range l.up {
		out[r] = u
	}
	return out
}

// Down lists the roles whose connection is down, sorted.
func (l *Links) Down() []string {
	var down []string
	for r, u := range l.Up() {
		if !u {
			down = append(down, r)
		}
	}
	sort.Strings(down)
	return down
}
