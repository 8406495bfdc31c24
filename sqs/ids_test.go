package sqs

import (
	"sync"
	"testing"

	"github.com/google/uuid"
)

// TestNewMessageIDsAreOrdered makes IDs from several goroutines, far more
// than the 16,384 bumps that wrap uuid.NewUUID's clock sequence, and
// checks that each goroutine's IDs are in SentBefore order and that all
// are distinct version 1 UUIDs.
func TestNewMessageIDsAreOrdered(t *testing.T) {
	const workers, each = 4, 25000
	ids := make([][]uuid.UUID, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				id, err := NewMessageID()
				if err != nil {
					t.Error(err)
					return
				}
				ids[w] = append(ids[w], id)
			}
		})
	}
	wg.Wait()
	seen := map[uuid.UUID]bool{}
	for w, list := range ids {
		for i, id := range list {
			if id.Version() != 1 || id.Variant() != uuid.RFC4122 {
				t.Fatalf("id %s: version %d, variant %v", id, id.Version(), id.Variant())
			}
			if seen[id] {
				t.Fatalf("id %s made twice", id)
			}
			seen[id] = true
			if i > 0 && !SentBefore(list[i-1], id) {
				t.Fatalf("worker %d: id %d %s does not sort after id %d %s", w, i, id, i-1, list[i-1])
			}
		}
	}
}
