package sqs

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/heraldmq/herald"
)

// queueCache is a bounded LRU of queue records with a short TTL: every SQS
// call names a queue, and reading its record from the Store each time
// would double the Store's work. Records in it are shared and never
// modified; changes copy them (cloneQueue).
type queueCache struct {
	mu    sync.Mutex
	size  int
	ttl   time.Duration
	order *list.List // of *cachedQueue, most recently used first
	byKey map[string]*list.Element
}

type cachedQueue struct {
	key     string
	q       *Queue
	expires time.Time
}

func newQueueCache(size int, ttl time.Duration) *queueCache {
	return &queueCache{size: size, ttl: ttl, order: list.New(), byKey: make(map[string]*list.Element)}
}

// queueKey names a queue in the cache: its stored account key (account
// and region) and name.
func queueKey(account, region, name string) string {
	return storeAccount(account, region) + "/" + name
}

// get returns the cached record, or nil when absent or stale. The TTL is
// measured on the wall clock, not the Service's (possibly fake) clock.
func (c *queueCache) get(key string) *Queue {
	if c.ttl < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil
	}
	e := el.Value.(*cachedQueue)
	if time.Now().After(e.expires) {
		c.order.Remove(el)
		delete(c.byKey, key)
		return nil
	}
	c.order.MoveToFront(el)
	return e.q
}

func (c *queueCache) put(q *Queue) {
	if c.ttl < 0 {
		return
	}
	key := queueKey(q.Account, q.Region, q.Name)
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &cachedQueue{key: key, q: q, expires: time.Now().Add(c.ttl)}
	if el, ok := c.byKey[key]; ok {
		el.Value = e
		c.order.MoveToFront(el)
		return
	}
	c.byKey[key] = c.order.PushFront(e)
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cachedQueue).key)
	}
}

func (c *queueCache) invalidate(account, region, name string) {
	key := queueKey(account, region, name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.order.Remove(el)
		delete(c.byKey, key)
	}
}

// queue returns the queue of account and name in region ("" is the home
// region; QueueDoesNotExist).
func (s *Service) queue(ctx context.Context, account, region, name string) (*Queue, error) {
	if q := s.queues.get(queueKey(account, region, name)); q != nil {
		s.track(q)
		return q, nil
	}
	q, err := s.store.GetQueue(ctx, account, region, name)
	if err != nil {
		if herald.ErrorCode(err) == herald.ENotFound {
			return nil, ErrQueueDoesNotExist()
		}
		return nil, AsError(err)
	}
	s.queues.put(q)
	s.track(q)
	return q, nil
}

// queueByARN resolves a queue ARN, in the region it names.
func (s *Service) queueByARN(ctx context.Context, arn string) (*Queue, error) {
	region, account, name, err := ParseQueueARN(arn)
	if err != nil {
		return nil, err
	}
	return s.queue(ctx, account, s.region(region), name)
}

// updateQueue stores a changed copy of a queue record and refreshes the
// cache.
func (s *Service) updateQueue(ctx context.Context, q *Queue) error {
	q.ModifiedAt = s.now()
	if err := s.store.UpdateQueue(ctx, q); err != nil {
		s.queues.invalidate(q.Account, q.Region, q.Name)
		if herald.ErrorCode(err) == herald.ENotFound {
			return ErrQueueDoesNotExist()
		}
		return AsError(err)
	}
	s.queues.put(q)
	return nil
}

// cloneQueue copies a (shared, cached) queue record deeply enough to
// modify it.
func cloneQueue(q *Queue) *Queue {
	c := *q
	if q.Tags != nil {
		c.Tags = make(map[string]string, len(q.Tags))
		for k, v := range q.Tags {
			c.Tags[k] = v
		}
	}
	if q.Attributes.RedrivePolicy != nil {
		p := *q.Attributes.RedrivePolicy
		c.Attributes.RedrivePolicy = &p
	}
	if q.Attributes.RedriveAllowPolicy != nil {
		p := *q.Attributes.RedriveAllowPolicy
		p.SourceQueueARNs = append([]string(nil), p.SourceQueueARNs...)
		c.Attributes.RedriveAllowPolicy = &p
	}
	return &c
}
