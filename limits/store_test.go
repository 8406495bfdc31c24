package limits

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// memStore is a Store in memory, shared by the Controls of two "nodes".
type memStore struct {
	values map[string]string
	fail   bool
}

func (m *memStore) Setting(_ context.Context, name string) (string, bool, error) {
	if m.fail {
		return "", false, errors.New("store down")
	}
	v, ok := m.values[name]
	return v, ok, nil
}

func (m *memStore) SetSetting(_ context.Context, name, value string) error {
	if m.fail {
		return errors.New("store down")
	}
	if value == "" {
		delete(m.values, name)
	} else {
		m.values[name] = value
	}
	return nil
}

func TestRulesSetAtRunTimeReachEveryNode(t *testing.T) {
	ctx := context.Background()
	configured, err := ParseRules([]string{"sqs=100/s"})
	if err != nil {
		t.Fatal(err)
	}
	store := &memStore{values: map[string]string{}}
	node := func() *Control {
		c := &Control{Limiter: New(configured), Configured: configured, Store: store}
		if err := c.Load(ctx); err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := node(), node()
	rulesOf := func(c *Control) []string { return specs(c.Limiter.Rules()) }
	if got := rulesOf(b); !slices.Equal(got, []string{"sqs=100/s"}) || b.Source() != "configuration" {
		t.Fatalf("before any change: %v from %s, want the configuration's", got, b.Source())
	}
	if _, err := a.SetRules(ctx, []string{"sqs=5/s", "sns:alerts=1/s"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx); err != nil { // what b's Sync does every SyncInterval
		t.Fatal(err)
	}
	want := []string{"sqs=5/s", "sns:alerts=1/s"}
	if got := rulesOf(b); !slices.Equal(got, want) || b.Source() != "admin" {
		t.Errorf("node b after node a's change: %v from %s, want %v from admin", got, b.Source(), want)
	}
	if c := node(); !slices.Equal(rulesOf(c), want) {
		t.Errorf("a node started after the change: %v, want %v", rulesOf(c), want)
	}
	if _, err := a.SetRules(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(b); len(got) != 0 || b.Source() != "admin" {
		t.Errorf("no rule set at run time: node b has %v from %s, want none from admin", got, b.Source())
	}
	if _, err := a.ResetRules(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(b); !slices.Equal(got, []string{"sqs=100/s"}) || b.Source() != "configuration" {
		t.Errorf("after the reset: node b has %v from %s, want the configuration's", got, b.Source())
	}
	store.fail = true
	if _, err := a.SetRules(ctx, []string{"sqs=1/s"}); err == nil {
		t.Error("a change the store could not keep was accepted")
	}
	if got := rulesOf(a); !slices.Equal(got, []string{"sqs=100/s"}) {
		t.Errorf("a change the store refused is in force on node a: %v", got)
	}
	if err := b.Load(ctx); err == nil {
		t.Error("Load with the store down reported nothing")
	}
	if got := rulesOf(b); !slices.Equal(got, []string{"sqs=100/s"}) {
		t.Errorf("the store down changed node b's rules: %v", got)
	}
}
