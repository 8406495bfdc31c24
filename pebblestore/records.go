package pebblestore

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
)

// stripedLocks are mutexes picked by a hash of a key: operations on one key
// exclude each other, while those on other keys mostly do not.
type stripedLocks struct {
	seed  maphash.Seed
	bits  uint
	locks []sync.Mutex
}

// newStripedLocks returns 1<<bits locks.
func newStripedLocks(bits uint) stripedLocks {
	return stripedLocks{seed: maphash.MakeSeed(), bits: bits, locks: make([]sync.Mutex, 1<<bits)}
}

// lock locks the stripe of key and returns its unlock.
func (l *stripedLocks) lock(key []byte) func() {
	mu := &l.locks[maphash.Bytes(l.seed, key)>>(64-l.bits)]
	mu.Lock()
	return mu.Unlock
}

// get reads the value of key and decodes it; found is false when absent.
func get[T any](db *DB, key []byte, decode func([]byte) (T, error)) (v T, found bool, err error) {
	raw, closer, err := db.pdb.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	defer closer.Close()
	v, err = decode(raw)
	return v, err == nil, err
}

// recordID names one record of a namedRecords: its account and name (its
// key) and its ID, which a later record of the same name does not share.
type recordID struct {
	account, name string
	id            uuid.UUID
}

// namedRecords does the read-check-write of records kept by account and
// name, such as queues and topics: each write holds the lock of the
// record's key from its read to its synced write.
type namedRecords[T any] struct {
	db     *DB
	locks  *stripedLocks
	noun   string // "queue", "topic": for error messages
	key    func(account, name string) []byte
	idOf   func(T) recordID
	check  func(T) error // validates a record to write
	encode func(T) []byte
	decode func(account, name string, v []byte) (T, error)
}

// notFound is the ENotFound error of account/name.
func (r *namedRecords[T]) notFound(account, name string) error {
	return herald.Errorf(herald.ENotFound, "%s %s/%s does not exist", r.noun, account, name)
}

// read returns the record at key, of account/name; found is false when
// absent.
func (r *namedRecords[T]) read(key []byte, account, name string) (rec T, found bool, err error) {
	return get(r.db, key, func(v []byte) (T, error) { return r.decode(account, name, v) })
}

// get returns the record account/name (ENotFound).
func (r *namedRecords[T]) get(ctx context.Context, op, account, name string) (T, error) {
	var none T
	if err := r.db.enter(ctx, op); err != nil {
		return none, err
	}
	defer r.db.leave()
	rec, found, err := r.read(r.key(account, name), account, name)
	if err != nil {
		return none, herald.Unavailable(op, err)
	}
	if !found {
		return none, r.notFound(account, name)
	}
	return rec, nil
}

// create stores rec unless its account already has a record of that
// name, which it then returns with an EConflict error.
func (r *namedRecords[T]) create(ctx context.Context, op string, rec T) (T, error) {
	var none T
	err := r.locked(ctx, op, rec, func(key []byte, id recordID, old T, found bool) error {
		if found {
			none = old
			return herald.Errorf(herald.EConflict, "%s %s/%s already exists", r.noun, id.account, id.name)
		}
		return r.db.pdb.Set(key, r.encode(rec), pebble.Sync)
	})
	if err != nil {
		return none, err
	}
	return rec, nil
}

// update replaces the record of rec, which must exist with rec's ID.
func (r *namedRecords[T]) update(ctx context.Context, op string, rec T) error {
	return r.locked(ctx, op, rec, func(key []byte, id recordID, old T, found bool) error {
		if err := r.checkExists(id, old, found); err != nil {
			return err
		}
		return r.db.pdb.Set(key, r.encode(rec), pebble.Sync)
	})
}

// delete removes the record of rec, which must exist with rec's ID, in
// one synced batch with whatever deleteMore adds to that batch.
func (r *namedRecords[T]) delete(ctx context.Context, op string, rec T, deleteMore func(b *pebble.Batch) error) error {
	return r.locked(ctx, op, rec, func(key []byte, id recordID, old T, found bool) error {
		if err := r.checkExists(id, old, found); err != nil {
			return err
		}
		b := r.db.pdb.NewBatch()
		defer b.Close()
		if err := b.Delete(key, nil); err != nil {
			return err
		}
		if err := deleteMore(b); err != nil {
			return err
		}
		return b.Commit(pebble.Sync)
	})
}

// checkExists returns ENotFound unless the stored record (old, found)
// has the ID of id.
func (r *namedRecords[T]) checkExists(id recordID, old T, found bool) error {
	if !found || r.idOf(old).id != id.id {
		return r.notFound(id.account, id.name)
	}
	return nil
}

// locked checks rec, enters the DB, locks rec's key and reads the stored
// record there, then runs write under the lock. A *herald.Error of write
// (a failed check) is returned as it is; any other error of the read or
// the write is reported as unavailable.
func (r *namedRecords[T]) locked(ctx context.Context, op string, rec T, write func(key []byte, id recordID, old T, found bool) error) error {
	if err := r.check(rec); err != nil {
		return err
	}
	if err := r.db.enter(ctx, op); err != nil {
		return err
	}
	defer r.db.leave()
	id := r.idOf(rec)
	key := r.key(id.account, id.name)
	defer r.locks.lock(key)()
	old, found, err := r.read(key, id.account, id.name)
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if err := write(key, id, old, found); err != nil {
		if herr := (*herald.Error)(nil); errors.As(err, &herr) {
			return err
		}
		return herald.Unavailable(op, err)
	}
	return nil
}
