package cassandrastore

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestIndexEpoch: a data center's index epoch is 0 until bumped; a bump
// writes the clock in ms, or the current epoch plus one when the clock
// is not past it (a clock behind, or two bumps in one millisecond), so
// it always goes up; each data center reads its own row only; and a
// lower epoch written late (a slower concurrent bump) never replaces a
// higher one.
func TestIndexEpoch(t *testing.T) {
	addr := cassandraAddr(t)
	ks := freshKeyspace(t, addr)
	var clock atomic.Int64 // Unix ms
	clock.Store(1_800_000_000_000)
	st := openTest(t, addr, Options{Keyspace: ks, LocalDC: "datacenter1", Now: func() time.Time { return time.UnixMilli(clock.Load()) }})
	// One data center (LocalDC unset) has a row of its own too.
	single := openTest(t, addr, Options{Keyspace: ks, Now: func() time.Time { return time.UnixMilli(clock.Load()) }})
	ctx := context.Background()
	if got, err := single.IndexEpochs().BumpIndexEpoch(ctx); err != nil || got != 1_800_000_000_000 {
		t.Fatalf("BumpIndexEpoch without LocalDC = %d, %v; want 1800000000000", got, err)
	}
	ep := st.IndexEpochs()
	c := st.conn.Load()
	// Another data center's row is not this one's.
	if err := c.s.Query(`INSERT INTO ` + ks + `.sqs_index_epoch (dc, epoch) VALUES (':far', 1900000000000)`).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		clockMs int64
		bump    bool
		want    uint64
	}{
		{name: "never bumped", want: 0},
		{name: "first bump: the clock", clockMs: 1_800_000_000_000, bump: true, want: 1_800_000_000_000},
		{name: "same millisecond: current + 1", clockMs: 1_800_000_000_000, bump: true, want: 1_800_000_000_001},
		{name: "clock behind: current + 1", clockMs: 1_700_000_000_000, bump: true, want: 1_800_000_000_002},
		{name: "clock ahead: the clock", clockMs: 1_800_000_005_000, bump: true, want: 1_800_000_005_000},
	}
	for _, s := range steps {
		if s.bump {
			clock.Store(s.clockMs)
			got, err := ep.BumpIndexEpoch(ctx)
			if err != nil || got != s.want {
				t.Fatalf("%s: BumpIndexEpoch = %d, %v; want %d", s.name, got, err, s.want)
			}
		}
		if got, err := ep.IndexEpoch(ctx); err != nil || got != s.want {
			t.Fatalf("%s: IndexEpoch = %d, %v; want %d", s.name, got, err, s.want)
		}
	}
	// A lower epoch landing after a higher one (its timestamp is lower)
	// does not replace it.
	if err := c.s.Query(`UPDATE `+ks+`.sqs_index_epoch USING TIMESTAMP ? SET epoch = ? WHERE dc = ':datacenter1'`,
		int64(1_800_000_004_000)*1000, int64(1_800_000_004_000)).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	if got, err := ep.IndexEpoch(ctx); err != nil || got != 1_800_000_005_000 {
		t.Fatalf("after a late lower write: IndexEpoch = %d, %v; want 1800000005000", got, err)
	}
}
