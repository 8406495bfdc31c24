package pebblestore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// The last firing of each trigger ('L' rollupID trigger, a JSON
// rollup.LastFiring) is written under the rollup's lock: by Commit, in
// the batch that records the firing; by FiringDone and FiringFailed, which
// read it and change it only while it is still their firing; by
// PutDefinition, which deletes those of the triggers the definition
// drops. DeleteDefinition deletes them all with the rollup's other keys.

func lastFiringKey(id uuid.UUID, trigger string) []byte {
	return append(rollupPrefix(prefixLastFiring, id), trigger...)
}

func decodeLastFiring(v []byte) (rollup.LastFiring, error) {
	var l rollup.LastFiring
	err := json.Unmarshal(v, &l)
	return l, err
}

// setLastFiring writes l as trigger's last firing of rollup id into wb.
func setLastFiring(wb *pebble.Batch, id uuid.UUID, trigger string, l rollup.LastFiring) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return wb.Set(lastFiringKey(id, trigger), b, nil)
}

// forEachLastFiring calls f with the trigger and record of every last
// firing of rollup id.
func (s *RollupStore) forEachLastFiring(id uuid.UUID, f func(trigger string, l rollup.LastFiring) error) error {
	prefix := rollupPrefix(prefixLastFiring, id)
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		l, err := decodeLastFiring(it.Value())
		if err != nil {
			return err
		}
		if err := f(string(it.Key()[len(prefix):]), l); err != nil {
			return err
		}
	}
	return it.Error()
}

// forgetDroppedTriggers deletes in wb the last firings of the triggers
// the stored rollup d.ID has and d has not. The caller holds d's lock.
func (s *RollupStore) forgetDroppedTriggers(wb *pebble.Batch, d *rollup.Definition) error {
	return s.forEachLastFiring(d.ID, func(trigger string, _ rollup.LastFiring) error {
		if d.HasTrigger(trigger) {
			return nil
		}
		return wb.Delete(lastFiringKey(d.ID, trigger), nil)
	})
}

func (s *RollupStore) LastFirings(ctx context.Context, d *rollup.Definition) (map[string]rollup.LastFiring, error) {
	if err := s.db.enter(ctx, "rollup last firings"); err != nil {
		return nil, err
	}
	defer s.db.leave()
	out := map[string]rollup.LastFiring{}
	err := s.forEachLastFiring(d.ID, func(trigger string, l rollup.LastFiring) error {
		if d.HasTrigger(trigger) { // a commit of a stale definition may record a trigger d dropped
			out[trigger] = l
		}
		return nil
	})
	if err != nil {
		return nil, herald.Unavailable("rollup last firings", err)
	}
	return out, nil
}

func (s *RollupStore) FiringDone(ctx context.Context, f rollup.Firing, at time.Time) error {
	return s.settle(ctx, f, true, func(l *rollup.LastFiring) bool { return l.SetPublished(f.ID, at) })
}

func (s *RollupStore) FiringFailed(ctx context.Context, f rollup.Firing, at time.Time, reason string) error {
	return s.settle(ctx, f, false, func(l *rollup.LastFiring) bool { return l.SetFailed(f.ID, at, reason) })
}

// settle changes f's trigger's last firing by change, under the rollup's
// lock, and with done forgets f's pending record, in one batch. A rollup
// deleted (or defined again) meanwhile has no last firing of f.
func (s *RollupStore) settle(ctx context.Context, f rollup.Firing, done bool, change func(*rollup.LastFiring) bool) error {
	const op = "rollup firings"
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	wb := s.db.pdb.NewBatch()
	defer wb.Close()
	if done {
		if err := wb.Delete(firingKey(prefixOutbox, f.ID), nil); err != nil {
			return herald.Unavailable(op, err)
		}
	}
	d, found, err := get(s.db, rollupDefKey(f.Account, f.Rollup), decodeDefinition)
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if found {
		defer s.locks.lock(d.ID[:])()
		l, found, err := get(s.db, lastFiringKey(d.ID, f.Trigger), decodeLastFiring)
		if err != nil {
			return herald.Unavailable(op, err)
		}
		if found && change(&l) {
			if err := setLastFiring(wb, d.ID, f.Trigger, l); err != nil {
				return herald.Unavailable(op, err)
			}
		}
	}
	if wb.Empty() {
		return nil
	}
	if err := wb.Commit(pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}
