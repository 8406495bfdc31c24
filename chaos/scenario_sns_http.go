package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald/load/snsload"
)

// snsHTTPScenario publishes to one topic with Subscribers HTTP
// subscriptions (raw delivery) to endpoints the drill serves on
// 127.0.0.1; every notification is checked and answered 200. Each
// (message, endpoint) pair counts as one message.
type snsHTTPScenario struct {
	subs      int
	sns       *snsload.Client
	topic     string
	srv       *http.Server
	confirmed []atomic.Bool
	r         *scenarioRun
}

func (s *snsHTTPScenario) uses() uses                              { return uses{sqs: true} }
func (s *snsHTTPScenario) subscribers() int                        { return s.subs }
func (s *snsHTTPScenario) heraldArgs(*world) []string              { return nil }
func (s *snsHTTPScenario) afterStop(context.Context, *scenarioRun) {}

func (s *snsHTTPScenario) setup(ctx context.Context, r *scenarioRun) error {
	s.r = r
	s.sns = snsload.NewClient(r.url, r.cfg.Producers+4, 15*time.Second, "", "", "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.confirmed = make([]atomic.Bool, s.subs)
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	topic, err := s.sns.CreateTopic(ctx, r.prefix())
	if err != nil {
		return err
	}
	s.topic = topic
	for i := range s.subs {
		endpoint := fmt.Sprintf("http://%s/s/%d", ln.Addr(), i)
		if _, err := s.sns.Subscribe(ctx, topic, "http", endpoint, true); err != nil {
			return err
		}
	}
	for i := range s.confirmed {
		for !s.confirmed[i].Load() {
			if ctx.Err() != nil {
				return errors.New("the HTTP subscriptions were not all confirmed")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// ServeHTTP is the subscribers' endpoint: /s/<index>.
func (s *snsHTTPScenario) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	arrived := time.Now()
	sub, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/s/"))
	if err != nil || sub < 0 || sub >= s.subs {
		http.NotFound(w, req)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch req.Header.Get("x-amz-sns-message-type") {
	case "SubscriptionConfirmation":
		var c struct{ Token, TopicArn string }
		if json.Unmarshal(body, &c) != nil || c.Token == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// Confirm after answering: the server may wait for this answer.
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.sns.ConfirmSubscription(ctx, c.TopicArn, c.Token); err != nil {
				s.r.fail("confirm", err)
				return
			}
			s.confirmed[sub].Store(true)
		}()
	case "Notification":
		text := string(body)
		if strings.HasPrefix(text, "{") {
			// Not raw: the JSON envelope carries the message.
			var env struct{ Message string }
			if json.Unmarshal(body, &env) == nil && env.Message != "" {
				text = env.Message
			}
		}
		s.r.received(text, sub, arrived)
	}
	w.WriteHeader(http.StatusOK)
}

func (s *snsHTTPScenario) produce(ctx context.Context, r *scenarioRun, worker, n int) error {
	return publish(ctx, r, s.sns, s.topic, n)
}

// consume has nothing to do: Herald pushes to the endpoints.
func (s *snsHTTPScenario) consume(ctx context.Context, r *scenarioRun, worker int, stop <-chan struct{}) {
	select {
	case <-stop:
	case <-ctx.Done():
	}
}

func (s *snsHTTPScenario) finish(*scenarioRun) {}

func (s *snsHTTPScenario) teardown(ctx context.Context, r *scenarioRun) {
	if s.sns != nil {
		if s.topic != "" {
			s.sns.DeleteTopic(ctx, s.topic)
		}
		s.sns.Close()
	}
	if s.srv != nil {
		s.srv.Close()
	}
}
