package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/paths"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/wsauth"
)

// authConfig configures who may use Herald's own API (the cache, events).
type authConfig struct {
	// cacheAnonymous: auto, true or false (identity.go).
	cacheAnonymous string
	// grants are --cache-grants: patterns per account.
	grants accountGrants
}

func (c *authConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.cacheAnonymous, "cache-anonymous", "auto", "let requests to the cache API and /v1/events without a credential read and write every path: true, false, or auto (true when neither --aws-access-keys nor WebSocket token keys are configured)")
	fs.Var(&c.grants, "cache-grants", "paths an account's access keys may read and write in the cache, ACCOUNT=PATTERN[,PATTERN] (repeatable; the default of an account is its own prefix, ACCOUNT.#), e.g. 000000000000=#")
}

// accountGrants is --cache-grants.
type accountGrants map[string][]string

func (g *accountGrants) String() string { return "" }

func (g *accountGrants) Set(text string) error {
	account, list, ok := strings.Cut(text, "=")
	if !ok || !sqs.ValidClientAccount(account) {
		return fmt.Errorf("want ACCOUNT=PATTERN[,PATTERN] with a valid account, got %q", text)
	}
	var patterns []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if err := paths.ValidatePattern(p); err != nil {
			return fmt.Errorf("--cache-grants %s: %v", account, err)
		}
		patterns = append(patterns, p)
	}
	if *g == nil {
		*g = accountGrants{}
	}
	(*g)[account] = append((*g)[account], patterns...)
	return nil
}

// topicGrants returns what a topic of an account may write through its
// path subscriptions: its account's grants, or every path on a server
// whose cache needs no identity (the zero-config default).
func (g accountGrants) topicGrants(requireIdentity bool) func(account string) access.Grants {
	if !requireIdentity {
		return func(string) access.Grants { return access.AllowAll() }
	}
	return g.of
}

// of returns what account's keys may do in the cache.
func (g accountGrants) of(account string) access.Grants {
	patterns, ok := g[account]
	if !ok {
		patterns = []string{account + ".#"}
	}
	return access.Grants{Subscribe: patterns, Publish: patterns}
}

// credentials are the AWS access keys and token keys Herald accepts,
// read once and shared by every door.
type credentials struct {
	verifier    *awsauth.Verifier // nil: no access keys
	keyAccounts map[string]string
	tokens      *wsauth.Authenticator // nil: no token keys
}

// configured reports whether any credential is configured.
func (c credentials) configured() bool { return c.verifier != nil || c.tokens != nil }

// loadCredentials reads --aws-access-keys and the WebSocket token keys.
func loadCredentials(aws awsConfig, ws wsConfig) (credentials, error) {
	var c credentials
	keys, err := parseAccessKeys(aws.accessKeys)
	if err != nil {
		return c, err
	}
	if !sqs.ValidClientAccount(aws.account) {
		return c, fmt.Errorf("--aws-account %q: not a valid account id (and names starting with %q are Herald's own)", aws.account, sqs.InternalAccountPrefix)
	}
	c.keyAccounts = map[string]string{}
	if len(keys) > 0 {
		creds := awsauth.Credentials{}
		for _, k := range keys {
			creds[k.id] = k.secret
			if k.account != "" {
				c.keyAccounts[k.id] = k.account
			}
		}
		c.verifier = awsauth.NewVerifier(creds)
	}
	pub, err := loadPublicKeys(ws.publicKeyFiles)
	if err != nil {
		return c, err
	}
	if ws.hs256Secret != "" || len(pub) > 0 {
		if c.tokens, err = wsauth.New(wsauth.Config{HS256Secret: []byte(ws.hs256Secret), PublicKeys: pub}); err != nil {
			return c, err
		}
	}
	return c, nil
}

// identifier is the HTTP API's Identifier, and whether the cache must
// require an identity on every request.
func (c credentials) identifier(cfg authConfig, defaultAccount string) (*httpapi.Identifier, bool, error) {
	anonymous := cfg.cacheAnonymous == "true"
	switch cfg.cacheAnonymous {
	case "auto":
		anonymous = !c.configured()
	case "true", "false":
	default:
		return nil, false, fmt.Errorf("--cache-anonymous %q: want auto, true or false", cfg.cacheAnonymous)
	}
	return c.identifierFor(cfg.grants, defaultAccount, anonymous), !anonymous, nil
}

// identifierFor is an Identifier over these credentials; anonymous lets
// requests without a credential do everything in defaultAccount.
func (c credentials) identifierFor(grants accountGrants, defaultAccount string, anonymous bool) *httpapi.Identifier {
	x := &httpapi.Identifier{Verifier: c.verifier, KeyAccounts: c.keyAccounts, DefaultAccount: defaultAccount,
		Tokens: c.tokens, AccountGrants: grants.of}
	if anonymous {
		x.Anonymous = &access.Identity{Account: defaultAccount, Subject: "anonymous", Grants: access.AllowAll()}
	}
	return x
}
