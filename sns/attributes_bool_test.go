package sns_test

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
)

// TestBooleanAttributesIgnoreCase: AWS reads boolean attributes whatever
// their case; Herald acts on them and answers them lower-case.
func TestBooleanAttributesIgnoreCase(t *testing.T) {
	for _, spelling := range []string{"true", "True", "TRUE", "tRuE"} {
		t.Run(spelling, func(t *testing.T) {
			e := newEnv(t)
			topic := e.createTopic(t, "t.fifo", map[string]string{"FifoTopic": spelling, "ContentBasedDeduplication": spelling})
			attrs, err := e.svc.GetTopicAttributes(e.ctx, caller, topic)
			wantCode(t, err, "")
			if attrs["FifoTopic"] != "true" || attrs["ContentBasedDeduplication"] != "true" {
				t.Fatalf("topic attributes FifoTopic %q ContentBasedDeduplication %q", attrs["FifoTopic"], attrs["ContentBasedDeduplication"])
			}
			// Content-based deduplication is on: no MessageDeduplicationId needed.
			e.publish(t, sns.PublishInput{TopicARN: topic, Message: "m", MessageGroupID: "g"})
			// Creating it again with another spelling is the same topic.
			again, err := e.svc.CreateTopic(e.ctx, caller, sns.CreateTopicInput{Name: "t.fifo",
				Attributes: map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"}})
			if err != nil || again != topic {
				t.Fatalf("CreateTopic again = %q, %v", again, err)
			}

			sub := e.subscribe(t, topic, "sqs", e.createQueue(t, "q.fifo", map[string]string{"FifoQueue": "true"}),
				map[string]string{"RawMessageDelivery": spelling})
			if got := e.subAttr(t, sub, "RawMessageDelivery"); got != "true" {
				t.Fatalf("RawMessageDelivery = %q after Subscribe with %q", got, spelling)
			}
			run(t, e.svc)
			e.publish(t, sns.PublishInput{TopicARN: topic, Message: "raw body", MessageGroupID: "g", MessageDeduplicationID: "d"})
			var bodies []string
			eventually(t, 5*time.Second, "the raw deliveries", func() bool {
				for _, m := range e.drain(t, "q.fifo") {
					bodies = append(bodies, m.Body)
				}
				return len(bodies) >= 2
			})
			// Both messages (the first was published before the
			// subscription, and is fanned out once workers run) come raw.
			if len(bodies) != 2 || bodies[0] != "m" || bodies[1] != "raw body" {
				t.Fatalf("delivered %q, want the raw messages", bodies)
			}
			wantCode(t, e.svc.SetSubscriptionAttributes(e.ctx, caller, sns.SetSubscriptionAttributesInput{
				SubscriptionARN: sub, AttributeName: "RawMessageDelivery", AttributeValue: "FALSE"}), "")
			if got := e.subAttr(t, sub, "RawMessageDelivery"); got != "false" {
				t.Fatalf("RawMessageDelivery = %q after setting FALSE", got)
			}
		})
	}
}

// TestBooleanAttributesRefuseOtherWords: only true and false, in any case.
func TestBooleanAttributesRefuseOtherWords(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	queue := e.createQueue(t, "q", nil)
	_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: queue,
		Attributes: map[string]string{"RawMessageDelivery": "yes"}})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value [yes]. Must be true or false.")
	_, err = e.svc.CreateTopic(e.ctx, caller, sns.CreateTopicInput{Name: "f.fifo", Attributes: map[string]string{"FifoTopic": "1"}})
	wantCode(t, err, sns.CodeInvalidParameter)
}

// TestAuthenticateOnUnsubscribeIgnoresCase: "True" asks for signed
// unsubscribes as "true" does.
func TestAuthenticateOnUnsubscribeIgnoresCase(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc) // the workers send the confirmation
	topic := e.createTopic(t, "hooks", nil)
	e.subscribe(t, topic, "http", "http://example.com/in", nil)
	var c sns.Confirmation
	eventually(t, 2*time.Second, "a confirmation", func() (ok bool) { c, ok = e.http.confirmation("http://example.com/in"); return })
	sub, err := e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: c.Token, AuthenticateOnUnsubscribe: "True"})
	wantCode(t, err, "")
	if got := e.subAttr(t, sub, "ConfirmationWasAuthenticated"); got != "true" {
		t.Fatalf("ConfirmationWasAuthenticated = %q", got)
	}
	wantCode(t, e.svc.Unsubscribe(e.ctx, sns.Caller{}, sub), sns.CodeAuthorizationError)
}

// subAttr is one attribute of a subscription.
func (e *env) subAttr(t *testing.T, sub, name string) string {
	t.Helper()
	attrs, err := e.svc.GetSubscriptionAttributes(e.ctx, caller, sub)
	wantCode(t, err, "")
	return attrs[name]
}
