package chaos

import "testing"

func TestFIFOOrderCountsReorders(t *testing.T) {
	type delivery struct {
		payload string
		acked   bool
	}
	tests := []struct {
		name           string
		seen           []delivery
		total, unacked int64
	}{
		{"in order", []delivery{{"g1.s0.x", true}, {"g1.s1.x", true}, {"g2.s0.x", true}, {"g1.s2.x", true}}, 0, 0},
		{"a gap is no reorder", []delivery{{"g1.s0.x", true}, {"g1.s5.x", true}}, 0, 0},
		{"late acknowledged send", []delivery{{"g1.s0.x", true}, {"g1.s2.x", true}, {"g1.s1.x", true}}, 1, 0},
		{"late unacknowledged send", []delivery{{"g1.s2.x", true}, {"g1.s1.x", false}, {"g1.s0.x", true}}, 1, 1},
		{"groups apart", []delivery{{"g1.s3.x", true}, {"g2.s1.x", true}, {"g2.s2.x", true}}, 0, 0},
		{"not a FIFO payload", []delivery{{"g1.s3.x", true}, {"plain", true}, {"g1.sx.x", true}}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var o fifoOrder
			o.init()
			for _, d := range tc.seen {
				o.see(d.payload, "steady", d.acked)
			}
			total, unacked, byWindow, _ := o.result()
			if total != tc.total || unacked != tc.unacked || byWindow["steady"] != tc.total {
				t.Fatalf("reorders %d (by window %v), unacknowledged %d; want %d, %d", total, byWindow, unacked, tc.total, tc.unacked)
			}
		})
	}
}
