package sqs

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// idBefore orders message IDs by send time (SentBefore), then by their
// bytes, so that no two differ in order.
func idBefore(a, b uuid.UUID) bool {
	if SentBefore(a, b) {
		return true
	}
	return !SentBefore(b, a) && bytes.Compare(a[:], b[:]) < 0
}

// scanPage is how many messages a scan reads from one shard at a time.
const scanPage = 256

// queueScanner reads every stored message of a queue, oldest first across
// all its shards (a merge of the per-shard scans), one page per shard at a
// time. Rebuilds need that order for FIFO groups; degraded receives and
// move tasks use it to find the oldest messages.
type queueScanner struct {
	store  messageScanner
	q      *Queue
	shards []*shardCursor
	heads  shardHeap // shards with a buffered message, by their next message
	loaded bool
}

type shardCursor struct {
	shard    int
	buf      []*Message
	after    uuid.UUID // the last message read (the next page starts after it)
	returned uuid.UUID // the last message next returned
	done     bool
}

type shardHeap []*shardCursor

func (h shardHeap) Len() int           { return len(h) }
func (h shardHeap) Less(i, j int) bool { return idBefore(h[i].buf[0].ID, h[j].buf[0].ID) }
func (h shardHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *shardHeap) Push(x any)        { *h = append(*h, x.(*shardCursor)) }
func (h *shardHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// messageScanner is the part of a Store a queueScanner reads.
type messageScanner interface {
	ScanMessages(ctx context.Context, q *Queue, shard int, after uuid.UUID, limit int) ([]*Message, error)
}

func newQueueScanner(store messageScanner, q *Queue) *queueScanner {
	return newQueueScannerFrom(store, q, "")
}

// newQueueScannerFrom resumes a scan at position (from position), past
// every message it had returned; "" or a position it cannot read starts
// from the beginning.
func newQueueScannerFrom(store messageScanner, q *Queue, position string) *queueScanner {
	sc := &queueScanner{store: store, q: q}
	after := parsePosition(position, max(1, q.Shards))
	for i := 0; i < max(1, q.Shards); i++ {
		sc.shards = append(sc.shards, &shardCursor{shard: i, after: after[i], returned: after[i]})
	}
	return sc
}

// position encodes, per shard, the last message next returned: a scan
// resumed there (newQueueScannerFrom) returns every message this one has
// not, and no other.
func (sc *queueScanner) position() string {
	var b strings.Builder
	b.WriteString("1")
	for _, c := range sc.shards {
		if c.returned != uuid.Nil {
			fmt.Fprintf(&b, "|%d=%s", c.shard, c.returned)
		}
	}
	return b.String()
}

// parsePosition reads a position of shards shards; nil (start over) when
// it cannot.
func parsePosition(position string, shards int) map[int]uuid.UUID {
	parts := strings.Split(position, "|")
	if len(parts) == 0 || parts[0] != "1" {
		return nil
	}
	out := map[int]uuid.UUID{}
	for _, p := range parts[1:] {
		n, id, ok := strings.Cut(p, "=")
		shard, err := strconv.Atoi(n)
		if !ok || err != nil || shard < 0 || shard >= shards {
			return nil
		}
		if out[shard], err = uuid.Parse(id); err != nil {
			return nil
		}
	}
	return out
}

// fill reads the next page of a shard whose buffer is empty.
func (sc *queueScanner) fill(ctx context.Context, c *shardCursor) error {
	if c.done || len(c.buf) > 0 {
		return nil
	}
	page, err := sc.store.ScanMessages(ctx, sc.q, c.shard, c.after, scanPage)
	if err != nil {
		return err
	}
	if len(page) < scanPage {
		c.done = true
	}
	if len(page) > 0 {
		c.after = page[len(page)-1].ID
	}
	c.buf = page
	return nil
}

// next returns the oldest message not returned yet, or nil at the end.
func (sc *queueScanner) next(ctx context.Context) (*Message, error) {
	if !sc.loaded {
		sc.loaded = true
		for _, c := range sc.shards {
			if err := sc.fill(ctx, c); err != nil {
				return nil, err
			}
			if len(c.buf) > 0 {
				sc.heads = append(sc.heads, c)
			}
		}
		heap.Init(&sc.heads)
	}
	if len(sc.heads) == 0 {
		return nil, nil
	}
	c := sc.heads[0]
	m := c.buf[0]
	c.buf = c.buf[1:]
	c.returned = m.ID
	if err := sc.fill(ctx, c); err != nil {
		return nil, err
	}
	if len(c.buf) > 0 {
		heap.Fix(&sc.heads, 0)
	} else {
		heap.Pop(&sc.heads)
	}
	return m, nil
}
