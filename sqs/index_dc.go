package sqs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// dcIndex is an Index over the Indexes of several data centers: each call
// goes to the Index of the data center its IndexQueue names (DC), ""
// meaning this node's (dc.go). A Drop for AllDCs goes to every one.
type dcIndex struct {
	local string
	by    map[string]Index
}

// NewDCIndex returns an Index that sends each call to the Index of the data
// center the IndexQueue names: by holds every data center's Index, local
// names this node's. A queue of a data center by lacks gets an
// unavailable error (the node is not configured to reach it).
func NewDCIndex(local string, by map[string]Index) Index {
	return &dcIndex{local: local, by: by}
}

var _ Index = (*dcIndex)(nil)

func (d *dcIndex) of(q IndexQueue) (Index, error) {
	dc := q.DC
	if dc == "" {
		dc = d.local
	}
	if ix, ok := d.by[dc]; ok {
		return ix, nil
	}
	return nil, herald.Unavailable("index", fmt.Errorf("no index of data center %q is configured on this node (--dc-peer-redis)", dc))
}

func (d *dcIndex) Add(ctx context.Context, q IndexQueue, entries []Entry) error {
	ix, err := d.of(q)
	if err != nil {
		return err
	}
	return ix.Add(ctx, q, entries)
}

func (d *dcIndex) Receive(ctx context.Context, q IndexQueue, r ReceiveRequest) (ReceiveResult, error) {
	ix, err := d.of(q)
	if err != nil {
		return ReceiveResult{}, err
	}
	return ix.Receive(ctx, q, r)
}

func (d *dcIndex) Remove(ctx context.Context, q IndexQueue, ids []uuid.UUID) error {
	ix, err := d.of(q)
	if err != nil {
		return err
	}
	return ix.Remove(ctx, q, ids)
}

func (d *dcIndex) SetVisibleAt(ctx context.Context, q IndexQueue, id uuid.UUID, receiveCount int, now, visibleAt time.Time) error {
	ix, err := d.of(q)
	if err != nil {
		return err
	}
	return ix.SetVisibleAt(ctx, q, id, receiveCount, now, visibleAt)
}

func (d *dcIndex) Hide(ctx context.Context, q IndexQueue, id uuid.UUID, now, visibleAt time.Time) (Claim, error) {
	ix, err := d.of(q)
	if err != nil {
		return Claim{}, err
	}
	return ix.Hide(ctx, q, id, now, visibleAt)
}

func (d *dcIndex) Missing(ctx context.Context, q IndexQueue, ids []uuid.UUID) ([]uuid.UUID, error) {
	ix, err := d.of(q)
	if err != nil {
		return nil, err
	}
	return ix.Missing(ctx, q, ids)
}

func (d *dcIndex) Counts(ctx context.Context, q IndexQueue, now time.Time) (Counts, error) {
	ix, err := d.of(q)
	if err != nil {
		return Counts{}, err
	}
	return ix.Counts(ctx, q, now)
}

// Drop of AllDCs drops the queue in every data center's Index; it fails
// if any of them fails (the caller tries again).
func (d *dcIndex) Drop(ctx context.Context, q IndexQueue) error {
	if q.DC != AllDCs {
		ix, err := d.of(q)
		if err != nil {
			return err
		}
		return ix.Drop(ctx, q)
	}
	var errs []error
	for _, ix := range d.by {
		errs = append(errs, ix.Drop(ctx, q))
	}
	return errors.Join(errs...)
}

func (d *dcIndex) MarkBuilt(ctx context.Context, q IndexQueue) error {
	ix, err := d.of(q)
	if err != nil {
		return err
	}
	return ix.MarkBuilt(ctx, q)
}

func (d *dcIndex) LockRebuild(ctx context.Context, q IndexQueue, lease time.Duration) (RebuildLease, bool, error) {
	ix, err := d.of(q)
	if err != nil {
		return nil, false, err
	}
	return ix.LockRebuild(ctx, q, lease)
}

func (d *dcIndex) Deduplicate(ctx context.Context, q IndexQueue, key string, id uuid.UUID, window time.Duration) (uuid.UUID, bool, error) {
	ix, err := d.of(q)
	if err != nil {
		return uuid.Nil, false, err
	}
	return ix.Deduplicate(ctx, q, key, id, window)
}
