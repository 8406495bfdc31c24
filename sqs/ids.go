package sqs

import (
	"sync"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/internal/uuidv1"
)

// NewMessageID returns a version 1 UUID for a new message, later by
// SentBefore than every ID this process made before: FIFO groups are kept
// in that order, and SequenceNumbers are made of it.
//
// uuid.NewUUID alone does not promise that: for two IDs of one 100 ns tick
// it bumps the 14-bit clock sequence instead, which wraps to 0 after
// 16,384 such bumps, so that once in a while an ID sorts before the one
// made just before it. Here an ID whose time is not past the last one's
// takes the last time plus one tick instead, so the time alone orders the
// IDs of one process (the clock sequence then plays no part). A burst can
// so run ahead of the clock by 100 ns an ID, which the next quiet moment
// makes up.
func NewMessageID() (uuid.UUID, error) {
	id, err := uuid.NewUUID()
	if err != nil {
		return id, err
	}
	lastID.mu.Lock()
	t := uint64(id.Time())
	if t <= lastID.time {
		t = lastID.time + 1
	}
	lastID.time = t
	lastID.mu.Unlock()
	uuidv1.SetTime(&id, t)
	return id, nil
}

// lastID is the time of the last ID NewMessageID made.
var lastID struct {
	mu   sync.Mutex
	time uint64
}
