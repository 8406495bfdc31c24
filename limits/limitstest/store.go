// Package limitstest is the shared test of every engine's limits.Store.
package limitstest

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldmq/herald/limits"
)

// Store runs the contract of limits.Store on s, which holds no setting
// named "test-*" yet: a setting absent, set, replaced, read back from
// reopen (a second handle on the same data, which the rest of the test
// uses) and deleted.
func Store(t *testing.T, s limits.Store, reopen func() limits.Store) {
	t.Helper()
	ctx := context.Background()
	if v, ok, err := s.Setting(ctx, "test-absent"); err != nil || ok || v != "" {
		t.Fatalf("an absent setting: %q, %v, %v; want none", v, ok, err)
	}
	if err := s.SetSetting(ctx, "test-a", `{"rules":["sqs=5/s"]}`); err != nil {
		t.Fatal(err)
	}
	long := `{"rules":["` + strings.Repeat("x", 10000) + `"]}`
	if err := s.SetSetting(ctx, "test-a", long); err != nil {
		t.Fatal(err)
	}
	s = reopen()
	if v, ok, err := s.Setting(ctx, "test-a"); err != nil || !ok || v != long {
		t.Fatalf("the setting replaced, read again: %d bytes, %v, %v; want the %d bytes set", len(v), ok, err, len(long))
	}
	if v, ok, _ := s.Setting(ctx, "test-b"); ok {
		t.Errorf("another setting has the value %q", v)
	}
	if err := s.SetSetting(ctx, "test-a", ""); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Setting(ctx, "test-a"); err != nil || ok {
		t.Errorf("a deleted setting: %q, %v, %v; want none", v, ok, err)
	}
	if err := s.SetSetting(ctx, "test-big", strings.Repeat("x", 2<<20)); err == nil {
		t.Error("a setting of 2 MiB was kept")
	}
}
