package access

import (
	"context"
	"time"
)

// Identity is a caller as an edge established it.
type Identity struct {
	// Account is the AWS account the caller acts in: its access key's, or
	// a token's "account" claim, or the default account.
	Account string
	// Subject names the caller in logs: an access key id or a token's sub.
	Subject string
	// Grants bound what it may do in the message cache.
	Grants Grants
	// Expires is when its credential stops being valid (a token's exp);
	// zero when it does not expire.
	Expires time.Time
}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext returns the identity ctx carries.
func FromContext(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// Internal returns the identity of Herald's own doors that act for the
// whole deployment (AMQP ingest, whose broker authenticates its
// publishers): every grant.
func Internal(subject string) Identity {
	return Identity{Subject: subject, Grants: AllowAll()}
}
