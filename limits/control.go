package limits

import (
	"context"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
)

// Control is the run-time control of a Limiter's rules, for the admin API:
// only callers of the operator account may see or change them (limits name
// other accounts). A request without an identity, which reaches Herald
// only when it checks no credentials, may too.
type Control struct {
	Limiter  *Limiter
	Operator string // the operator account (--aws-account)
	// Configured are the rules of the configuration (--limit), in force
	// while no rules set at run time are stored.
	Configured []Rule
	// Store keeps the rules set at run time for every node; nil: they are
	// this node's until it stops.
	Store Store

	sync syncState
}

// authorize refuses every caller but the operator's.
func (c *Control) authorize(ctx context.Context) error {
	id, ok := access.FromContext(ctx)
	if !ok || (c.Operator != "" && id.Account == c.Operator) {
		return nil
	}
	return herald.Errorf(herald.EForbidden, "only the operator account may see or change rate limits")
}

// Rules returns the rules in force, as ParseRule reads them.
func (c *Control) Rules(ctx context.Context) ([]string, error) {
	if err := c.authorize(ctx); err != nil {
		return nil, err
	}
	return specs(c.Limiter.Rules()), nil
}

// SetRules replaces every rule by the ones specs give, all or none, and
// keeps them in the Store, where every node finds them (Sync) in place of
// its configuration's; it returns them as they now stand.
func (c *Control) SetRules(ctx context.Context, in []string) ([]string, error) {
	if err := c.authorize(ctx); err != nil {
		return nil, err
	}
	rules, err := ParseRules(in)
	if err != nil {
		return nil, herald.Errorf(herald.EInvalid, "%v", err)
	}
	if rules == nil {
		rules = []Rule{} // stored: no rule at all, which is not the configuration's
	}
	if err := c.save(ctx, rules); err != nil {
		return nil, err
	}
	return specs(rules), nil
}

// ResetRules forgets the rules set at run time: every node goes back to
// its configuration's. It returns them.
func (c *Control) ResetRules(ctx context.Context) ([]string, error) {
	if err := c.authorize(ctx); err != nil {
		return nil, err
	}
	if err := c.save(ctx, nil); err != nil {
		return nil, err
	}
	return specs(c.Limiter.Rules()), nil
}

// Source says where the rules in force come from: "admin" (set at run
// time) or "configuration".
func (c *Control) Source() string {
	c.sync.mu.Lock()
	defer c.sync.mu.Unlock()
	if c.sync.lastStored != "" {
		return "admin"
	}
	return "configuration"
}

// TopWriters is the busiest writers of each kind over the last Window
// (Writers.Top), at most n of each.
type TopWriters struct {
	Accounts []Writer
	Paths    []Writer
}

// Writers returns the busiest accounts and paths, for the operator.
func (c *Control) Writers(ctx context.Context, n int) (TopWriters, error) {
	if err := c.authorize(ctx); err != nil {
		return TopWriters{}, err
	}
	w := c.Limiter.Writers()
	return TopWriters{Accounts: w.Top(WriterAccount, n), Paths: w.Top(WriterPath, n)}, nil
}

func specs(rules []Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.String()
	}
	return out
}
