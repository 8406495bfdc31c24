package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/heraldmq/herald/load/snsload"
)

// snsQueuesScenario publishes to one topic fanned out to Subscribers SQS
// queues (raw delivery); consumers receive from the queues. Each
// (message, queue) pair counts as one message.
type snsQueuesScenario struct {
	subs   int
	sns    *snsload.Client
	topic  string
	queues []*sqsQueue
}

func (s *snsQueuesScenario) uses() uses                              { return uses{sqs: true} }
func (s *snsQueuesScenario) subscribers() int                        { return s.subs }
func (s *snsQueuesScenario) heraldArgs(*world) []string              { return nil }
func (s *snsQueuesScenario) afterStop(context.Context, *scenarioRun) {}

func (s *snsQueuesScenario) setup(ctx context.Context, r *scenarioRun) error {
	s.sns = snsload.NewClient(r.url, r.cfg.Producers+4, 15*time.Second, "", "", "")
	topic, err := s.sns.CreateTopic(ctx, r.prefix())
	if err != nil {
		return err
	}
	s.topic = topic
	for i := range s.subs {
		q := &sqsQueue{}
		if err := q.create(ctx, r, fmt.Sprintf("%s-%d", r.prefix(), i), false); err != nil {
			return err
		}
		s.queues = append(s.queues, q)
		arn, err := q.c.queueARN(ctx, q.url)
		if err != nil {
			return err
		}
		if _, err := s.sns.Subscribe(ctx, topic, "sqs", arn, true); err != nil {
			return err
		}
	}
	return nil
}

func (s *snsQueuesScenario) produce(ctx context.Context, r *scenarioRun, worker, n int) error {
	return publish(ctx, r, s.sns, s.topic, n)
}

// publish publishes n messages to topic, one Publish each.
func publish(ctx context.Context, r *scenarioRun, c *snsload.Client, topic string, n int) error {
	for range n {
		id, body := r.newMessage("")
		started := time.Now()
		if _, err := c.Publish(ctx, topic, body); err != nil {
			return err
		}
		r.tally.ack(id, started)
	}
	return nil
}

func (s *snsQueuesScenario) consume(ctx context.Context, r *scenarioRun, worker int, stop <-chan struct{}) {
	sub := worker % len(s.queues)
	s.queues[sub].consume(ctx, r, sub, stop, nil)
}

func (s *snsQueuesScenario) finish(*scenarioRun) {}

func (s *snsQueuesScenario) teardown(ctx context.Context, r *scenarioRun) {
	if s.sns != nil && s.topic != "" {
		s.sns.DeleteTopic(ctx, s.topic)
		s.sns.Close()
	}
	for _, q := range s.queues {
		q.remove(ctx)
	}
}
