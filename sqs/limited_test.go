package sqs

import (
	"context"
	"errors"
	"testing"

	"github.com/heraldmq/herald/limits"
)

// countingAPI counts the sends that reach it; other actions are not used.
type countingAPI struct {
	API
	sends int
}

func (c *countingAPI) SendMessage(context.Context, Caller, SendMessageInput) (SendMessageOutput, error) {
	c.sends++
	return SendMessageOutput{}, nil
}

// TestLimitedThrottlesPerAccount: over its rate an account's action is
// refused with RequestThrottled before it reaches the service; another
// account is not affected; a byte rate counts the message's size.
func TestLimitedThrottlesPerAccount(t *testing.T) {
	rules, err := limits.ParseRules([]string{"sqs=2/s:2", "big/sqs.bytes=100/s:100"})
	if err != nil {
		t.Fatal(err)
	}
	next := &countingAPI{}
	api := Limited(next, limits.New(rules))
	send := func(account, body string) error {
		_, err := api.SendMessage(context.Background(), Caller{Account: account}, SendMessageInput{MessageBody: body})
		return err
	}
	for i := range 2 {
		if err := send("a", "x"); err != nil {
			t.Fatalf("send %d within the burst: %v", i, err)
		}
	}
	err = send("a", "x")
	var se *Error
	if !errors.As(err, &se) || se.Code != CodeRequestThrottled || se.Status != 403 || !se.Sender || se.QueryErrorHeader() != "RequestThrottled;Sender" {
		t.Fatalf("third send: %#v, want RequestThrottled 403 Sender", err)
	}
	if next.sends != 2 {
		t.Errorf("%d sends reached the service, want 2", next.sends)
	}
	if err := send("b", "x"); err != nil {
		t.Errorf("another account: %v", err)
	}
	if err := send("big", string(make([]byte, 60))); err != nil {
		t.Fatal(err)
	}
	if err := send("big", string(make([]byte, 60))); err == nil {
		t.Error("120 bytes at once under a 100-byte burst admitted")
	}
	if got := Limited(next, nil); got != API(next) {
		t.Error("Limited with no limiter is not the service itself")
	}
}

// TestLimitedQueueRuleOverridesTheAccounts: a rule naming a queue
// ("sqs:NAME") limits the requests on that queue with buckets of their
// own, found from the queue URL, in place of the account's rule.
func TestLimitedQueueRuleOverridesTheAccounts(t *testing.T) {
	rules, err := limits.ParseRules([]string{"sqs=1/s:1", "sqs:orders=3/s:3"})
	if err != nil {
		t.Fatal(err)
	}
	next := &countingAPI{}
	api := Limited(next, limits.New(rules))
	sent := func(url string, n int) (ok int) {
		for range n {
			if _, err := api.SendMessage(context.Background(), Caller{Account: "a"}, SendMessageInput{QueueURL: url, MessageBody: "x"}); err == nil {
				ok++
			}
		}
		return ok
	}
	if got := sent("http://localhost:9324/000000000000/orders", 10); got != 3 {
		t.Errorf("queue orders: %d of 10 sends admitted at once, want its rule's 3", got)
	}
	if got := sent("http://sqs.eu-west-1.localhost/000000000000/other", 10); got != 1 {
		t.Errorf("queue other: %d of 10 admitted, want the account's 1", got)
	}
}
