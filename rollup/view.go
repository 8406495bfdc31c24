package rollup

import "context"

// View is a definition as the rollup API answers it: the definition, each
// of its triggers with its last firing.
type View struct {
	*Definition
	Triggers []TriggerView `json:"triggers,omitempty"` // in place of Definition.Triggers
}

// TriggerView is a trigger with its last firing (nil: it never fired).
type TriggerView struct {
	Trigger
	LastFiring *LastFiring `json:"last_firing,omitempty"`
}

// View returns d, a definition of the caller's (from Get, List, Put or
// PutTrigger), with the last firing of each of its triggers.
func (s *Service) View(ctx context.Context, d *Definition) (*View, error) {
	v := &View{Definition: d}
	if len(d.Triggers) == 0 {
		return v, nil
	}
	last, err := s.store.LastFirings(ctx, d)
	if err != nil {
		return nil, err
	}
	v.Triggers = make([]TriggerView, len(d.Triggers))
	for i, t := range d.Triggers {
		v.Triggers[i].Trigger = t
		if l, ok := last[t.ID]; ok {
			v.Triggers[i].LastFiring = &l
		}
	}
	return v, nil
}

// Views is View of each of defs.
func (s *Service) Views(ctx context.Context, defs []*Definition) ([]*View, error) {
	out := make([]*View, len(defs))
	for i, d := range defs {
		v, err := s.View(ctx, d)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
