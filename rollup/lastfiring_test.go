package rollup_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/heraldmq/herald/rollup"
)

// TestLastOfEach: of one commit's firings, each trigger's last is the one
// of the latest bucket, then of the greatest ID, whatever their order.
func TestLastOfEach(t *testing.T) {
	h := func(n int) time.Time { return now.Add(time.Duration(n) * time.Hour) }
	tests := []struct {
		name    string
		firings []rollup.Firing
		want    string // trigger:id, in trigger order
	}{
		{"none", nil, "[]"},
		{"one", []rollup.Firing{{ID: "a", Trigger: "t", Bucket: h(0)}}, "[t:a]"},
		{"the latest bucket, though its ID is less", []rollup.Firing{{ID: "b", Trigger: "t", Bucket: h(0)}, {ID: "a", Trigger: "t", Bucket: h(1)}}, "[t:a]"},
		{"the greatest ID in one bucket", []rollup.Firing{{ID: "b", Trigger: "t", Bucket: h(0)}, {ID: "c", Trigger: "t", Bucket: h(0)}, {ID: "a", Trigger: "t", Bucket: h(0)}}, "[t:c]"},
		{"each trigger", []rollup.Firing{{ID: "z", Trigger: "u", Bucket: h(0)}, {ID: "a", Trigger: "t", Bucket: h(0)}, {ID: "y", Trigger: "u", Bucket: h(2)}}, "[t:a u:y]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range rollup.LastOfEach(tc.firings) {
				got = append(got, f.Trigger+":"+f.ID)
			}
			if s := fmt.Sprint(got); s != tc.want {
				t.Fatalf("LastOfEach = %s, want %s", s, tc.want)
			}
		})
	}
}
