package rollup

import (
	"context"
	"errors"
	"time"
)

// ErrDuplicate is returned by Store.Commit when an event of the batch was
// already committed: nothing of the batch was applied. Committed names
// those events; the Service drops them and commits the rest.
type ErrDuplicate struct{ Committed []string }

func (e *ErrDuplicate) Error() string { return "rollup: batch holds events already committed" }

// IsDuplicate reports whether err is an *ErrDuplicate and returns it.
func IsDuplicate(err error) (*ErrDuplicate, bool) {
	var d *ErrDuplicate
	ok := errors.As(err, &d)
	return d, ok
}

// EventKey identifies a committed event: its ID, and its time, which a
// redelivered or retried event carries unchanged (an engine may use it to
// find the event's record; the Cassandra engine partitions by its hour).
type EventKey struct {
	ID   string
	Time time.Time
}

// Partition names the rows of one scope's values, in one bucket of one
// period, for one dimension: the unit a top-N query reads whole. Its rows
// are the dimension's values, so its size is bounded by the dimension's
// cardinality.
type Partition struct {
	Scope  int
	Key    string
	Unit   Unit
	Bucket int64
	Dim    int
}

// PartitionOf returns the partition of row r.
func PartitionOf(r Row) Partition {
	return Partition{Scope: r.Scope, Key: r.Key, Unit: r.Unit, Bucket: r.Bucket, Dim: r.Dim}
}

// Store keeps rollups durably: their definitions (by account and name),
// their counter rows and the IDs of the events committed within each
// rollup's dedup window. A rollup's rows and events are keyed by its
// definition's ID, so a rollup deleted and defined again starts empty.
type Store interface {
	// PutDefinition stores d (Normalize'd, with ID set), replacing the
	// definition of the same account and name, and forgets the last
	// firings of the triggers d no longer has.
	PutDefinition(ctx context.Context, d *Definition) error
	// GetDefinition returns a definition; herald ENotFound if none.
	GetDefinition(ctx context.Context, account, name string) (*Definition, error)
	// ListDefinitions returns an account's definitions by name, at most
	// limit, after the name after ("" from the start).
	ListDefinitions(ctx context.Context, account, after string, limit int) ([]*Definition, error)
	// Sources returns every definition, of any account, that names a
	// source: a queue, a cache pattern or an AMQP routing key (for the
	// consumers of Service.Run).
	Sources(ctx context.Context) ([]*Definition, error)
	// DeleteDefinition forgets a definition, and with it its rows,
	// events and last firings (at once or in the background; its last
	// firings are never read again); herald ENotFound if none.
	DeleteDefinition(ctx context.Context, account, name string) error

	// Committed returns the IDs of those of events that are committed to
	// commit shard shard of rollup d (shard.go; 0 of a rollup of one) and
	// still inside its dedup window at now.
	Committed(ctx context.Context, d *Definition, shard int, events []EventKey, now time.Time) (map[string]bool, error)
	// Commit applies b to d's rows exactly once, atomically: if none of
	// b's events is committed yet to b's commit shard (Batch.Shard), every
	// row gains b's sums and every event is recorded as committed to that
	// shard until now + d's DedupWindow;
	// otherwise nothing changes and the error is an *ErrDuplicate. A
	// Commit that returned an error other than that applied nothing.
	// With the rows it writes the firings of d's triggers that the new
	// values cross (Definition.Crossings), each firing ID at most once
	// ever, for PendingFirings, and makes the last of each trigger
	// (LastOfEach) that trigger's last firing.
	Commit(ctx context.Context, d *Definition, b *Batch, now time.Time) error

	// PendingFirings returns up to limit trigger firings committed but not
	// yet published (Commit records a firing, once per ID ever, in the
	// same atomic write as the rows whose change made it).
	PendingFirings(ctx context.Context, limit int) ([]Firing, error)
	// FiringDone forgets pending firing f once it was published at at,
	// and records that in its trigger's last firing if f still is it
	// (LastFiring.SetPublished).
	FiringDone(ctx context.Context, f Firing, at time.Time) error
	// FiringFailed records in f's trigger's last firing, if f still is
	// it and was not published, that publishing f failed at at for
	// reason (LastFiring.SetFailed); f stays pending.
	FiringFailed(ctx context.Context, f Firing, at time.Time, reason string) error
	// LastFirings returns the last firing of each trigger of d that fired
	// since it was added to d (a trigger removed and added again starts
	// with none), by trigger ID.
	LastFirings(ctx context.Context, d *Definition) (map[string]LastFiring, error)

	// ReadRows returns the values of rows (all of d), one slice per row in
	// the order of d.Metrics, nil for a row never written.
	ReadRows(ctx context.Context, d *Definition, rows []Row) ([][]int64, error)
	// ReadPartition calls f with every row of partition p, in byte order
	// of their values, after the value after ("" from the first), until
	// f returns false. f must not keep sums after it returns (an engine may
	// reuse the slice).
	ReadPartition(ctx context.Context, d *Definition, p Partition, after string, f func(value string, sums []int64) bool) error
}
