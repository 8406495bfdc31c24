package cache

import (
	"context"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/paths"
)

// Authorization: every query and put checks the caller's access.Identity,
// carried by the context, here rather than in each edge:
//
//   - a put needs a write grant for every path of the message;
//   - latest, all, paths and subscriptions need a read grant containing
//     the pattern they can match (paths.Contains), the journal one of "#"
//     (it spans every path);
//   - get by id answers not_found unless one of the message's paths is
//     readable, so ids of unreadable messages reveal nothing.
//
// A context without an identity is refused when Config.RequireIdentity is
// set (any deployment with credentials); otherwise (the zero-config
// embedded default) it may do everything.

// errNoIdentity is a request that reached the cache without a credential.
func errNoIdentity() error {
	return herald.Errorf(herald.EUnauthenticated, "this server requires a credential: a SigV4 signature or a bearer token")
}

// admit takes one request, and bytes bytes, of ctx's caller from its door's
// rate limits (Config.Limits); Herald's own work, marked with no door,
// passes.
func (s *Service) admit(ctx context.Context, bytes int) error {
	if s.cfg.Limits == nil {
		return nil
	}
	door := limits.DoorOf(ctx)
	if door == "" {
		return nil
	}
	id, _ := access.FromContext(ctx)
	return s.cfg.Limits.Admit(id.Account, door, bytes)
}

// admitWrite admits a put of m: the request and its bytes at its door,
// then one write to each of its paths (the "path" rule, limits.ScopePath).
func (s *Service) admitWrite(ctx context.Context, m *Message) error {
	if err := s.admit(ctx, len(m.Metadata)+len(m.Body)); err != nil {
		return err
	}
	if s.cfg.Limits == nil || limits.DoorOf(ctx) == "" {
		return nil
	}
	id, _ := access.FromContext(ctx)
	return s.cfg.Limits.AdmitPaths(id.Account, m.Paths)
}

// enter enters ctx's request into the node's admission control
// (limits.Admission, --max-in-flight) for the store's work that follows:
// on a saturated node an account over its share is refused at once.
// Herald's own work, marked with no door, passes. leave must be called
// when the work is done.
func (s *Service) enter(ctx context.Context) (leave func(), err error) {
	if s.cfg.Limits == nil || limits.DoorOf(ctx) == "" {
		return func() {}, nil
	}
	id, _ := access.FromContext(ctx)
	return s.cfg.Limits.Enter(id.Account)
}

// authorizeQuery authorizes a query of pattern (AuthorizeRead) and enters
// it into admission control (enter).
func (s *Service) authorizeQuery(ctx context.Context, pattern string) (leave func(), err error) {
	if err := s.AuthorizeRead(ctx, pattern); err != nil {
		return nil, err
	}
	return s.enter(ctx)
}

// grants returns the grants of ctx's identity.
func (s *Service) grants(ctx context.Context) (access.Grants, error) {
	id, ok := access.FromContext(ctx)
	if !ok {
		if s.cfg.RequireIdentity {
			return access.Grants{}, errNoIdentity()
		}
		return access.AllowAll(), nil
	}
	return id.Grants, nil
}

// AuthorizeRead checks that ctx's caller may read every path pattern can
// match (for queries and subscriptions, GET /v1/events and WebSockets).
func (s *Service) AuthorizeRead(ctx context.Context, pattern string) error {
	if err := s.admit(ctx, 0); err != nil {
		return err
	}
	g, err := s.grants(ctx)
	if err != nil {
		return err
	}
	if paths.ValidatePattern(pattern) == nil && !g.CanSubscribe(pattern) {
		return herald.Errorf(herald.EForbidden, "not allowed to read %s", herald.Clip(pattern))
	}
	return nil
}

// authorizeWrite checks that ctx's caller may store a message under every
// one of its paths.
func (s *Service) authorizeWrite(ctx context.Context, m *Message) error {
	g, err := s.grants(ctx)
	if err != nil {
		return err
	}
	for _, p := range m.Paths {
		if !g.CanPublish(p) {
			return herald.Errorf(herald.EForbidden, "not allowed to write %s", herald.Clip(p))
		}
	}
	return nil
}

// readable reports whether ctx's caller may read m (one of its paths).
func (s *Service) readable(ctx context.Context, m *Message) (bool, error) {
	g, err := s.grants(ctx)
	if err != nil {
		return false, err
	}
	for _, p := range m.Paths {
		if g.CanSubscribe(p) {
			return true, nil
		}
	}
	return false, nil
}
