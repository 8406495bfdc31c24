package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/internal/jsonscan"
	"github.com/heraldmq/herald/paths"
)

// MaxMetadataDepth is how deeply metadata may nest (the object itself is
// the first level). Readers of JSON recurse per level: 512 levels take
// about 256 KiB of stack, 10,000 (encoding/json's limit) 4 MiB, which a
// client could otherwise make every put cost.
const MaxMetadataDepth = 512

// metadataReaders recycles the readers of metadata.
var metadataReaders = sync.Pool{New: func() any { return new(jsonscan.Reader) }}

// errPathsShape is a "paths" member that is not an array of strings.
var errPathsShape = errors.New("metadata.paths must be an array of path strings")

// parseMetadata checks that raw is a JSON object within the size limit, in
// UTF-8, with no member name twice, whose "paths" member lists 1..MaxPaths
// valid paths. It returns a compacted copy of raw together with the paths,
// deduplicated in their original order. One pass of internal/jsonscan
// checks the whole text.
func (s *Service) parseMetadata(raw json.RawMessage) (json.RawMessage, []string, error) {
	if len(raw) == 0 {
		return nil, nil, herald.Errorf(herald.EInvalid, "metadata is required")
	}
	if len(raw) > s.cfg.MaxMetadataBytes {
		return nil, nil, herald.Errorf(herald.ETooLarge, "metadata is %d bytes, over the limit of %d", len(raw), s.cfg.MaxMetadataBytes)
	}
	list, err := readMetadata(raw)
	if errors.Is(err, errPathsShape) {
		return nil, nil, herald.Errorf(herald.EInvalid, "%v", errPathsShape)
	}
	if err != nil {
		return nil, nil, herald.Errorf(herald.EInvalid, "metadata must be a JSON object: %v", err)
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
	compacted, err := compact(raw)
	if err != nil { // readMetadata and json.Compact disagree: refuse, never store
		return nil, nil, herald.Errorf(herald.EInvalid, "metadata must be a JSON object: %v", err)
	}
	return compacted, unique, nil
}

// readMetadata reads the JSON object raw and returns the strings of its
// "paths" member (nil when it has none).
func readMetadata(raw []byte) ([]string, error) {
	r := metadataReaders.Get().(*jsonscan.Reader)
	defer func() {
		r.Reset(nil)
		metadataReaders.Put(r)
	}()
	r.Reset(raw)
	r.SetMaxDepth(MaxMetadataDepth)
	names := map[string]struct{}{}
	var list []string
	err := r.ObjectBytes(func(name []byte) error {
		if _, dup := names[string(name)]; dup {
			return fmt.Errorf("member %q appears more than once", herald.Clip(string(name)))
		}
		names[string(name)] = struct{}{}
		if string(name) != "paths" {
			return nil // skipped, and checked as it is
		}
		if r.Kind() != jsonscan.Array {
			return errPathsShape
		}
		return r.Array(func(int) error {
			if r.Kind() != jsonscan.String {
				return errPathsShape
			}
			p, err := r.String()
			list = append(list, p)
			return err
		})
	})
	if err == nil {
		err = r.End()
	}
	return list, err
}

// compact returns a copy of the valid JSON text b without insignificant
// whitespace. Text that has no whitespace byte at all, as JSON encoders
// write it, is copied as it is; other text goes through json.Compact.
func compact(b []byte) (json.RawMessage, error) {
	if bytes.IndexAny(b, " \t\r\n") < 0 {
		return bytes.Clone(b), nil
	}
	var out bytes.Buffer
	out.Grow(len(b))
	err := json.Compact(&out, b)
	return out.Bytes(), err
}
