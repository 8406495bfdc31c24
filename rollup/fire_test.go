package rollup_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/sns"
)

// flakyTopics is a Publisher that fails with fail while it is set.
type flakyTopics struct {
	mu        sync.Mutex
	fail      error
	published []string // the firing IDs taken
}

func (p *flakyTopics) Publish(_ context.Context, _ sns.Caller, in sns.PublishInput) (sns.PublishOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return sns.PublishOutput{}, p.fail
	}
	p.published = append(p.published, in.MessageAttributes["firing_id"].StringValue)
	return sns.PublishOutput{MessageID: "m"}, nil
}

func (p *flakyTopics) setFail(err error) {
	p.mu.Lock()
	p.fail = err
	p.mu.Unlock()
}

// TestLastFiringRecordsThePublish: a trigger's last firing says the
// notification is not published while the topic refuses it, with SNS's
// error, then published, when, once the topic takes it.
func TestLastFiringRecordsThePublish(t *testing.T) {
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	topics := &flakyTopics{fail: sns.ErrNotFound("Topic")}
	svc := rollup.NewService(rollup.Config{Store: db.Rollups(), DefaultAccount: account, Topics: topics})
	ctx := context.Background()
	put(t, svc, ctx, "plays", `{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays"],
		"periods": [{"unit": "all"}],
		"triggers": [{"id": "ten", "metric": "plays", "scope": {"channel": "*"}, "unit": "all", "threshold": 10,
			"topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"},
		{"id": "quiet", "metric": "plays", "scope": {"channel": "*"}, "unit": "all", "threshold": 1000,
			"topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}]}`)
	body := fmt.Sprintf(`[{"id": "1", "time": %[1]q, "channel": "c", "plays": 6}, {"id": "2", "time": %[1]q, "channel": "c", "plays": 6}]`,
		time.Now().UTC().Format(time.RFC3339))
	if _, err := svc.Ingest(ctx, "plays", []byte(body)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	last := func() (*rollup.LastFiring, *rollup.LastFiring) {
		t.Helper()
		d, err := svc.Get(ctx, "plays")
		if err != nil {
			t.Fatal(err)
		}
		v, err := svc.View(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return v.Triggers[0].LastFiring, v.Triggers[1].LastFiring
	}
	ten, quiet := last()
	if ten == nil || ten.Total != 12 || ten.Scope[0] != "c" || ten.Published || ten.Error != "" || quiet != nil {
		t.Fatalf("before any publish: ten %+v, quiet %+v", ten, quiet)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { svc.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	steps := []struct {
		name  string
		fail  error
		until func(l *rollup.LastFiring) bool
	}{
		{"refused", topics.fail, func(l *rollup.LastFiring) bool {
			return !l.Published && l.Error == "NotFound: Topic does not exist" && !l.ErrorAt.Before(start.Truncate(time.Millisecond))
		}},
		{"taken", nil, func(l *rollup.LastFiring) bool {
			// The firing is recorded done, then counted: wait for both.
			return l.Published && l.Error == "" && l.ErrorAt.IsZero() && !l.PublishedAt.Before(start.Truncate(time.Millisecond)) &&
				svc.Stats.Fired.Load() > 0
		}},
	}
	for _, s := range steps {
		topics.setFail(s.fail)
		deadline := time.Now().Add(10 * time.Second)
		for {
			l, _ := last()
			if s.until(l) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: last firing %+v", s.name, l)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	l, _ := last()
	topics.mu.Lock()
	defer topics.mu.Unlock()
	if len(topics.published) != 1 || topics.published[0] != l.FiringID {
		t.Fatalf("published %v, want the last firing %s once", topics.published, l.FiringID)
	}
	if svc.Stats.FiringsFailed.Load() == 0 || svc.Stats.Fired.Load() != 1 {
		t.Fatalf("FiringsFailed %d, Fired %d", svc.Stats.FiringsFailed.Load(), svc.Stats.Fired.Load())
	}
}

// topicsRefusing is a Publisher that refuses one topic and takes the others.
type topicsRefusing struct {
	refused   string
	mu        sync.Mutex
	published map[string]int // topic ARN → publishes taken
}

func (p *topicsRefusing) Publish(_ context.Context, _ sns.Caller, in sns.PublishInput) (sns.PublishOutput, error) {
	if in.TopicARN == p.refused {
		return sns.PublishOutput{}, sns.ErrNotFound("Topic")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.published[in.TopicARN]++
	return sns.PublishOutput{MessageID: "m"}, nil
}

// TestAFailingFiringDoesNotBlockOthers: firings whose topic refuses them
// (deleted, say) stay pending and are retried, while the other firings
// pending with them are published.
func TestAFailingFiringDoesNotBlockOthers(t *testing.T) {
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const gone, alerts = "arn:aws:sns:us-east-1:000000000000:gone", "arn:aws:sns:us-east-1:000000000000:alerts"
	topics := &topicsRefusing{refused: gone, published: map[string]int{}}
	svc := rollup.NewService(rollup.Config{Store: db.Rollups(), DefaultAccount: account, Topics: topics})
	ctx := context.Background()
	// Five triggers on the refusing topic and one on the other: whatever
	// order the firings are pending in, the good one is rarely first.
	trig := func(id, arn string) string {
		return fmt.Sprintf(`{"id": %q, "metric": "plays", "scope": {"channel": "*"}, "unit": "all", "threshold": 1, "topic_arn": %q}`, id, arn)
	}
	put(t, svc, ctx, "plays", `{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays"],
		"periods": [{"unit": "all"}], "triggers": [`+trig("g1", gone)+","+trig("g2", gone)+","+trig("g3", gone)+","+
		trig("g4", gone)+","+trig("g5", gone)+","+trig("ok", alerts)+`]}`)
	body := fmt.Sprintf(`[{"id": "1", "time": %q, "channel": "c", "plays": 2}]`, time.Now().UTC().Format(time.RFC3339))
	if _, err := svc.Ingest(ctx, "plays", []byte(body)); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { svc.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for {
		topics.mu.Lock()
		n := topics.published[alerts]
		topics.mu.Unlock()
		if n == 1 && svc.Stats.FiringsFailed.Load() >= 10 { // the refused ones were tried again
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("published to the good topic %d times (want 1); failed publishes %d", n, svc.Stats.FiringsFailed.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if svc.Stats.Fired.Load() != 1 {
		t.Fatalf("Fired %d, want 1", svc.Stats.Fired.Load())
	}
}
