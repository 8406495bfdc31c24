package cassandrastore

import (
	"encoding/binary"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/rollup"
)

// rollupBody is what one rollup commit writes, recorded in rollup_pending
// before its transaction: the absolute values of the rows it changed, the
// events it committed and the firings it recorded, and the nonce of the
// commit before it (so a writer can walk the records back to the last
// commit it knows).
type rollupBody struct {
	prev    uuid.UUID
	rows    []bodyRow
	events  []bodyEvent
	firings []rollup.Firing
	sights  []bodySight // recorded sights of distinct metrics (version 2)
}

type bodySight struct {
	sight   rollup.Sight
	firstMs int64
}

type bodyRow struct {
	row  rollup.Row
	sums []int64
}

type bodyEvent struct {
	id        string
	hour      int64 // Unix seconds of the hour of the event's time
	expiresMs int64
}

// bodyVersion starts every encoded body; a body without sights is
// written as version 1 (which nodes that know no sights read).
const (
	bodyVersion       = 1
	bodyVersionSights = 2
)

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encode returns the body's bytes.
func (p *rollupBody) encode() ([]byte, error) {
	b := make([]byte, 0, 64+len(p.rows)*64+len(p.events)*40)
	if len(p.sights) > 0 {
		b = append(b, bodyVersionSights)
	} else {
		b = append(b, bodyVersion)
	}
	b = append(b, p.prev[:]...)
	b = binary.AppendUvarint(b, uint64(len(p.rows)))
	for _, r := range p.rows {
		b = appendRow(b, r.row)
		b = binary.AppendUvarint(b, uint64(len(r.sums)))
		b = rollup.AppendSums(b, r.sums)
	}
	b = binary.AppendUvarint(b, uint64(len(p.events)))
	for _, e := range p.events {
		b = appendString(b, e.id)
		b = binary.AppendVarint(b, e.hour)
		b = binary.AppendVarint(b, e.expiresMs)
	}
	b = binary.AppendUvarint(b, uint64(len(p.firings)))
	for _, f := range p.firings {
		j, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		b = appendString(b, string(j))
	}
	if len(p.sights) > 0 {
		b = binary.AppendUvarint(b, uint64(len(p.sights)))
		for _, s := range p.sights {
			b = appendRow(b, s.sight.Set)
			b = binary.AppendUvarint(b, uint64(s.sight.Metric))
			b = appendString(b, s.sight.Value)
			b = binary.AppendVarint(b, s.firstMs)
		}
	}
	return b, nil
}

// appendRow appends the fields of row r.
func appendRow(b []byte, r rollup.Row) []byte {
	b = binary.AppendUvarint(b, uint64(r.Scope))
	b = appendString(b, r.Key)
	b = appendString(b, string(r.Unit))
	b = binary.AppendVarint(b, r.Bucket)
	b = binary.AppendVarint(b, int64(r.Dim))
	return appendString(b, r.Value)
}

// row reads the fields of a row (appendRow).
func (r *bodyReader) row() rollup.Row {
	return rollup.Row{Scope: int(r.uvarint()), Key: r.string(), Unit: rollup.Unit(r.string()),
		Bucket: r.varint(), Dim: int(r.varint()), Value: r.string()}
}

var errBadBody = errors.New("rollup commit record: malformed")

// bodyReader reads the fields of an encoded body, remembering the first
// error.
type bodyReader struct {
	b   []byte
	err error
}

func (r *bodyReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errBadBody
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *bodyReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errBadBody
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *bodyReader) string() string {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errBadBody
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// count reads a count of items of at least min bytes each.
func (r *bodyReader) count(min int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)/min) {
		r.err = errBadBody
		return 0
	}
	return int(n)
}

// decodeBody reads an encoded body.
func decodeBody(b []byte) (*rollupBody, error) {
	if len(b) < 1+16 || (b[0] != bodyVersion && b[0] != bodyVersionSights) {
		return nil, errBadBody
	}
	p := &rollupBody{}
	copy(p.prev[:], b[1:17])
	r := &bodyReader{b: b[17:]}
	p.rows = make([]bodyRow, r.count(7))
	for i := range p.rows {
		row := r.row()
		sums := make([]int64, r.count(1))
		for j := range sums {
			sums[j] = r.varint()
		}
		p.rows[i] = bodyRow{row, sums}
	}
	p.events = make([]bodyEvent, r.count(3))
	for i := range p.events {
		p.events[i] = bodyEvent{id: r.string(), hour: r.varint(), expiresMs: r.varint()}
	}
	p.firings = make([]rollup.Firing, r.count(1))
	for i := range p.firings {
		if err := json.Unmarshal([]byte(r.string()), &p.firings[i]); err != nil && r.err == nil {
			r.err = errBadBody
		}
	}
	if b[0] == bodyVersionSights {
		n := r.count(9)
		if n == 0 && r.err == nil {
			r.err = errBadBody // a record without sights is version 1
		}
		p.sights = make([]bodySight, n)
		for i := range p.sights {
			set := r.row()
			m := int(r.uvarint())
			p.sights[i] = bodySight{sight: rollup.Sight{Set: set, Metric: m, Value: r.string()}, firstMs: r.varint()}
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errBadBody
	}
	if r.err != nil {
		return nil, r.err
	}
	return p, nil
}
