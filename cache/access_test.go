package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/cache"
)

func wantErrCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := herald.ErrorCode(err); got != code {
		t.Fatalf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}

// Every query and put checks the identity in its context against its
// grants, and a server that requires an identity refuses requests without
// one.
func TestAccessIsCheckedByTheService(t *testing.T) {
	cfg := cache.DefaultConfig()
	cfg.RequireIdentity = true
	svc := newService(t, cfg)
	admin := access.WithIdentity(context.Background(), access.Identity{Subject: "admin", Grants: access.AllowAll()})
	tenant := access.WithIdentity(context.Background(), access.Identity{Account: "111111111111", Grants: access.Grants{
		Subscribe: []string{"t1.#"}, Publish: []string{"t1.#"}}})
	none := context.Background()

	theirs, _, err := svc.Put(admin, cache.PutInput{Metadata: meta("t2.secret")})
	wantErrCode(t, "admin put", err, "")
	mine, _, err := svc.Put(tenant, cache.PutInput{Metadata: meta("t1.a")})
	wantErrCode(t, "tenant put in its prefix", err, "")
	_, _, err = svc.Put(tenant, cache.PutInput{Metadata: meta("t1.b", "t2.x")})
	wantErrCode(t, "tenant put with one foreign path", err, herald.EForbidden)
	_, _, err = svc.Put(none, cache.PutInput{Metadata: meta("t1.c")})
	wantErrCode(t, "put without identity", err, herald.EUnauthenticated)
	res, err := svc.PutBatch(tenant, []cache.PutInput{{Metadata: meta("t1.d")}, {Metadata: meta("t2.d")}})
	wantErrCode(t, "batch", err, "")
	wantErrCode(t, "batch entry in prefix", res[0].Err, "")
	wantErrCode(t, "batch entry outside", res[1].Err, herald.EForbidden)

	tests := []struct {
		name string
		run  func(ctx context.Context) error
		ok   bool // for the tenant
	}{
		{"latest own", func(ctx context.Context) error { _, _, err := svc.Latest(ctx, "t1.#", "", 0); return err }, true},
		{"latest all", func(ctx context.Context) error { _, _, err := svc.Latest(ctx, "#", "", 0); return err }, false},
		{"latest other", func(ctx context.Context) error { _, _, err := svc.Latest(ctx, "t2.*", "", 0); return err }, false},
		{"all own", func(ctx context.Context) error { _, _, err := svc.All(ctx, "t1.a", "", 0); return err }, true},
		{"all other", func(ctx context.Context) error { _, _, err := svc.All(ctx, "t2.secret", "", 0); return err }, false},
		{"paths own", func(ctx context.Context) error { _, _, err := svc.Paths(ctx, "t1", "", 0); return err }, true},
		{"paths root", func(ctx context.Context) error { _, _, err := svc.Paths(ctx, "", "", 0); return err }, false},
		{"journal", func(ctx context.Context) error {
			_, _, err := svc.Journal(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), "", 0)
			return err
		}, false},
		{"subscribe own", func(ctx context.Context) error { return svc.AuthorizeRead(ctx, "t1.*") }, true},
		{"subscribe other", func(ctx context.Context) error { return svc.AuthorizeRead(ctx, "t2.#") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := herald.EForbidden
			if tt.ok {
				want = ""
			}
			wantErrCode(t, "tenant", tt.run(tenant), want)
			wantErrCode(t, "admin", tt.run(admin), "")
			wantErrCode(t, "no identity", tt.run(none), herald.EUnauthenticated)
		})
	}

	// Get by id: an unreadable message is "not found", so ids leak nothing.
	_, err = svc.Get(tenant, mine.ID.String())
	wantErrCode(t, "get own", err, "")
	_, err = svc.Get(tenant, theirs.ID.String())
	wantErrCode(t, "get other", err, herald.ENotFound)
	_, err = svc.Get(admin, theirs.ID.String())
	wantErrCode(t, "get as admin", err, "")
}

// Without RequireIdentity (the zero-config embedded default), a context
// without an identity may do everything, and one with an identity is still
// bounded by it.
func TestAccessOpenByDefault(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	_, _, err := svc.Put(context.Background(), cache.PutInput{Metadata: meta("any.path")})
	wantErrCode(t, "anonymous put", err, "")
	limited := access.WithIdentity(context.Background(), access.Identity{Grants: access.Grants{Subscribe: []string{"x.#"}}})
	_, _, err = svc.Put(limited, cache.PutInput{Metadata: meta("any.path")})
	wantErrCode(t, "limited put", err, herald.EForbidden)
}
