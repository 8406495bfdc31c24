package wsauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

type testKeys struct {
	secret []byte
	rsa    *rsa.PrivateKey
	ec     *ecdsa.PrivateKey
}

func newTestKeys(t *testing.T) testKeys {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKeys{secret: []byte("s3cret-s3cret-s3cret-s3cret-0123"), rsa: rk, ec: ek}
}

func sign(t *testing.T, m jwt.SigningMethod, key any, c jwt.Claims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(m, c).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func heraldClaims(exp time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"sub": "device-42",
		"exp": exp.Unix(),
		"herald": map[string]any{
			"subscribe": []string{"feeds.#"},
			"publish":   []string{"devices.42.#"},
			"queues":    []string{"device-42"},
		},
	}
}

func TestAuthenticate(t *testing.T) {
	k := newTestKeys(t)
	otherEC, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Config{HS256Secret: k.secret, PublicKeys: []crypto.PublicKey{&k.rsa.PublicKey, &k.ec.PublicKey}})
	if err != nil {
		t.Fatal(err)
	}
	future, past := time.Now().Add(time.Hour), time.Now().Add(-time.Minute)
	good := heraldClaims(future)
	noneTok := sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good)

	tests := []struct {
		name    string
		token   string
		header  bool // in Authorization rather than ?token=
		wantErr error
	}{
		{"HS256 good", sign(t, jwt.SigningMethodHS256, k.secret, good), true, nil},
		{"HS256 query", sign(t, jwt.SigningMethodHS256, k.secret, good), false, nil},
		{"HS256 bad secret", sign(t, jwt.SigningMethodHS256, []byte("wrong-secret-wrong-secret-012345"), good), true, ErrInvalidToken},
		{"RS256 good", sign(t, jwt.SigningMethodRS256, k.rsa, good), true, nil},
		{"ES256 good", sign(t, jwt.SigningMethodES256, k.ec, good), false, nil},
		{"ES256 other key", sign(t, jwt.SigningMethodES256, otherEC, good), true, ErrInvalidToken},
		{"HS384 not accepted", sign(t, jwt.SigningMethodHS384, k.secret, good), true, ErrInvalidToken},
		{"alg none", noneTok, true, ErrInvalidToken},
		{"expired", sign(t, jwt.SigningMethodHS256, k.secret, heraldClaims(past)), true, ErrInvalidToken},
		{"no exp", sign(t, jwt.SigningMethodHS256, k.secret, jwt.MapClaims{"sub": "x"}), true, ErrInvalidToken},
		{"garbage", "not.a.token", true, ErrInvalidToken},
		{"missing", "", true, ErrNoToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/v1/ws", nil)
			if tt.token != "" {
				if tt.header {
					r.Header.Set("Authorization", "Bearer "+tt.token)
				} else {
					r = httptest.NewRequest("GET", "/v1/ws?token="+tt.token, nil)
				}
			}
			g, err := a.Authenticate(r)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if !slices.Equal(g.Subscribe, []string{"feeds.#"}) || !slices.Equal(g.Publish, []string{"devices.42.#"}) ||
				!slices.Equal(g.Queues, []string{"device-42"}) || g.All() {
				t.Fatalf("grants = %+v", g)
			}
			if !g.CanSubscribe("feeds.a.*") || g.CanSubscribe("#") || !g.CanQueue("device-42") {
				t.Fatalf("grants %+v answer wrongly", g)
			}
		})
	}
}

func TestAuthenticateAnonymous(t *testing.T) {
	k := newTestKeys(t)
	tests := []struct {
		name      string
		anonymous bool
		grants    Grants
		token     string
		wantAll   bool
		wantErr   error
	}{
		{"off", false, Grants{}, "", false, ErrNoToken},
		{"on, allow all", true, AllowAll(), "", true, nil},
		{"on, limited", true, Grants{Subscribe: []string{"public.#"}}, "", false, nil},
		{"on, bad token still rejected", true, AllowAll(), "bad.token.here", false, ErrInvalidToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(Config{HS256Secret: k.secret, Anonymous: tt.anonymous, AnonymousGrants: tt.grants})
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest("GET", "/v1/ws", nil)
			if tt.token != "" {
				r.Header.Set("Authorization", "Bearer "+tt.token)
			}
			g, err := a.Authenticate(r)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && g.All() != tt.wantAll {
				t.Fatalf("All() = %v, want %v", g.All(), tt.wantAll)
			}
			if err == nil && !tt.wantAll && !g.CanSubscribe("public.x") {
				t.Fatalf("limited anonymous grants lost: %+v", g)
			}
		})
	}
}

func TestTokenClaimCannotGrantAll(t *testing.T) {
	k := newTestKeys(t)
	a, err := New(Config{HS256Secret: k.secret})
	if err != nil {
		t.Fatal(err)
	}
	tok := sign(t, jwt.SigningMethodHS256, k.secret, jwt.MapClaims{"exp": time.Now().Add(time.Hour).Unix(), "herald": map[string]any{"all": true}})
	g, err := a.Verify(tok)
	if err != nil || g.All() || g.CanQueue("x") {
		t.Fatalf("g = %+v, err = %v", g, err)
	}
}

func TestNewRejectsUnknownKey(t *testing.T) {
	if _, err := New(Config{PublicKeys: []crypto.PublicKey{"not a key"}}); err == nil {
		t.Fatal("New accepted a string as a public key")
	}
	a, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Verify("x.y.z"); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("no keys: err = %v", err)
	}
}
