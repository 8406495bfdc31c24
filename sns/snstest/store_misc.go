package snstest

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	herald "github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

func testCancelled(e *env) {
	tp := e.create("t")
	s := e.subscribe(tp, "http://a")
	e.putRecord(e.account, "k", "a", []byte("v"))
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	calls := []struct {
		name string
		call func() error
	}{
		{"CreateTopic", func() error { _, err := e.store.CreateTopic(ctx, NewTopic(e.account, "fresh")); return err }},
		{"GetTopic", func() error { _, err := e.store.GetTopic(ctx, e.account, "t"); return err }},
		{"UpdateTopic", func() error { return e.store.UpdateTopic(ctx, tp) }},
		{"DeleteTopic", func() error { return e.store.DeleteTopic(ctx, tp) }},
		{"ListTopics", func() error { _, err := e.store.ListTopics(ctx, e.account, "", 10); return err }},
		{"PutSubscription", func() error { return e.store.PutSubscription(ctx, NewSubscription(tp, sns.ProtocolHTTP, "http://b")) }},
		{"GetSubscription", func() error { _, err := e.store.GetSubscription(ctx, tp.ID, s.ID); return err }},
		{"DeleteSubscription", func() error { return e.store.DeleteSubscription(ctx, tp.ID, s.ID) }},
		{"ListSubscriptions", func() error { _, err := e.store.ListSubscriptions(ctx, tp.ID, uuid.Nil, 10); return err }},
		{"PutAccountRecord", func() error { return e.store.PutAccountRecord(ctx, e.account, "k", "fresh", nil) }},
		{"GetAccountRecord", func() error { _, err := e.store.GetAccountRecord(ctx, e.account, "k", "a"); return err }},
		{"DeleteAccountRecord", func() error { return e.store.DeleteAccountRecord(ctx, e.account, "k", "a") }},
		{"ListAccountRecords", func() error { _, err := e.store.ListAccountRecords(ctx, e.account, "k", "", 10); return err }},
	}
	const patience = 10 * time.Second
	for _, c := range calls {
		e.t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- c.call() }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("%s with a cancelled context: err = nil, want an error", c.name)
				}
			case <-time.After(patience):
				t.Fatalf("%s with a cancelled context has not returned after %v", c.name, patience)
			}
		})
	}
	// Nothing the cancelled calls attempted happened.
	if got, err := e.store.GetTopic(e.ctx, e.account, "t"); err != nil || got.ID != tp.ID {
		e.t.Errorf("after cancelled calls GetTopic = %v, %v; want the topic", got, err)
	}
	if _, err := e.store.GetSubscription(e.ctx, tp.ID, s.ID); err != nil {
		e.t.Errorf("after cancelled calls GetSubscription: %v", err)
	}
	if v, err := e.store.GetAccountRecord(e.ctx, e.account, "k", "a"); err != nil || string(v) != "v" {
		e.t.Errorf("after cancelled calls GetAccountRecord = %q, %v; want the record", v, err)
	}
	if _, err := e.store.GetAccountRecord(e.ctx, e.account, "k", "fresh"); herald.ErrorCode(err) != herald.ENotFound {
		e.t.Errorf("a cancelled PutAccountRecord stored its record (GetAccountRecord: %v)", err)
	}
}
