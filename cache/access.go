package cache

import (
	"context"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
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
