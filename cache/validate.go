package cache

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/internal/jsonobj"
	"github.com/heraldmq/herald/paths"
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

// parseMetadata checks that raw is a JSON object within the size limit whose
// "paths" member lists 1..MaxPaths valid paths, and returns it compacted
// together with the paths, deduplicated in their original order.
func (s *Service) parseMetadata(raw json.RawMessage) (json.RawMessage, []string, error) {
	if len(raw) == 0 {
		return nil, nil, herald.Errorf(herald.EInvalid, "metadata is required")
	}
	if len(raw) > s.cfg.MaxMetadataBytes {
		return nil, nil, herald.Errorf(herald.ETooLarge, "metadata is %d bytes, over the limit of %d", len(raw), s.cfg.MaxMetadataBytes)
	}
	trimmed := bytes.TrimSpace(raw)
	var pathsJSON json.RawMessage
	err := jsonobj.Members(trimmed, func(name string, value json.RawMessage) error {
		if name == "paths" {
			pathsJSON = value
		}
		return nil
	})
	if err != nil {
		return nil, nil, herald.Errorf(herald.EInvalid, "metadata must be a JSON object: %v", err)
	}
	var list []string
	if len(pathsJSON) == 0 || json.Unmarshal(pathsJSON, &list) != nil {
		return nil, nil, herald.Errorf(herald.EInvalid, `metadata.paths must be an array of path strings`)
	}
	if len(list) == 0 || len(list) > s.cfg.MaxPaths {
		return nil, nil, herald.Errorf(herald.EInvalid, "metadata.paths must hold 1 to %d paths, not %d", s.cfg.MaxPaths, len(list))
	}
	seen := make(map[string]bool, len(list))
	unique := list[:0]
	for _, p := range list {
		if err := paths.Validate(p); err != nil {
			return nil, nil, herald.Errorf(herald.EInvalid, "metadata.paths: %v", err)
		}
		if !seen[p] {
			seen[p] = true
			unique = append(unique, p)
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, trimmed); err != nil {
		return nil, nil, herald.Errorf(herald.EInvalid, "metadata must be a JSON object: %v", err)
	}
	return compact.Bytes(), unique, nil
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
