package sqs

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// ErrNotBuilt is returned by Index operations that need a queue's complete
// state (Receive, Counts) when the Index does not hold it: never loaded, or
// lost (a flushed or restarted Redis, an invalidation). The Service then
// rebuilds the queue's state from the Store and retries.
var ErrNotBuilt = errors.New("sqs: queue index not built")

// ErrLeaseLost is returned by RebuildLease.Commit when the lease is no
// longer held: it ran out and another node took it, or the queue's state
// was dropped or lost (Redis flushed or restarted) while the rebuild ran.
// What the rebuild added may then be partial; it must not be declared
// complete, and the next Receive rebuilds again.
var ErrLeaseLost = errors.New("sqs: rebuild lease lost")

// RebuildLease is one rebuild's hold on a queue (Index.LockRebuild).
type RebuildLease interface {
	// Commit declares the queue's state complete (built) if, and only
	// if, this lease is still held; otherwise it changes nothing and
	// returns ErrLeaseLost. Whatever ended the lease (expiry, Drop, the
	// loss of the Index's data) may have made the rebuild partial, so
	// only an unbroken lease proves it whole.
	Commit(ctx context.Context) error
	// Renew extends the lease by its duration, if it is still held
	// (ErrLeaseLost otherwise): a rebuild of a large queue renews it as it
	// goes, so that it can take longer than one lease.
	Renew(ctx context.Context) error
	// Release frees the lease if it is still this one's (best effort).
	Release()
	// Progress returns the position a rebuild of the queue's current
	// state last saved (Add), "" if none: a rebuild resumes there instead
	// of from the start. Whatever drops the state (Drop, the loss of the
	// Index's data) drops the position with it, and Commit clears it.
	Progress(ctx context.Context) (string, error)
	// Add adds entries as Index.Add does and, if position is not "",
	// saves it as the rebuild's progress, if this lease is still held
	// (ErrLeaseLost otherwise, adding nothing). The position is saved
	// only with the entries it covers, so it never runs ahead of them.
	Add(ctx context.Context, entries []Entry, position string) error
}

// ErrNotInFlight is returned by SetVisibleAt for a message that is not in
// flight (never received, visible again, or deleted).
var ErrNotInFlight = errors.New("sqs: message not in flight")

// ErrStaleReceipt is returned by SetVisibleAt for a message in flight under
// another receive count than the one named: the receipt handle is stale
// (the message became visible and was received again since). Nothing is
// changed.
var ErrStaleReceipt = errors.New("sqs: receipt handle of an earlier receive")

// ErrStaleEpoch is returned by the Index operations that check a queue's
// built marker (Receive, Counts, Missing, MarkBuilt, RebuildLease.Commit)
// when the queue's state was built under a newer index epoch than the
// IndexQueue's: the caller's epoch is out of date (another node of its
// data center already saw a bump). Nothing is changed; the caller reads
// its epoch again (IndexEpochs) and retries.
var ErrStaleEpoch = errors.New("sqs: index epoch of this node is older than the queue's state")

// IndexQueue names a queue to the Index.
type IndexQueue struct {
	ID   uuid.UUID
	FIFO bool
	// DC is the data center whose Index serves the queue (dc.go): "" in
	// one data center, AllDCs for a Drop in every one. Only an Index over
	// several data centers (NewDCIndex) reads it.
	DC string
	// Epoch is the index epoch of the data center DC names (IndexEpochs;
	// 0 where there is none). The operations that check the built marker
	// compare it with the epoch the state was built under: equal, the
	// state is used; older state, it is dropped and ErrNotBuilt returned,
	// so that the queue is rebuilt from the Store; newer state,
	// ErrStaleEpoch. A state built before epochs existed counts as built
	// under epoch 0.
	Epoch uint64
}

// SentBefore reports whether message a was sent before message b, by their
// version 1 IDs: the 60-bit time, then the clock sequence (which the uuid
// package bumps for IDs of one instant). This is the order of their FIFO
// SequenceNumbers and the order an Index keeps a FIFO group in. IDs of
// other versions compare by their bytes. IDs of one time and clock
// sequence (made on two nodes at once) are neither before the other.
func SentBefore(a, b uuid.UUID) bool {
	if a.Version() != 1 || b.Version() != 1 {
		return bytes.Compare(a[:], b[:]) < 0
	}
	if ta, tb := a.Time(), b.Time(); ta != tb {
		return ta < tb
	}
	return a.ClockSequence() < b.ClockSequence()
}

// Entry is one message as the Index tracks it.
type Entry struct {
	ID             uuid.UUID
	Group          string    // FIFO message group; "" on standard queues
	VisibleAt      time.Time // when receivable: send time + delay, or end of visibility timeout
	ReceiveCount   int       // receives so far
	FirstReceiveAt time.Time // zero until first received
	// InFlight is true when the message was received and its visibility
	// timeout has not ended (VisibleAt is then that end). Only rebuilds set
	// it; Add of a new message leaves it false.
	InFlight bool
}

// Claim is one message handed out by Receive. ReceiveCount and
// FirstReceiveAt already include this receive.
type Claim struct {
	ID             uuid.UUID
	Group          string
	ReceiveCount   int
	FirstReceiveAt time.Time
}

// ReceiveRequest asks Receive for up to Max messages visible at Now, to be
// invisible until Until.
type ReceiveRequest struct {
	Now   time.Time
	Max   int
	Until time.Time
}

// ReceiveResult is what Receive handed out. NextVisibleAt, when not zero, is
// the earliest time a message not handed out now becomes visible (a delayed
// message or an ending visibility timeout), so that a long poll can sleep
// until then instead of polling.
type ReceiveResult struct {
	Claims        []Claim
	NextVisibleAt time.Time
}

// Counts are the ApproximateNumberOfMessages* attributes of one queue.
type Counts struct {
	Visible  int64 // receivable now
	InFlight int64 // received, visibility timeout not over
	Delayed  int64 // not yet visible because of a delay
}

// Index is the fast half of the queue service: per queue, which messages are
// receivable, in what order, which are in flight until when, and their
// receive counts. It holds no message contents and can be lost and rebuilt
// from the Store at any time: the Service rebuilds a queue on ErrNotBuilt.
// Embedded Herald keeps it in process (sqsmem); nodes on Cassandra keep it
// in Redis (redisindex), where every operation is atomic per queue.
//
// Ordering (best effort on standard queues), as AWS orders: a standard
// queue hands out first the messages back from a receive (their
// visibility timeout ended, or was set to end), then the other visible
// messages, each oldest VisibleAt first. A FIFO queue keeps each group in
// send order (SentBefore, the order of SequenceNumbers) whatever order
// the Adds come in: a rebuild that adds an old backlog after newer sends,
// or a message added late because its first Add failed, still takes its
// place. Only a group's first message blocks it: the group is receivable
// whenever its head is visible, even while later messages are in flight
// (the head came back, or was added late). Receive takes the groups whose
// head was never received first, then those whose head came back, each by
// oldest message, and from each the consecutive visible messages from the
// head, stopping at one in flight, up to Max in all. Extending the head's
// visibility extends the group's block.
//
// Operations on a queue the Index does not know, other than Receive and
// Counts, succeed without effect (Remove, SetVisibleAt: ErrNotInFlight).
type Index interface {
	// Add tracks new messages (or re-adds them on a rebuild). An entry
	// already tracked is left as it is, so a rebuild racing live traffic
	// never undoes a receive or a visibility change.
	Add(ctx context.Context, q IndexQueue, entries []Entry) error
	// Receive hands out up to r.Max messages visible at r.Now, makes them
	// invisible until r.Until and counts the receive. ErrNotBuilt if the
	// queue's state is not (or no longer) complete, or was built under an
	// older epoch than q.Epoch (the state is then dropped, as by Drop);
	// ErrStaleEpoch if it was built under a newer one (see IndexQueue).
	Receive(ctx context.Context, q IndexQueue, r ReceiveRequest) (ReceiveResult, error)
	// Remove forgets messages (deleted, expired, moved). Unknown IDs are
	// ignored.
	Remove(ctx context.Context, q IndexQueue, ids []uuid.UUID) error
	// SetVisibleAt changes when an in-flight message becomes visible again
	// (ChangeMessageVisibility); ErrNotInFlight if it is not in flight at
	// now. receiveCount names the receive whose visibility changes (the
	// message's receive count at that receive): when it is positive and the
	// message is in flight under another receive count, SetVisibleAt
	// returns ErrStaleReceipt and changes nothing. 0 means whatever receive
	// is current.
	SetVisibleAt(ctx context.Context, q IndexQueue, id uuid.UUID, receiveCount int, now, visibleAt time.Time) error
	// Hide makes a message that was received (under any receive count)
	// invisible until visibleAt, whether it is in flight or back from its
	// visibility timeout, and returns its current receive (ID, Group,
	// ReceiveCount, FirstReceiveAt). It is ChangeMessageVisibility through
	// an expired or older receipt handle, which AWS accepts on standard
	// queues. ErrNotInFlight if the message is not tracked or was never
	// received.
	Hide(ctx context.Context, q IndexQueue, id uuid.UUID, now, visibleAt time.Time) (Claim, error)
	// Missing returns those of ids the queue's state does not track (the
	// reconciler's check). ErrNotBuilt and ErrStaleEpoch as for Receive.
	Missing(ctx context.Context, q IndexQueue, ids []uuid.UUID) ([]uuid.UUID, error)
	// Counts returns the queue's approximate counts at now. ErrNotBuilt
	// and ErrStaleEpoch as for Receive.
	Counts(ctx context.Context, q IndexQueue, now time.Time) (Counts, error)
	// Drop forgets the whole queue (deleted, purged or invalidated). Until
	// the next MarkBuilt or Commit, Receive and Counts return ErrNotBuilt.
	// It also ends any rebuild lease of the queue, so that a rebuild that
	// was under way cannot Commit what it added before the Drop. It must
	// work whatever q.FIFO says: invalidations know only the queue ID.
	Drop(ctx context.Context, q IndexQueue) error
	// MarkBuilt declares the state of a queue that has just been created
	// complete (it has no messages to rebuild), under epoch q.Epoch.
	// Rebuilds use RebuildLease.Commit instead, which marks the state
	// built under the epoch of the IndexQueue given to LockRebuild. Neither
	// lowers the epoch of a state built under a newer one: they return
	// ErrStaleEpoch and change nothing.
	MarkBuilt(ctx context.Context, q IndexQueue) error
	// LockRebuild takes a lease for rebuilding q, so that one node (or one
	// goroutine) rebuilds a queue at a time; ok is false if another holds
	// it. The rebuild ends with the lease's Commit, then its Release.
	LockRebuild(ctx context.Context, q IndexQueue, lease time.Duration) (l RebuildLease, ok bool, err error)

	// Deduplicate records key for window and returns the message ID first
	// recorded under it within the window, if any (FIFO deduplication).
	Deduplicate(ctx context.Context, q IndexQueue, key string, id uuid.UUID, window time.Duration) (existing uuid.UUID, dup bool, err error)
}

// Notifier wakes long polls when a queue may have become receivable: on one
// node in process, across nodes through Redis pub/sub.
type Notifier interface {
	// Notify reports that queue id may have messages to receive.
	Notify(ctx context.Context, id uuid.UUID)
	// Wait returns a channel that is closed (or receives) after a later
	// Notify of id, and a cancel function the caller must call.
	Wait(id uuid.UUID) (ch <-chan struct{}, cancel func())
}
