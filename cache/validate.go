package cache

import (
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
)

// ParseMessageID parses a textual message or replica uuid, which must be a
// version 1 (time-based) RFC 4122 UUID. field names it in errors.
func ParseMessageID(field, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, herald.Errorf(herald.EInvalid, "%s %q is not a UUID", field, s)
	}
	if id.Version() != 1 || id.Variant() != uuid.RFC4122 {
		return uuid.Nil, herald.Errorf(herald.EInvalid, "%s %s must be a version 1 (time-based) UUID", field, s)
	}
	return id, nil
}

// ttl resolves a requested TTL in seconds (nil for the default).
func (s *Service) ttl(seconds *int64) (time.Duration, error) {
	if seconds == nil {
		return s.cfg.DefaultTTL, nil
	}
	max := int64(s.cfg.MaxTTL / time.Second)
	if *seconds < 1 || *seconds > max {
		return 0, herald.Errorf(herald.EInvalid, "ttl must be between 1 and %d seconds, not %d", max, *seconds)
	}
	return time.Duration(*seconds) * time.Second, nil
}

// limit resolves a requested page size (0 for the default).
func (s *Service) limit(n int) (int, error) {
	if n == 0 {
		return s.cfg.DefaultLimit, nil
	}
	if n < 0 || n > s.cfg.MaxLimit {
		return 0, herald.Errorf(herald.EInvalid, "limit must be between 1 and %d, not %d", s.cfg.MaxLimit, n)
	}
	return n, nil
}
