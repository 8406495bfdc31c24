package limits

import (
	"testing"

	"github.com/heraldmq/herald"
)

// TestAdmissionSharesASaturatedNode: below capacity every request enters;
// at capacity a flooding account is refused while another, holding less
// than its share, still enters; leaving frees the place.
func TestAdmissionSharesASaturatedNode(t *testing.T) {
	a := &Admission{MaxInFlight: 4}
	var leaves []func()
	for i := range 4 {
		leave, err := a.Enter("flood")
		if err != nil {
			t.Fatalf("request %d below capacity: %v", i, err)
		}
		leaves = append(leaves, leave)
	}
	_, err := a.Enter("flood")
	if d, ok := herald.RetryAfter(err); !ok || d <= 0 {
		t.Fatalf("the flooding account at capacity: %v, want throttled", err)
	}
	leaveB, err := a.Enter("steady")
	if err != nil {
		t.Fatalf("another account at capacity, below its share: %v", err)
	}
	if _, err := a.Enter("steady"); err != nil {
		t.Fatalf("its second request (share 4/2): %v", err)
	}
	if _, err := a.Enter("steady"); err == nil {
		t.Fatal("a third request over its share of a saturated node entered")
	}
	leaveB()
	for _, l := range leaves {
		l()
	}
	if a.total != 1 || a.inFlight["steady"] != 1 || len(a.inFlight) != 1 {
		t.Errorf("after leaving: total %d, in flight %v", a.total, a.inFlight)
	}
	if r := a.Refused(); r["flood"] != 1 || r["steady"] != 1 {
		t.Errorf("refused %v", r)
	}
	var off *Admission
	if leave, err := off.Enter("x"); err != nil || leave == nil {
		t.Error("a nil Admission admits everything")
	}
}

func BenchmarkAdmissionEnter(b *testing.B) {
	a := &Admission{MaxInFlight: 1 << 20}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			leave, _ := a.Enter("123456789012")
			leave()
		}
	})
}
