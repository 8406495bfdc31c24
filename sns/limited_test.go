package sns

import (
	"context"
	"errors"
	"testing"

	"github.com/heraldmq/herald/limits"
)

// countingAPI counts the publishes that reach it; other actions are not used.
type countingAPI struct {
	FullAPI
	publishes int
}

func (c *countingAPI) Publish(context.Context, Caller, PublishInput) (PublishOutput, error) {
	c.publishes++
	return PublishOutput{}, nil
}

// TestLimitedThrottlesPerAccount: over its rate an account's publish is
// refused with Throttled (429) before it reaches the service.
func TestLimitedThrottlesPerAccount(t *testing.T) {
	rules, err := limits.ParseRules([]string{"sns=1/s:1"})
	if err != nil {
		t.Fatal(err)
	}
	next := &countingAPI{}
	api := Limited(next, limits.New(rules))
	publish := func(account string) error {
		_, err := api.Publish(context.Background(), Caller{Account: account}, PublishInput{Message: "m"})
		return err
	}
	if err := publish("a"); err != nil {
		t.Fatal(err)
	}
	err = publish("a")
	var se *Error
	if !errors.As(err, &se) || se.Code != CodeThrottled || se.Status != 429 {
		t.Fatalf("second publish: %#v, want Throttled 429", err)
	}
	if err := publish("b"); err != nil {
		t.Errorf("another account: %v", err)
	}
	if next.publishes != 2 {
		t.Errorf("%d publishes reached the service, want 2", next.publishes)
	}
}

// TestLimitedTopicRuleOverridesTheAccounts: a rule naming a topic
// ("sns:NAME") limits the publishes to it, found from the topic ARN, with
// buckets of their own in place of the account's.
func TestLimitedTopicRuleOverridesTheAccounts(t *testing.T) {
	rules, err := limits.ParseRules([]string{"sns=1/s:1", "sns:alerts=4/s:4"})
	if err != nil {
		t.Fatal(err)
	}
	api := Limited(&countingAPI{}, limits.New(rules))
	published := func(arn string, n int) (ok int) {
		for range n {
			if _, err := api.Publish(context.Background(), Caller{Account: "a"}, PublishInput{TopicARN: arn, Message: "m"}); err == nil {
				ok++
			}
		}
		return ok
	}
	if got := published("arn:aws:sns:us-east-1:000000000000:alerts", 10); got != 4 {
		t.Errorf("topic alerts: %d of 10 admitted at once, want its rule's 4", got)
	}
	if got := published("arn:aws:sns:us-east-1:000000000000:news", 10); got != 1 {
		t.Errorf("topic news: %d of 10 admitted, want the account's 1", got)
	}
}
