package cassandrastore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// Slotted records: queue records (sqs_queues) and topic records
// (sns_topics) are kept alike. A record's partition is (account, slot),
// slot being a hash of its name (nameSlot), and its clustering key is the
// name. Every write is a lightweight transaction, so concurrent creates of
// one name agree on a single winner, and an update or delete never touches
// a record created again under the same name (the condition is on the id).
// Reads are plain reads at the configured consistency.

// slottedTable is one table of slotted records of type T: its statements,
// how to read a row into a T and how to find a T's key. The statements
// bind the key as (account, slot, name) and the condition as id; insert
// binds the key, the id and then the rest of the columns, update the rest
// of the columns and then the key and the id.
type slottedTable[T any] struct {
	kind  string // "queue", "topic": the subject of error messages
	slots int    // the number of slots per account, fixed for good
	// serial is the consistency of the Paxos phase of the lightweight
	// transactions (serialConsistency).
	serial gocql.Consistency

	insert, read, update, delete string
	scan                         func(iter *gocql.Iter, account string) (rec *T, ok bool, err error)
	key                          func(rec *T) recordKey
}

// recordKey is where a record lives (account, name) and which record of
// that name it is (id).
type recordKey struct {
	account, name string
	id            uuid.UUID
}

// serialConsistency is the consistency of the Paxos phase of lightweight
// transactions: SERIAL in a cluster of several data centers (LocalDC set),
// whatever the write level, so that two data centers never both win one
// record (a queue or topic created in both at once; during a cut such
// writes fail rather than diverge); otherwise LOCAL_SERIAL under a LOCAL_
// write level and SERIAL under any other.
func (o Options) serialConsistency() gocql.Consistency {
	if o.LocalDC == "" && strings.HasPrefix(strings.ToUpper(o.WriteConsistency), "LOCAL_") {
		return gocql.LocalSerial
	}
	return gocql.Serial
}

// nameSlot is the slot of name among slots: FNV-1a of the name modulo
// slots.
func nameSlot(name string, slots int) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(slots))
}

// at is the bound partition and clustering key of account/name.
func (t *slottedTable[T]) at(account, name string) []any {
	return []any{accountKey(account), nameSlot(name, t.slots), name}
}

// create inserts rec IF NOT EXISTS; cols are the values of the columns
// after the id. When a record of that name exists it returns that record
// and EConflict; when the existing row is rec itself (the driver retried
// an insert that had been applied), it succeeds.
func (t *slottedTable[T]) create(ctx context.Context, c *conn, op string, rec *T, cols ...any) (*T, error) {
	k := t.key(rec)
	args := append(append(t.at(k.account, k.name), cqlUUID(k.id)), cols...)
	// A create that finds the name taken reads the winner; if that record
	// was deleted meanwhile, the insert is tried again.
	for range 3 {
		applied, err := c.write(t.insert, args...).
			SerialConsistency(c.serialLevel(t.serial)).WithContext(ctx).MapScanCAS(map[string]any{})
		if err != nil {
			return nil, herald.Unavailable(op, err)
		}
		if applied {
			return rec, nil
		}
		old, err := t.readAt(ctx, c, k.account, k.name, c.serialLevel(t.serial))
		if errors.Is(err, gocql.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, herald.Unavailable(op, err)
		}
		if t.key(old).id == k.id {
			return old, nil
		}
		return old, herald.Errorf(herald.EConflict, "%s %s already exists", t.kind, k.name)
	}
	return nil, herald.Unavailable(op, fmt.Errorf("%s %s: created and deleted concurrently, again and again", t.kind, k.name))
}

// get reads the record of account/name.
func (t *slottedTable[T]) get(ctx context.Context, c *conn, op, account, name string) (*T, error) {
	rec, err := t.readAt(ctx, c, account, name, 0)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, t.notFound(name)
	}
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return rec, nil
}

// replace sets the columns after the id of rec's row to cols IF its id is
// rec's.
func (t *slottedTable[T]) replace(ctx context.Context, c *conn, op string, rec *T, cols ...any) error {
	k := t.key(rec)
	args := append(append(append([]any{}, cols...), t.at(k.account, k.name)...), cqlUUID(k.id))
	q := c.write(t.update, args...).SerialConsistency(c.serialLevel(t.serial)).WithContext(ctx)
	return t.apply(op, k.name, q)
}

// remove deletes the record of rec IF its id is rec's. It is not retried
// by the driver: a retry of an applied delete would report ENotFound.
func (t *slottedTable[T]) remove(ctx context.Context, c *conn, op string, rec *T) error {
	k := t.key(rec)
	args := append(t.at(k.account, k.name), cqlUUID(k.id))
	q := c.write(t.delete, args...).SerialConsistency(c.serialLevel(t.serial)).Idempotent(false).WithContext(ctx)
	return t.apply(op, k.name, q)
}

// apply runs the conditional write q on the record of name: ENotFound when
// the condition failed.
func (t *slottedTable[T]) apply(op, name string, q *gocql.Query) error {
	applied, err := q.MapScanCAS(map[string]any{})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if !applied {
		return t.notFound(name)
	}
	return nil
}

// readAt reads one record at the configured consistency, or at serial
// when it is not zero (to see the outcome of a Paxos round in progress).
// A missing record is gocql.ErrNotFound.
func (t *slottedTable[T]) readAt(ctx context.Context, c *conn, account, name string, serial gocql.Consistency) (*T, error) {
	query := c.s.Query(t.read, t.at(account, name)...).WithContext(ctx)
	if serial != 0 {
		query = query.Consistency(serial)
	}
	iter := query.Iter()
	rec, ok, err := t.scan(iter, account)
	if cerr := iter.Close(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, gocql.ErrNotFound
	}
	return rec, nil
}

func (t *slottedTable[T]) notFound(name string) error {
	return herald.Errorf(herald.ENotFound, "%s %s does not exist", t.kind, name)
}
