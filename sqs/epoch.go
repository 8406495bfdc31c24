package sqs

import (
	"context"
	"errors"
)

// IndexEpochs keeps the index epoch of this node's data center, where an
// engine has an Index apart from its Store (Cassandra with Redis). Every
// queue's built marker in the Index must carry the current epoch
// (IndexQueue.Epoch): bumping it makes every node of the data center
// treat every queue's Index state as stale and rebuild it from the Store
// on next use. That is what a data center whose Redis survived a
// fail-over needs before it serves again: its Redis never saw the
// messages sent meanwhile through the other data center's.
type IndexEpochs interface {
	// IndexEpoch reads the current epoch (0 before the first bump).
	IndexEpoch(ctx context.Context) (uint64, error)
	// BumpIndexEpoch raises the epoch and returns the new value. It never
	// goes down: the new value is above every value read before.
	BumpIndexEpoch(ctx context.Context) (uint64, error)
}

// errNoIndexEpochs is the cause of Reindex on an engine without
// IndexEpochs (the embedded one, whose Index lives in the process and is
// rebuilt from the Store at every start).
var errNoIndexEpochs = errors.New("this engine keeps no separate index to rebuild: the embedded engine's index lives in the process and is rebuilt from the store at every start")
