package sns

import (
	"context"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sns/filter"
)

// The filter index (docs/sns.md, "Filter index"): engines keep every
// subscription under the index keys of its filter policy
// (FilterIndexKeys), and under "" when it has none. A fan-out of a
// standard topic then walks, for each key the message carries, the
// subscriptions indexed under it, and last those under "": a publish to
// one state of a million devices with a policy on their state reads the
// devices of that state, not a million policies. Every subscription read
// is still tested against its whole policy, so the index only ever saves
// work; a subscription reached under several keys is delivered from the
// first of them (firstShared), once.

// maxMessageIndexKeys bounds the walk of one publish: a message carrying
// more index keys (a String.Array of thousands of values) is fanned out by
// testing every subscription instead.
const maxMessageIndexKeys = 1000

// filterIndexKind is the kind of the account records (of the internal
// account, keyed by topic ID) that mark a topic whose every subscription
// is in the filter index: topics created since the index existed, and
// older ones once indexTopic has indexed them.
const filterIndexKind = "filter-index"

// FilterIndexKeys returns the filter index keys of a subscription with
// attributes attrs, sorted: every message its filter policy lets through
// carries one of them. None (nil) when it has no policy, a MessageBody
// policy, an invalid one or one with no exact string values to index by
// (filter.Policy.IndexKeys): a publish then tests it whatever the message.
// Engines index subscriptions by it; it depends on nothing but the
// FilterPolicy and FilterPolicyScope attributes.
func FilterIndexKeys(attrs map[string]string) []string {
	text := attrs[AttrFilterPolicy]
	if text == "" || filterScope(attrs) != ScopeMessageAttributes {
		return nil
	}
	return indexKeyCache.of(text)
}

// FilterIndexEntries returns the keys an engine keeps a subscription with
// attributes attrs under: its FilterIndexKeys, or "" when it has none.
func FilterIndexEntries(attrs map[string]string) []string {
	if keys := FilterIndexKeys(attrs); len(keys) > 0 {
		return keys
	}
	return []string{""}
}

// keyCache keeps the index keys of recent policy texts: a fan-out asks for
// those of every subscription it reads, and a million devices share a few
// thousand policies.
type keyCache struct {
	mu sync.Mutex
	m  map[string][]string
}

var indexKeyCache keyCache

func (c *keyCache) of(text string) []string {
	c.mu.Lock()
	keys, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return keys
	}
	if p, err := filter.Parse(text, filter.ScopeMessageAttributes); err == nil {
		keys, _ = p.IndexKeys()
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= filterCacheLimit {
		c.m = map[string][]string{}
	}
	c.m[text] = keys
	c.mu.Unlock()
	return keys
}

// messageIndexKeys returns the index keys a message's attributes carry,
// sorted.
func messageIndexKeys(attrs map[string]MessageAttributeValue) []string {
	if len(attrs) == 0 {
		return nil
	}
	return filter.MessageKeys(filterAttributes(attrs))
}

// firstShared returns the first key of sorted a that sorted b holds too,
// or "" when they share none.
func firstShared(a, b []string) string {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch strings.Compare(a[i], b[j]) {
		case 0:
			return a[i]
		case -1:
			i++
		default:
			j++
		}
	}
	return ""
}

// indexWalk is the list of index keys a fan-out walks for a message: its
// own keys, then "" (the subscriptions with none).
func indexWalk(msgKeys []string) []string {
	return append(append(make([]string, 0, len(msgKeys)+1), msgKeys...), "")
}

// reachedUnder reports whether a subscription read under index key key is
// to be delivered from there: under its first key the message carries, or
// under "" when it has no keys. A subscription with keys is never read
// under "" (nor one without under a key) unless an engine's entry is
// stale; it then goes by its stored attributes.
func reachedUnder(attrs map[string]string, key string, msgKeys []string) bool {
	keys := FilterIndexKeys(attrs)
	if key == "" {
		return len(keys) == 0
	}
	return firstShared(keys, msgKeys) == key
}

// topicIndexed reports whether every subscription of t is in the filter
// index, from the topic's mark (cached once seen: a mark is never taken
// back). A topic without it starts indexTopic in the background.
func (s *Service) topicIndexed(ctx context.Context, t *Topic) bool {
	s.indexMu.Lock()
	done := s.indexed[t.ID]
	s.indexMu.Unlock()
	if done {
		return true
	}
	if _, err := s.store.GetAccountRecord(ctx, s.cfg.InternalAccount, filterIndexKind, t.ID.String()); err == nil {
		s.indexMu.Lock()
		s.indexed[t.ID] = true
		s.indexMu.Unlock()
		return true
	}
	s.startIndexing(t.ID)
	return false
}

// markIndexed records that every subscription of topic id is in the
// filter index.
func (s *Service) markIndexed(ctx context.Context, id uuid.UUID) error {
	if err := s.store.PutAccountRecord(ctx, s.cfg.InternalAccount, filterIndexKind, id.String(), nil); err != nil {
		return err
	}
	s.indexMu.Lock()
	s.indexed[id] = true
	s.indexMu.Unlock()
	return nil
}

// startIndexing indexes the subscriptions of a topic stored before the
// filter index existed, once per node at a time, then marks the topic.
// Until then its publishes test every subscription, as before.
func (s *Service) startIndexing(id uuid.UUID) {
	s.indexMu.Lock()
	defer s.indexMu.Unlock()
	if s.indexing[id] {
		return
	}
	s.indexing[id] = true
	go func() {
		defer func() {
			s.indexMu.Lock()
			delete(s.indexing, id)
			s.indexMu.Unlock()
		}()
		if err := s.indexTopic(s.bg, id); err != nil && s.bg.Err() == nil {
			s.log.Warn("sns: indexing the subscriptions of a topic by their filter policies failed; its publishes test every subscription until a later publish tries again", "topic_id", id, "err", err)
		}
	}()
}

// indexTopic writes the filter index entries of every subscription of
// topic id, then marks the topic.
func (s *Service) indexTopic(ctx context.Context, id uuid.UUID) error {
	after := uuid.Nil
	for {
		last, err := s.store.IndexSubscriptions(ctx, id, after, 1000)
		if err != nil {
			return err
		}
		if last == uuid.Nil {
			break
		}
		after = last
	}
	if err := s.markIndexed(ctx, id); err != nil {
		return err
	}
	s.log.Info("sns: indexed the subscriptions of a topic by their filter policies", "topic_id", id)
	return nil
}
