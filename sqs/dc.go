package sqs

import (
	"context"
	"errors"
	"maps"
	"sync"
	"time"
)

// Several data centers on one Cassandra cluster (docs/deploy.md, "Several
// data centers"). Each queue has a home data center, the one that created
// it (Queue.Home), and exactly one Index serves it at a time: its home's
// (a Redis of that data center), whichever data center the call comes
// from. Nodes of the other data centers reach that Index across the link
// (DCConfig.Indexes), so a message sent in either data center is
// receivable in either, and visibility, receive counts, redrive and FIFO
// order are decided in one place, exactly as in one data center, with no
// duplicates in the steady state. The price: calls on a queue from outside
// its home pay the round trips to the home's Redis, and while the link is
// cut only the home serves the queue.
//
// When a data center is lost, an operator fences it (FenceDC): its queues
// are then served by the data center that fenced it, whose Index rebuilds
// them from the Store (the epoch bump at the fence makes sure nothing
// stale of an earlier fence is reused). UnfenceDC gives them back; the
// returning data center's Index rebuilds them under a new epoch, twice:
// once at once and once after every node has seen the unfence, so that
// what nodes still routing to the taker added meanwhile is not stranded.

// Fences keeps which data centers are fenced: taken out of service after
// their loss, their queues served by the data center that fenced them.
type Fences interface {
	// Fences returns each fenced data center with the one that fenced it.
	Fences(ctx context.Context) (map[string]string, error)
	// Fence records that dc is fenced by by.
	Fence(ctx context.Context, dc, by string) error
	// Unfence ends dc's fence.
	Unfence(ctx context.Context, dc string) error
}

// DCConfig places queues in data centers; the zero value is one data
// center (today's behaviour: one Index, no homes).
type DCConfig struct {
	// Local is this node's data center; "" is one data center and turns
	// the rest off.
	Local string
	// LegacyHome is the home of queues whose record names none (created
	// before homes, or by a node of one data center): every node must
	// name the same one. "": Local.
	LegacyHome string
	// Fences keeps the fenced data centers; nil: none is ever fenced.
	Fences Fences
	// Epochs returns the index epochs of data center dc, whose Index a
	// node may use for queues homed there; nil: Config.IndexEpochs for
	// every data center.
	Epochs func(dc string) IndexEpochs
	// Refresh is how often a node reads the fences (5 s): a fence or an
	// unfence reaches every node within it.
	Refresh time.Duration
	// ReplicationGrace is how long after its send a claimed message that
	// the Store does not have is taken for one not yet replicated from
	// another data center (handed back) rather than for a deleted one
	// (removed from the Index): 30 s.
	ReplicationGrace time.Duration
}

func (c DCConfig) withDefaults() DCConfig {
	if c.LegacyHome == "" {
		c.LegacyHome = c.Local
	}
	if c.Refresh <= 0 {
		c.Refresh = 5 * time.Second
	}
	if c.ReplicationGrace <= 0 {
		c.ReplicationGrace = 30 * time.Second
	}
	return c
}

// AllDCs is IndexQueue.DC of an operation that concerns the queue's state
// in every data center's Index (Drop by an invalidation that knows only
// the queue's ID).
const AllDCs = "*"

// ServingDC returns the data center whose Index serves queues homed in
// home: home itself, or, while home is fenced, the data center that fenced
// it (followed along a chain of fences).
func ServingDC(home string, fenced map[string]string) string {
	for range len(fenced) {
		by, ok := fenced[home]
		if !ok || by == "" || by == home {
			break
		}
		home = by
	}
	return home
}

// errDCNotConfigured: a data center operation on a node of one data
// center.
var errDCNotConfigured = errors.New("this node is not in a deployment of several data centers (--cassandra-local-dc)")

// fenceCache holds the fences as last read.
type fenceCache struct {
	src   Fences
	every time.Duration
	now   func() time.Time

	mu     sync.Mutex
	fenced map[string]string
	readAt time.Time
}

// get returns the fences, reading them if the value held is older than
// the refresh interval (a failed read keeps the value held).
func (c *fenceCache) get(ctx context.Context) map[string]string {
	if c == nil || c.src == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := c.now(); c.readAt.IsZero() || now.Sub(c.readAt) >= c.every {
		c.readAt = now
		if f, err := c.src.Fences(ctx); err == nil {
			c.fenced = f
		}
	}
	return c.fenced
}

// refresh reads the fences now.
func (c *fenceCache) refresh(ctx context.Context) (map[string]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := c.src.Fences(ctx)
	if err != nil {
		return c.fenced, err
	}
	c.fenced, c.readAt = f, c.now()
	return maps.Clone(f), nil
}

// multiDC reports whether the node is in a deployment of several data
// centers.
func (s *Service) multiDC() bool { return s.cfg.DC.Local != "" }

// servingDC returns the data center whose Index serves q now ("" in one
// data center).
func (s *Service) servingDC(ctx context.Context, q *Queue) string {
	if !s.multiDC() {
		return ""
	}
	home := q.Home
	if home == "" {
		home = s.cfg.DC.LegacyHome
	}
	return ServingDC(home, s.fences.get(ctx))
}

// servedHere reports whether q's Index is this data center's (always in
// one data center).
func (s *Service) servedHere(ctx context.Context, q *Queue) bool {
	dc := s.servingDC(ctx, q)
	return dc == "" || dc == s.cfg.DC.Local
}

// epochsOf returns the epoch cache of data center dc's Index.
func (s *Service) epochsOf(dc string) *epochCache {
	if dc == "" || dc == s.cfg.DC.Local || s.cfg.DC.Epochs == nil {
		return s.epochs
	}
	s.dcEpochsMu.Lock()
	defer s.dcEpochsMu.Unlock()
	c, ok := s.dcEpochs[dc]
	if !ok {
		c = newEpochCache(s.cfg.DC.Epochs(dc), s.cfg.IndexEpochRefresh, s.cfg.Clock)
		s.dcEpochs[dc] = c
	}
	return c
}
