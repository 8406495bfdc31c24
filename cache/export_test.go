package cache

import (
	"time"

	"github.com/google/uuid"
)

// This file lets the external tests (package cache_test) replace the
// service's clock and id generator, which are unexported.

// SetClock makes s stamp received_at from now instead of time.Now.
func SetClock(s *Service, now func() time.Time) { s.now = now }

// SetNewID makes s assign missing ids with newID instead of uuid.NewUUID.
func SetNewID(s *Service, newID func() (uuid.UUID, error)) { s.newID = newID }
