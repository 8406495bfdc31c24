package pebblestore

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/cockroachdb/pebble/v2"

	"github.com/heraldmq/herald/rollup"
)

// mergerName names the DB's merge operator in Pebble's OPTIONS file: a
// DB written with merges can only be opened with the same operator.
const mergerName = "herald.rollup-sums.v1"

// merger is the DB's merge operator. A rollup row ('C' key) is written
// as a merge of its deltas (rollup.AppendSums), never read first: Pebble
// adds a row's operands up, with the value it had (a Set of absolute
// values from an older layout, or an earlier merge), when it is read or
// compacted. A commit's merges and its event records are one synced batch,
// so each event adds its deltas once. Other keys are never merged; if one
// were, its operands would be concatenated, as Pebble's default does.
var merger = &pebble.Merger{
	Name: mergerName,
	Merge: func(key, value []byte) (pebble.ValueMerger, error) {
		if len(key) == 0 || key[0] != prefixRollupRow {
			return pebble.DefaultMerger.Merge(key, value)
		}
		// Most reads meet one operand: keep its bytes, decode only when a
		// second one comes (BenchmarkRollupQueries).
		return &sumsMerger{first: slices.Clone(value)}, nil
	},
}

// sumsMerger adds rows' sums element by element (addition commutes, so
// newer and older operands are the same to it). Until a second operand
// comes, it holds the first one's bytes.
type sumsMerger struct {
	first []byte
	sums  []int64
}

func (m *sumsMerger) add(b []byte) error {
	if m.first != nil {
		first := m.first
		m.first = nil
		if err := m.add(first); err != nil {
			return err
		}
	}
	for i := 0; len(b) > 0; i++ {
		x, k := binary.Varint(b)
		if k <= 0 {
			return fmt.Errorf("merge rollup row: %w", rollup.ErrBadSums)
		}
		if i == len(m.sums) {
			m.sums = append(m.sums, 0)
		}
		m.sums[i] += x
		b = b[k:]
	}
	return nil
}

func (m *sumsMerger) MergeNewer(value []byte) error { return m.add(value) }
func (m *sumsMerger) MergeOlder(value []byte) error { return m.add(value) }

func (m *sumsMerger) Finish(bool) ([]byte, io.Closer, error) {
	if m.first != nil {
		return m.first, nil, nil // one operand: as written (readers decode it)
	}
	return rollup.AppendSums(nil, m.sums), nil, nil
}
