package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/wsauth"
)

// Identifier establishes who calls Herald's own HTTP API (and the
// WebSocket gateway): the one place where a request's credential becomes
// an access.Identity. The cache service then checks that identity for
// every action.
//
// A request may carry a SigV4 signature made with one of the configured
// AWS access keys (in the Authorization header or presigned in the query;
// any service name in the scope, "herald" by convention), or a bearer JSON
// Web Token (the Authorization header or the "token" query parameter).
// Without either it acts as Anonymous, when that is set, and is refused
// otherwise.
type Identifier struct {
	// Verifier checks SigV4 signatures; nil or disabled: signatures are
	// not accepted.
	Verifier *awsauth.Verifier
	// KeyAccounts maps access keys to their accounts; others act in
	// DefaultAccount.
	KeyAccounts    map[string]string
	DefaultAccount string
	// Tokens verifies bearer tokens; nil: tokens are not accepted.
	Tokens *wsauth.Authenticator
	// AccountGrants returns what an account's keys may do in the cache
	// (tokens carry their own grants).
	AccountGrants func(account string) access.Grants
	// Anonymous, when non-nil, is the identity of requests without a
	// credential.
	Anonymous *access.Identity
}

// Identify returns r's identity. body is r's body when it was read (for
// the payload hash of a signature); limit bounds how much of an unread
// body is read for that.
func (x *Identifier) Identify(r *http.Request, limit int64) (access.Identity, error) {
	switch {
	case isSigV4(r):
		return x.identifySigned(r, limit)
	case wsauth.Token(r) != "":
		if x.Tokens == nil {
			return access.Identity{}, herald.Errorf(herald.EUnauthenticated, "this server accepts no bearer tokens")
		}
		id, err := x.Tokens.Identify(wsauth.Token(r))
		if err != nil {
			return access.Identity{}, herald.Errorf(herald.EUnauthenticated, "invalid token: %s", herald.Clip(err.Error()))
		}
		if id.Account == "" {
			id.Account = x.DefaultAccount
		}
		return id, nil
	case x.Anonymous != nil:
		return *x.Anonymous, nil
	}
	return access.Identity{}, herald.Errorf(herald.EUnauthenticated,
		"this server requires a credential: a SigV4 signature with an access key, or a bearer token")
}

// isSigV4 reports whether r carries a SigV4 signature.
func isSigV4(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256") ||
		(r.URL.RawQuery != "" && r.URL.Query().Has("X-Amz-Signature")) // most requests have no query to parse
}

// identifySigned checks r's signature over its body, which it reads (at
// most limit bytes) and puts back.
func (x *Identifier) identifySigned(r *http.Request, limit int64) (access.Identity, error) {
	if x.Verifier == nil || !x.Verifier.Enabled() {
		return access.Identity{}, herald.Errorf(herald.EUnauthenticated, "this server has no access keys to check signatures with")
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err != nil {
			return access.Identity{}, herald.Errorf(herald.EInvalid, "cannot read the request body: %s", herald.Clip(err.Error()))
		}
		if int64(len(b)) > limit {
			return access.Identity{}, herald.Errorf(herald.ETooLarge, "the request body exceeds %d bytes", limit)
		}
		body = b
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	sig, err := x.Verifier.Verify(r, body)
	if err != nil {
		var ae *awsauth.Error
		if errors.As(err, &ae) {
			return access.Identity{}, herald.Errorf(herald.EUnauthenticated, "%s: %s", ae.Code, herald.Clip(ae.Message))
		}
		return access.Identity{}, herald.Errorf(herald.EUnauthenticated, "the signature does not verify")
	}
	account := x.DefaultAccount
	if a := x.KeyAccounts[sig.AccessKey]; a != "" {
		account = a
	}
	id := access.Identity{Account: account, Subject: sig.AccessKey}
	if x.AccountGrants != nil {
		id.Grants = x.AccountGrants(account)
	}
	return id, nil
}
