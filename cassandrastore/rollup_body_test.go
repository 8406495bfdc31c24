package cassandrastore

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/rollup"
)

func sampleBody() *rollupBody {
	return &rollupBody{
		prev: uuid.MustParse("0b7d2a51-3f7e-4c1a-8d8e-2a5f6c9e1d00"),
		rows: []bodyRow{
			{rollup.Row{Scope: 1, Key: "c1\x1fv9", Unit: rollup.Day, Bucket: 1796169600, Dim: 2, Value: "Paris"}, []int64{5, -3, 0}},
			{rollup.Row{Key: "c1", Unit: rollup.All, Dim: rollup.Total}, []int64{1 << 40, 0, 7}},
		},
		events: []bodyEvent{{id: "e1", hour: 1796169600, expiresMs: 1796500000000}},
		firings: []rollup.Firing{{ID: "f1", Account: "000000000000", Rollup: "r", Trigger: "t", Metric: "plays",
			Scope: []string{"c1"}, Unit: rollup.All, Bucket: time.Unix(0, 0).UTC(), Total: 100, Threshold: 100, Direction: "up", At: time.Unix(1796169600, 0).UTC()}},
	}
}

// sampleBodySights is sampleBody with sights of distinct metrics.
func sampleBodySights() *rollupBody {
	p := sampleBody()
	p.sights = []bodySight{
		{rollup.Sight{Set: rollup.Row{Key: "c1", Unit: rollup.Hour, Bucket: 1796169600, Dim: 0, Value: "Paris"}, Metric: 1, Value: "ann"}, 1796169661000},
		{rollup.Sight{Set: rollup.Row{Key: "c1", Unit: rollup.All, Dim: rollup.Total}, Metric: 2, Value: "bob"}, 1796169600000},
	}
	return p
}

// TestRollupBodyRoundTrip: a commit record reads back as written, with
// sights (version 2) or without (version 1, as nodes that know no sights
// write and read it).
func TestRollupBodyRoundTrip(t *testing.T) {
	for _, want := range []*rollupBody{sampleBody(), sampleBodySights()} {
		t.Run(fmt.Sprintf("sights=%d", len(want.sights)), func(t *testing.T) { testBodyRoundTrip(t, want) })
	}
}

func testBodyRoundTrip(t *testing.T, want *rollupBody) {
	version := byte(bodyVersion)
	if len(want.sights) > 0 {
		version = bodyVersionSights
	}
	enc, err := want.encode()
	if err != nil {
		t.Fatal(err)
	}
	if enc[0] != version {
		t.Fatalf("version %d for %d sights, want %d", enc[0], len(want.sights), version)
	}
	got, err := decodeBody(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v\nwant %+v", got, want)
	}
	for n := range len(enc) { // every truncation is an error, never a panic
		if _, err := decodeBody(enc[:n]); err == nil {
			t.Fatalf("a record cut to %d of %d bytes decoded", n, len(enc))
		}
	}
}

// FuzzDecodeBody: any bytes decode to a record or an error, never a
// panic; a record decoded re-encodes to the same bytes.
func FuzzDecodeBody(f *testing.F) {
	enc, _ := sampleBody().encode()
	f.Add(enc)
	enc, _ = sampleBodySights().encode()
	f.Add(enc)
	f.Add([]byte{bodyVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeBody(b)
		if err != nil {
			return
		}
		again, err := p.encode()
		if err != nil {
			t.Fatal(err)
		}
		if q, err := decodeBody(again); err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("re-encoded record decodes to %+v, %v; want %+v", q, err, p)
		}
	})
}
