package rollup

import (
	"context"
	"encoding/json"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// Publisher publishes trigger notifications; *sns.Service satisfies it.
type Publisher interface {
	Publish(ctx context.Context, c sns.Caller, in sns.PublishInput) (sns.PublishOutput, error)
}

// FiringInterval is how often Run looks for firings to publish.
const FiringInterval = 200 * time.Millisecond

// PutTrigger adds or replaces trigger t of the caller's rollup name. The
// counts so far are not re-examined: a threshold already passed fires at
// its next crossing (in a later bucket).
func (s *Service) PutTrigger(ctx context.Context, name string, t Trigger) (*Definition, error) {
	d, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	next := d.Clone()
	i := -1
	for j, x := range next.Triggers {
		if x.ID == t.ID {
			i = j
		}
	}
	if i >= 0 {
		next.Triggers[i] = t
	} else {
		next.Triggers = append(next.Triggers, t)
	}
	if err := next.Normalize(); err != nil {
		return nil, err
	}
	if err := s.store.PutDefinition(ctx, next); err != nil {
		return nil, err
	}
	return next, nil
}

// DeleteTrigger removes trigger id from the caller's rollup name.
func (s *Service) DeleteTrigger(ctx context.Context, name, id string) error {
	d, err := s.Get(ctx, name)
	if err != nil {
		return err
	}
	next := d.Clone()
	next.Triggers = next.Triggers[:0]
	for _, x := range d.Triggers {
		if x.ID != id {
			next.Triggers = append(next.Triggers, x)
		}
	}
	if len(next.Triggers) == len(d.Triggers) {
		return herald.Errorf(herald.ENotFound, "rollup %s has no trigger %s", name, herald.Clip(id))
	}
	if err := next.Normalize(); err != nil {
		return err
	}
	return s.store.PutDefinition(ctx, next)
}

// publishFirings publishes the pending firings, a batch at a time, until
// none is left or a batch had a failure: at least once each, as the
// rollup's account, with the firing's ID in the message so that receivers
// can drop a repeat. A firing whose publish fails is tried again on the
// next round, and does not hold back the others of its batch (a topic
// deleted meanwhile would otherwise block every account's triggers).
func (s *Service) publishFirings(ctx context.Context) {
	for ctx.Err() == nil {
		firings, err := s.store.PendingFirings(ctx, 100)
		if err != nil || len(firings) == 0 {
			return
		}
		failed := false
		for _, f := range firings {
			body, _ := json.Marshal(f)
			subject := "Herald rollup trigger " + f.Trigger
			_, err := s.cfg.Topics.Publish(ctx, sns.Caller{Account: f.Account}, sns.PublishInput{
				TopicARN: f.TopicARN, Subject: &subject, Message: string(body),
				MessageAttributes: map[string]sns.MessageAttributeValue{"firing_id": {DataType: "String", StringValue: f.ID}},
			})
			if err != nil {
				s.Stats.FiringsFailed.Add(1)
				s.log().Warn("rollup: cannot publish a trigger's firing; retrying", "rollup", f.Rollup, "trigger", f.Trigger, "topic", f.TopicARN, "err", err)
				if err := s.store.FiringFailed(ctx, f, s.cfg.Clock(), publishError(err)); err != nil {
					s.log().Warn("rollup: cannot record a failed publish", "rollup", f.Rollup, "trigger", f.Trigger, "err", err)
				}
				failed = true
				continue
			}
			if err := s.store.FiringDone(ctx, f, s.cfg.Clock()); err != nil {
				return
			}
			s.Stats.Fired.Add(1)
		}
		if failed {
			return // the failed ones are first in the next batch: try them next round
		}
	}
}

// publishError is what a trigger's last firing says of a failed
// publish: the error's code and message, as SNS would answer the
// rollup's account (never its internal cause).
func publishError(err error) string {
	e := sns.AsError(err)
	return herald.ClipMessage(e.Code + ": " + e.Message)
}

// runFirings publishes firings every FiringInterval until ctx ends.
func (s *Service) runFirings(ctx context.Context) {
	t := time.NewTicker(FiringInterval)
	defer t.Stop()
	for {
		s.publishFirings(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
