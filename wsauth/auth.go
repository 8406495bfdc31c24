package wsauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/heraldmq/herald/access"

	"github.com/golang-jwt/jwt/v5"
)

// ErrNoToken is returned (wrapped) when a request carries no token and
// anonymous access is off.
var ErrNoToken = errors.New("wsauth: no token")

// ErrInvalidToken is returned (wrapped) for a token that fails
// verification: malformed, badly signed, of an algorithm not configured,
// expired or not yet valid.
var ErrInvalidToken = errors.New("wsauth: invalid token")

// Config configures an [Authenticator].
type Config struct {
	// HS256Secret, when non-empty, verifies HS256 tokens.
	HS256Secret []byte
	// PublicKeys verify RS256 (*rsa.PublicKey) and ES256 (*ecdsa.PublicKey)
	// tokens; a token is accepted when any key of its algorithm verifies it.
	PublicKeys []crypto.PublicKey
	// Anonymous admits requests without a token with AnonymousGrants.
	Anonymous       bool
	AnonymousGrants Grants
}

// Authenticator verifies tokens. It is safe for concurrent use.
type Authenticator struct {
	secret    []byte
	rsaKeys   []*rsa.PublicKey
	ecKeys    []*ecdsa.PublicKey
	anonymous bool
	anonGrant Grants
	methods   []string
}

// New returns an Authenticator for cfg. It fails on a public key of an
// unsupported type.
func New(cfg Config) (*Authenticator, error) {
	a := &Authenticator{secret: cfg.HS256Secret, anonymous: cfg.Anonymous, anonGrant: cfg.AnonymousGrants}
	for _, k := range cfg.PublicKeys {
		switch k := k.(type) {
		case *rsa.PublicKey:
			a.rsaKeys = append(a.rsaKeys, k)
		case *ecdsa.PublicKey:
			a.ecKeys = append(a.ecKeys, k)
		default:
			return nil, fmt.Errorf("wsauth: unsupported public key type %T (want *rsa.PublicKey or *ecdsa.PublicKey)", k)
		}
	}
	if len(a.secret) > 0 {
		a.methods = append(a.methods, jwt.SigningMethodHS256.Alg())
	}
	if len(a.rsaKeys) > 0 {
		a.methods = append(a.methods, jwt.SigningMethodRS256.Alg())
	}
	if len(a.ecKeys) > 0 {
		a.methods = append(a.methods, jwt.SigningMethodES256.Alg())
	}
	return a, nil
}

// claims is the part of a token Herald reads.
type claims struct {
	jwt.RegisteredClaims
	Herald  *Grants `json:"herald,omitempty"`
	Account string  `json:"account,omitempty"` // the AWS account the holder acts in
}

// Token returns the token of r: the "Authorization: Bearer" header, or else
// the "token" query parameter; "" when there is none.
func Token(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if scheme, tok, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok)
		}
	}
	if r.URL.RawQuery == "" {
		return "" // most requests have no query to parse
	}
	return r.URL.Query().Get("token")
}

// Authenticate returns the Grants of r's token. Without a token it returns
// the anonymous Grants when anonymous access is on and an error wrapping
// ErrNoToken otherwise; a token that fails verification gives an error
// wrapping ErrInvalidToken. A valid token without a "herald" claim grants
// nothing.
func (a *Authenticator) Authenticate(r *http.Request) (Grants, error) {
	tok := Token(r)
	if tok == "" {
		if a.anonymous {
			return a.anonGrant, nil
		}
		return Grants{}, ErrNoToken
	}
	return a.Verify(tok)
}

// Verify checks token and returns its Grants.
func (a *Authenticator) Verify(token string) (Grants, error) {
	id, err := a.Identify(token)
	return id.Grants, err
}

// Identify checks token and returns the identity it carries: its grants,
// its "account" claim (empty when it names none), its subject and its
// expiry. A token whose account is not a 12-digit account id is invalid,
// so no token can act in one of Herald's internal accounts.
func (a *Authenticator) Identify(token string) (access.Identity, error) {
	if len(a.methods) == 0 {
		return access.Identity{}, fmt.Errorf("%w: no verification key configured", ErrInvalidToken)
	}
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, a.key,
		jwt.WithValidMethods(a.methods), jwt.WithExpirationRequired(), jwt.WithLeeway(0))
	if err != nil {
		return access.Identity{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	if c.Account != "" && !validAccountID(c.Account) {
		return access.Identity{}, fmt.Errorf("%w: the account claim must be 12 digits", ErrInvalidToken)
	}
	id := access.Identity{Account: c.Account, Subject: c.Subject}
	if c.ExpiresAt != nil {
		id.Expires = c.ExpiresAt.Time
	}
	if c.Herald != nil {
		id.Grants = *c.Herald
	}
	return id, nil
}

// validAccountID reports whether s is a 12-digit AWS account id.
func validAccountID(s string) bool {
	return len(s) == 12 && strings.Trim(s, "0123456789") == ""
}

// key chooses the verification keys for t's algorithm.
func (a *Authenticator) key(t *jwt.Token) (any, error) {
	switch t.Method.Alg() {
	case jwt.SigningMethodHS256.Alg():
		return a.secret, nil
	case jwt.SigningMethodRS256.Alg():
		ks := jwt.VerificationKeySet{}
		for _, k := range a.rsaKeys {
			ks.Keys = append(ks.Keys, k)
		}
		return ks, nil
	case jwt.SigningMethodES256.Alg():
		ks := jwt.VerificationKeySet{}
		for _, k := range a.ecKeys {
			ks.Keys = append(ks.Keys, k)
		}
		return ks, nil
	}
	return nil, fmt.Errorf("algorithm %s not accepted", t.Method.Alg())
}
