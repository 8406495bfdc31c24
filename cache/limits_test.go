package cache_test

import (
	"context"
	"testing"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/limits"
)

// TestLimitsAdmitEachDoorPerAccount: puts and queries that came in through
// a door count against their account's rate at that door; each account and
// each door has its own; Herald's own work (no door) is never limited.
func TestLimitsAdmitEachDoorPerAccount(t *testing.T) {
	rules, err := limits.ParseRules([]string{"cache=2/s:2", "ws=1/s:1"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := cache.DefaultConfig()
	cfg.Limits = limits.New(rules)
	svc := newService(t, cfg)
	httpA, wsA, httpB, own := as("a", limits.DoorCache), as("a", limits.DoorWS), as("b", limits.DoorCache), as("a", "")

	_, _, err = svc.Put(httpA, cache.PutInput{Metadata: meta("x.1")})
	wantErrCode(t, "first put", err, "")
	_, _, err = svc.Latest(httpA, "x.#", "", 10)
	wantErrCode(t, "a query, the second request", err, "")
	_, err = svc.Get(httpA, "00000000-0000-1000-8000-000000000000")
	wantErrCode(t, "a third request within the second", err, herald.EThrottled)
	if d, ok := herald.RetryAfter(err); !ok || d <= 0 {
		t.Errorf("throttled without a time to retry: %v", err)
	}
	_, _, err = svc.Put(wsA, cache.PutInput{Metadata: meta("x.2")})
	wantErrCode(t, "the same account through another door", err, "")
	_, _, err = svc.Put(wsA, cache.PutInput{Metadata: meta("x.3")})
	wantErrCode(t, "over the ws door's rate", err, herald.EThrottled)
	_, _, err = svc.Put(httpB, cache.PutInput{Metadata: meta("x.4")})
	wantErrCode(t, "another account", err, "")
	for i := range 10 {
		_, _, err = svc.Put(own, cache.PutInput{Metadata: meta("x.5")})
		wantErrCode(t, "Herald's own put "+string(rune('0'+i)), err, "")
	}
}

// TestPathLimitBoundsEachPath: with a "path" rule, writes to one path
// beyond its rate are refused whoever sends them, while other paths are
// written freely; a message naming a hot path is refused whole.
func TestPathLimitBoundsEachPath(t *testing.T) {
	rules, err := limits.ParseRules([]string{"path=2/s:2"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := cache.DefaultConfig()
	cfg.Limits = limits.New(rules)
	svc := newService(t, cfg)
	ctx := limits.WithDoor(access.WithIdentity(context.Background(), access.Identity{Account: "a", Grants: access.AllowAll()}), limits.DoorCache)
	for i := range 2 {
		_, _, err := svc.Put(ctx, cache.PutInput{Metadata: meta("hot.path")})
		wantErrCode(t, "write within the burst "+string(rune('0'+i)), err, "")
	}
	_, _, err = svc.Put(ctx, cache.PutInput{Metadata: meta("cold.path", "hot.path")})
	wantErrCode(t, "a message naming the hot path", err, herald.EThrottled)
	for i := range 2 {
		_, _, err = svc.Put(ctx, cache.PutInput{Metadata: meta("cold.path")})
		wantErrCode(t, "the other path, untouched by the refused message "+string(rune('0'+i)), err, "")
	}
}

// TestAdmissionControlSharesASaturatedNode: with --max-in-flight 2 and
// account a holding both places, a's next put and query are refused with
// a throttling while account b's enter; Herald's own work always enters.
func TestAdmissionControlSharesASaturatedNode(t *testing.T) {
	lim := limits.New(nil)
	lim.SetMaxInFlight(2)
	cfg := cache.DefaultConfig()
	cfg.Limits = lim
	svc := newService(t, cfg)
	for range 2 { // a's two requests in flight, as a slow store would hold them
		leave, err := lim.Enter("a")
		if err != nil {
			t.Fatal(err)
		}
		defer leave()
	}
	_, _, err := svc.Put(as("a", limits.DoorCache), cache.PutInput{Metadata: meta("y.1")})
	wantErrCode(t, "a's put over its share", err, herald.EThrottled)
	_, _, err = svc.Latest(as("a", limits.DoorWS), "y.#", "", 10)
	wantErrCode(t, "a's query over its share", err, herald.EThrottled)
	_, _, err = svc.Put(as("b", limits.DoorCache), cache.PutInput{Metadata: meta("y.2")})
	wantErrCode(t, "b's put, under its share", err, "")
	_, _, err = svc.All(as("b", limits.DoorCache), "y.2", "", 10)
	wantErrCode(t, "b's query", err, "")
	_, _, err = svc.Put(as("a", ""), cache.PutInput{Metadata: meta("y.3")})
	wantErrCode(t, "Herald's own put", err, "")
}

// as is the context of a request of account that came in through door
// ("": Herald's own work).
func as(account, door string) context.Context {
	ctx := access.WithIdentity(context.Background(), access.Identity{Account: account, Grants: access.AllowAll()})
	if door != "" {
		ctx = limits.WithDoor(ctx, door)
	}
	return ctx
}
