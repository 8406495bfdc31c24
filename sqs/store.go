package sqs

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Queue is a queue's durable record. ID is fixed at creation and never
// reused: messages are stored under it, so a queue deleted and created again
// under the same name starts empty even while the old messages age out.
type Queue struct {
	ID      uuid.UUID // random (v4), assigned by the Service at creation
	Account string
	// Region is "" for the deployment's home region, else the region
	// (region.go). Engines neither store nor read it: the Service keys a
	// queue of another region by "<account>@<region>" in Account.
	Region     string
	Name       string
	Attributes QueueAttributes
	Tags       map[string]string
	Shards     int // message shards, fixed at creation (1..MaxShards)
	CreatedAt  time.Time
	ModifiedAt time.Time
	PurgedAt   time.Time // last PurgeQueue; zero if never
	// Home is the data center that created the queue, whose Index serves
	// it (dc.go); "" in one data center. Engines of one data center
	// (the embedded one) need not keep it.
	Home string
}

// MaxShards bounds Queue.Shards.
const MaxShards = 256

// ShardOf is the shard of message id in a queue of shards shards. The
// Service always stores a message in this shard, so engines find a message
// from its ID alone (GetMessages, DeleteMessages, SaveStates) without
// asking every shard.
func ShardOf(id uuid.UUID, shards int) int {
	if shards <= 1 {
		return 0
	}
	// FNV-1a over the ID: v1 UUIDs differ mostly in their low time bits,
	// which this spreads evenly.
	h := uint32(2166136261)
	for _, b := range id {
		h ^= uint32(b)
		h *= 16777619
	}
	return int(h % uint32(shards))
}

// Message is one queue message as stored. Body and Attributes are exactly
// what the sender sent; the rest is set by the Service.
type Message struct {
	ID    uuid.UUID // version 1, time-ordered; also the SQS MessageId
	Shard int       // ShardOf(ID, Queue.Shards)

	Body             string
	BodyMD5          string                           // hex MD5 of Body, set at send and kept where the engine stores it; "" when unknown
	Attributes       map[string]MessageAttributeValue // user message attributes
	SystemAttributes map[string]MessageAttributeValue // AWSTraceHeader, if sent

	SenderID               string
	SentAt                 time.Time // SentTimestamp, millisecond precision
	ExpiresAt              time.Time // SentAt + the queue's retention period when sent
	MessageGroupID         string    // FIFO only
	MessageDeduplicationID string    // FIFO only
	SequenceNumber         string    // FIFO only
	DeadLetterSourceARN    string    // set when moved to a dead-letter queue

	State State
}

// State is a message's delivery state. Engines persist it so that receive
// counts and visibility survive the loss of the Index (a restart of the
// embedded engine, a flushed Redis); it may lag the Index slightly, which
// can only cause a duplicate delivery, never a loss.
type State struct {
	ID             uuid.UUID
	ReceiveCount   int
	FirstReceiveAt time.Time // zero until first received
	VisibleAt      time.Time // when the message is (again) receivable
}

// Store is the durable half of the queue service: queue records and
// messages. Every engine implements it and passes sqstest.RunStore.
//
// Errors are *herald.Error values: ENotFound for a missing queue,
// EConflict for CreateQueue of an existing name, EUnavailable when the
// engine cannot be reached.
type Store interface {
	// CreateQueue stores q unless a queue of that account and name exists,
	// in which case it returns the existing queue and an EConflict error.
	CreateQueue(ctx context.Context, q *Queue) (*Queue, error)
	// GetQueue returns the queue of that account and name (ENotFound).
	GetQueue(ctx context.Context, account, name string) (*Queue, error)
	// UpdateQueue replaces the record of q.Account/q.Name, which must exist
	// with the same ID (ENotFound otherwise).
	UpdateQueue(ctx context.Context, q *Queue) error
	// DeleteQueue removes the queue record; its messages become
	// unreachable at once and are reclaimed later (ENotFound if absent).
	DeleteQueue(ctx context.Context, q *Queue) error
	// ListQueues returns up to limit queues of account whose names start
	// with prefix and sort after `after`, in byte order of name.
	ListQueues(ctx context.Context, account, prefix, after string, limit int) ([]*Queue, error)

	// PutMessages stores messages in q; durable when it returns. A message
	// whose ID is already stored in q is overwritten.
	PutMessages(ctx context.Context, q *Queue, msgs []*Message) error
	// GetMessages returns the stored, unexpired messages of q with these
	// IDs, with their states, in the order of ids; missing ones are left
	// out. Reads never filter by q.PurgedAt (a message moved in after a
	// purge keeps its older SentAt); PurgeMessages removes purged messages.
	GetMessages(ctx context.Context, q *Queue, ids []uuid.UUID) ([]*Message, error)
	// DeleteMessages removes messages of q; unknown IDs are ignored.
	DeleteMessages(ctx context.Context, q *Queue, ids []uuid.UUID) error
	// SaveStates records delivery states of messages of q. It may return
	// before the write is durable (a lost state means a duplicate, never a
	// loss). States of unknown messages are ignored or harmless.
	SaveStates(ctx context.Context, q *Queue, states []State) error
	// ScanMessages returns up to limit stored, unexpired messages
	// of one shard of q with IDs after `after` (uuid.Nil: from the start),
	// oldest first by ID time. Rebuilding an Index and moving messages use
	// it.
	ScanMessages(ctx context.Context, q *Queue, shard int, after uuid.UUID, limit int) ([]*Message, error)
	// PurgeMessages removes every message of q sent before `before`.
	PurgeMessages(ctx context.Context, q *Queue, before time.Time) error

	// MarkUnindexed durably notes that q has messages the Index may lack
	// (an Index write failed after the store write). TakeUnindexed returns
	// and clears up to limit such queue IDs; the Service invalidates their
	// Index state so that it is rebuilt from the Store.
	MarkUnindexed(ctx context.Context, queueID uuid.UUID) error
	TakeUnindexed(ctx context.Context, limit int) ([]uuid.UUID, error)

	// DefaultShards is the engine's shard count for new queues.
	DefaultShards() int
}

// RecordReader is a Store that can read messages without their delivery
// states. A receive replaces the states it reads (loadClaims), so it reads
// through this when its Store has it: the embedded engine then looks up
// one key per message rather than seeking an iterator over the message
// and its state. sqstest.RunStore holds it to GetMessages.
type RecordReader interface {
	// GetMessageRecords is GetMessages, except that every message's State
	// is left zero but for its ID.
	GetMessageRecords(ctx context.Context, q *Queue, ids []uuid.UUID) ([]*Message, error)
}

// ReadRecords reads messages without their states: through store's
// RecordReader when it has one, else by GetMessages, clearing the states.
// Wrappers of a Store (the region mapping, metrics) read through it.
func ReadRecords(ctx context.Context, store Store, q *Queue, ids []uuid.UUID) ([]*Message, error) {
	if rr, ok := store.(RecordReader); ok {
		return rr.GetMessageRecords(ctx, q, ids)
	}
	ms, err := store.GetMessages(ctx, q, ids)
	for _, m := range ms {
		m.State = State{ID: m.ID}
	}
	return ms, err
}
