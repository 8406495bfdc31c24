package limits

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/heraldmq/herald"
)

// Store keeps small named settings where every node, and this one after a
// restart, finds them: the engine's (pebblestore.DB, cassandrastore.Store).
// The rules set at run time (Control.SetRules) are kept in it, so that a
// change made through one node reaches all of them (Control.Sync).
type Store interface {
	// Setting returns the value of name; ok is false when it has none.
	Setting(ctx context.Context, name string) (value string, ok bool, err error)
	// SetSetting sets the value of name; "" deletes it.
	SetSetting(ctx context.Context, name, value string) error
}

// SettingRules is the name of the setting holding the rules set at run
// time: {"rules": ["sqs=500/s", ...]}.
const SettingRules = "limits"

// SyncInterval is how often Control.Sync reads the stored rules: a change
// made through one node is in force on every node within it.
const SyncInterval = 5 * time.Second

// stored is the setting's value.
type stored struct {
	Rules []string `json:"rules"`
}

// syncState is what Control last applied.
type syncState struct {
	mu         sync.Mutex
	lastStored string // the setting's value last applied; "" while the configuration's rules are in force
}

// Load applies the rules stored, if any, in place of the configuration's:
// what a node does at its start, before it serves.
func (c *Control) Load(ctx context.Context) error {
	if c.Store == nil {
		return nil
	}
	v, ok, err := c.Store.Setting(ctx, SettingRules)
	if err != nil {
		return err
	}
	return c.apply(v, ok)
}

// Sync applies the stored rules every SyncInterval until ctx ends, and
// reports a failure to read or apply them to onErr (the rules in force
// stay).
func (c *Control) Sync(ctx context.Context, onErr func(error)) {
	if c.Store == nil {
		return
	}
	t := time.NewTicker(SyncInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := c.Load(ctx); err != nil && ctx.Err() == nil {
			onErr(err)
		}
	}
}

// apply puts the stored value v in force (ok false: the configuration's
// rules), unless it is in force already.
func (c *Control) apply(v string, ok bool) error {
	c.sync.mu.Lock()
	defer c.sync.mu.Unlock()
	if !ok {
		v = ""
	}
	if v == c.sync.lastStored {
		return nil
	}
	if v == "" {
		c.Limiter.SetRules(c.Configured)
		c.sync.lastStored = ""
		return nil
	}
	var s stored
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return fmt.Errorf("stored rate limits: %w", err)
	}
	rules, err := ParseRules(s.Rules)
	if err != nil {
		return fmt.Errorf("stored rate limits: %w", err)
	}
	c.Limiter.SetRules(rules)
	c.sync.lastStored = v
	return nil
}

// save stores rules (nil: deletes the stored ones) and puts them in force.
func (c *Control) save(ctx context.Context, rules []Rule) error {
	v := ""
	if rules != nil {
		b, err := json.Marshal(stored{Rules: specs(rules)})
		if err != nil {
			return err
		}
		v = string(b)
	}
	if c.Store != nil {
		if err := c.Store.SetSetting(ctx, SettingRules, v); err != nil {
			return herald.Unavailable("store rate limits", err)
		}
	}
	return c.apply(v, v != "")
}
