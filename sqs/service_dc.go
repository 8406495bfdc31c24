package sqs

import (
	"context"
	"maps"
)

// DCStatus is this node's view of the data centers (dc.go).
type DCStatus struct {
	Local      string            // this node's data center
	LegacyHome string            // home of queues created before homes
	Fenced     map[string]string // fenced data center → the one that fenced it
}

// DCStatus returns the data centers as this node reads them now.
func (s *Service) DCStatus(ctx context.Context, c Caller) (DCStatus, error) {
	fenced, err := s.dcOperation(ctx, c, "DCStatus")
	if err != nil {
		return DCStatus{}, err
	}
	return DCStatus{Local: s.cfg.DC.Local, LegacyHome: s.cfg.DC.LegacyHome, Fenced: fenced}, nil
}

// FenceDC takes data center dc out of service after its loss: from now
// on (on every node within DCConfig.Refresh) the queues it served are
// served by this node's data center, whose Index rebuilds them from the
// Store. It first bumps this data center's index epoch, so that no Index
// state of an earlier fence is reused. The operator must have made sure
// that dc is down: a fenced data center that still runs would serve its
// queues too (docs/operations.md). Only callers of the operator account
// may.
func (s *Service) FenceDC(ctx context.Context, c Caller, dc string) (DCStatus, error) {
	fenced, err := s.dcOperation(ctx, c, "FenceDC")
	if err != nil {
		return DCStatus{}, err
	}
	switch {
	case dc == "" || dc == AllDCs:
		return DCStatus{}, NewError(CodeInvalidParameterValue, "FenceDC: name the data center to fence.")
	case dc == s.cfg.DC.Local:
		return DCStatus{}, NewError(CodeInvalidParameterValue, "FenceDC: %s is this node's own data center; fence it from another one.", dc)
	case fenced[s.cfg.DC.Local] != "":
		return DCStatus{}, NewError(CodeInvalidParameterValue, "FenceDC: this node's data center %s is itself fenced (by %s).", s.cfg.DC.Local, fenced[s.cfg.DC.Local])
	case fenced[dc] != "":
		return DCStatus{}, NewError(CodeInvalidParameterValue, "FenceDC: %s is already fenced (by %s).", dc, fenced[dc])
	}
	if _, err := s.bumpEpoch(ctx, s.cfg.DC.Local); err != nil {
		return DCStatus{}, err
	}
	if err := s.cfg.DC.Fences.Fence(ctx, dc, s.cfg.DC.Local); err != nil {
		return DCStatus{}, AsError(err)
	}
	s.stats.Fences.Add(1)
	s.cfg.Logger.Warn("sqs: data center fenced: its queues are served here from now on", "fenced", dc, "by", s.cfg.DC.Local, "caller", c.SenderID)
	return s.DCStatus(ctx, c)
}

// UnfenceDC gives fenced data center dc its queues back. The operator
// runs it once dc's Cassandra is back and repaired, before dc's Herald
// nodes start (docs/operations.md). dc's index epoch is bumped at once, so
// that its Index rebuilds every queue from the Store instead of using what
// it held before its loss, and again once every node has seen the
// unfence (after twice DCConfig.Refresh), so that messages that nodes
// still routing to the taker sent meanwhile are not stranded.
func (s *Service) UnfenceDC(ctx context.Context, c Caller, dc string) (DCStatus, error) {
	fenced, err := s.dcOperation(ctx, c, "UnfenceDC")
	if err != nil {
		return DCStatus{}, err
	}
	if fenced[dc] == "" {
		return DCStatus{}, NewError(CodeInvalidParameterValue, "UnfenceDC: %q is not fenced.", dc)
	}
	if _, err := s.bumpEpoch(ctx, dc); err != nil {
		return DCStatus{}, err
	}
	if err := s.cfg.DC.Fences.Unfence(ctx, dc); err != nil {
		return DCStatus{}, AsError(err)
	}
	s.stats.Unfences.Add(1)
	s.cfg.Logger.Warn("sqs: data center unfenced: its queues go back to it", "dc", dc, "caller", c.SenderID)
	if !s.sleep(ctx, 2*s.cfg.DC.Refresh+s.cfg.IndexEpochRefresh) {
		return DCStatus{}, ErrServiceUnavailable(ctx.Err())
	}
	if _, err := s.bumpEpoch(ctx, dc); err != nil {
		return DCStatus{}, err
	}
	return s.DCStatus(ctx, c)
}

// bumpEpoch bumps the index epoch of data center dc.
func (s *Service) bumpEpoch(ctx context.Context, dc string) (uint64, error) {
	src := s.cfg.IndexEpochs
	if dc != s.cfg.DC.Local && s.cfg.DC.Epochs != nil {
		src = s.cfg.DC.Epochs(dc)
	}
	if src == nil {
		return 0, NewError(CodeUnsupportedOperation, "%s.", errNoIndexEpochs.Error())
	}
	e, err := src.BumpIndexEpoch(ctx)
	if err != nil {
		return 0, AsError(err)
	}
	s.epochsOf(dc).raise(e)
	return e, nil
}

// dcOperation starts a data center operation: it authorizes c for
// action, refuses on a node of one data center, and reads the fences now.
func (s *Service) dcOperation(ctx context.Context, c Caller, action string) (map[string]string, error) {
	if err := s.authorizeOperator(c, action); err != nil {
		return nil, err
	}
	if !s.multiDC() || s.fences == nil {
		return nil, NewError(CodeUnsupportedOperation, "%s.", errDCNotConfigured.Error())
	}
	fenced, err := s.fences.refresh(ctx)
	if err != nil {
		return nil, AsError(err)
	}
	return fenced, nil
}

// FencedDCs returns the fenced data centers, each with the one serving its
// queues, as this node last read them (nil in one data center).
func (s *Service) FencedDCs() map[string]string {
	if s.fences == nil {
		return nil
	}
	s.fences.mu.Lock()
	defer s.fences.mu.Unlock()
	return maps.Clone(s.fences.fenced)
}
