package uuidv1

import (
	"testing"

	"github.com/google/uuid"
)

// TestSetTime writes times into a UUID and reads them back.
func TestSetTime(t *testing.T) {
	id := uuid.Must(uuid.NewUUID())
	for _, tm := range []uint64{0, 1, 1<<32 - 1, 1 << 32, 1<<48 + 5, 1<<60 - 1} {
		SetTime(&id, tm)
		if got := uint64(id.Time()); got != tm || id.Version() != 1 {
			t.Errorf("time %d: read back %d, version %d", tm, got, id.Version())
		}
	}
}
