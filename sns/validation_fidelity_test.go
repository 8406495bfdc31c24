package sns_test

import (
	"strings"
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// These tests hold Herald to AWS's words: each error's code and message
// as AWS answers them.

func TestPublishErrorMessages(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	attr := func(dataType, value string) map[string]sns.MessageAttributeValue {
		return map[string]sns.MessageAttributeValue{"k": {DataType: dataType, StringValue: value}}
	}
	const badType = "The message attribute 'k' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."
	tests := []struct {
		name      string
		in        sns.PublishInput
		code, msg string
	}{
		{"empty subject", sns.PublishInput{Message: "m", Subject: ptr("")}, sns.CodeInvalidParameter, "Invalid parameter: Subject"},
		{"subject with a line break", sns.PublishInput{Message: "m", Subject: ptr("a\nb")}, sns.CodeInvalidParameter, "Invalid parameter: Subject"},
		{"String. type", sns.PublishInput{Message: "m", MessageAttributes: attr("String.", "v")}, sns.CodeInvalidParameterValue, badType},
		{"Number. type", sns.PublishInput{Message: "m", MessageAttributes: attr("Number.", "1")}, sns.CodeInvalidParameterValue, badType},
		{"empty type", sns.PublishInput{Message: "m", MessageAttributes: attr("", "v")}, sns.CodeInvalidParameterValue, badType},
		{"empty custom string", sns.PublishInput{Message: "m", MessageAttributes: attr("String.x", "")}, sns.CodeInvalidParameterValue,
			"The message attribute 'k' must contain non-empty message attribute value for message attribute type 'String.x'."},
		{"structure not JSON", sns.PublishInput{Message: "hello", MessageStructure: "json"}, sns.CodeInvalidParameter,
			"Invalid parameter: Message Structure - JSON message body failed to parse"},
		{"structure an array", sns.PublishInput{Message: `["default"]`, MessageStructure: "json"}, sns.CodeInvalidParameter,
			"Invalid parameter: Message Structure - JSON message body failed to parse"},
		{"structure without default", sns.PublishInput{Message: `{"sqs":"q"}`, MessageStructure: "json"}, sns.CodeInvalidParameter,
			"Invalid parameter: Message Structure - No default entry in JSON message body"},
		{"structure with a number as default", sns.PublishInput{Message: `{"default":1}`, MessageStructure: "json"}, sns.CodeInvalidParameter,
			"Invalid parameter: Message Structure - No default entry in JSON message body"},
		{"malformed topic ARN", sns.PublishInput{TopicARN: "orders", Message: "m"}, sns.CodeInvalidParameter,
			"Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"},

		{"custom types", sns.PublishInput{Message: "m", MessageAttributes: map[string]sns.MessageAttributeValue{
			"s": {DataType: "String.x", StringValue: "v"}, "n": {DataType: "Number.float", StringValue: "1.5"},
			"b": {DataType: "Binary.png", BinaryValue: []byte{1}}, "a": {DataType: "String.Array", StringValue: `["v"]`}}}, "", ""},
		{"structure ignores members that are not strings", sns.PublishInput{Message: `{"default":"d","sqs":{"x":1},"http":2}`, MessageStructure: "json"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.in.TopicARN == "" {
				tc.in.TopicARN = topic
			}
			_, err := e.svc.Publish(e.ctx, caller, tc.in)
			if tc.code == "" {
				wantCode(t, err, "")
				return
			}
			wantError(t, err, tc.code, tc.msg)
		})
	}
}

// TestPublishBatchFailsAsAWSDoes: what breaks one entry's attributes,
// structure or FIFO requirements fails the request; what breaks only its
// message fails the entry.
func TestPublishBatchFailsAsAWSDoes(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	fifo := e.createTopic(t, "f.fifo", map[string]string{"FifoTopic": "true"})
	ok := sns.PublishBatchEntry{ID: "ok", Message: "fine", MessageGroupID: "g", MessageDeduplicationID: "d"}
	many := make([]sns.PublishBatchEntry, 11)
	for i := range many {
		many[i] = sns.PublishBatchEntry{ID: string(rune('a' + i)), Message: "m"}
	}
	tests := []struct {
		name      string
		topic     string
		entries   []sns.PublishBatchEntry
		code, msg string
	}{
		{"empty", topic, nil, sns.CodeEmptyBatchRequest, "The batch request doesn't contain any entries."},
		{"eleven entries", topic, many, sns.CodeTooManyEntriesInBatchRequest, "The batch request contains more entries than permissible."},
		{"same ids", topic, []sns.PublishBatchEntry{{ID: "x", Message: "1"}, {ID: "x", Message: "2"}}, sns.CodeBatchEntryIdsNotDistinct,
			"Two or more batch entries in the request have the same Id."},
		{"bad id", topic, []sns.PublishBatchEntry{{ID: "a b", Message: "1"}}, sns.CodeInvalidBatchEntryID,
			"The Id of a batch entry in a batch request doesn't abide by the specification."},
		{"too long together", topic, []sns.PublishBatchEntry{{ID: "a", Message: strings.Repeat("x", 200000)}, {ID: "b", Message: strings.Repeat("x", 100000)}},
			sns.CodeBatchRequestTooLong, "The length of all the messages put together is more than the limit."},
		{"one bad attribute", topic, []sns.PublishBatchEntry{ok, {ID: "bad", Message: "m",
			MessageAttributes: map[string]sns.MessageAttributeValue{"k": {DataType: "Date", StringValue: "v"}}}}, sns.CodeInvalidParameterValue,
			"The message attribute 'k' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."},
		{"one bad structure", topic, []sns.PublishBatchEntry{ok, {ID: "bad", Message: `{"sqs":"q"}`, MessageStructure: "json"}}, sns.CodeInvalidParameter,
			"Invalid parameter: Message Structure - No default entry in JSON message body"},
		{"fifo entry without group", fifo, []sns.PublishBatchEntry{ok, {ID: "bad", Message: "m", MessageDeduplicationID: "d2"}}, sns.CodeInvalidParameter,
			"Invalid parameter: The MessageGroupId parameter is required for FIFO topics"},
		{"fifo entry without deduplication id", fifo, []sns.PublishBatchEntry{ok, {ID: "bad", Message: "m", MessageGroupID: "g"}}, sns.CodeInvalidParameter,
			"Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.svc.PublishBatch(e.ctx, caller, sns.PublishBatchInput{TopicARN: tc.topic, Entries: tc.entries})
			wantError(t, err, tc.code, tc.msg)
			if len(out.Successful)+len(out.Failed) != 0 {
				t.Fatalf("a failed request published %+v", out)
			}
		})
	}
	t.Run("an empty message fails its entry", func(t *testing.T) {
		out, err := e.svc.PublishBatch(e.ctx, caller, sns.PublishBatchInput{TopicARN: topic, Entries: []sns.PublishBatchEntry{
			{ID: "a", Message: "one"}, {ID: "b", Message: ""}, {ID: "c", Message: "three", Subject: ptr("")}}})
		wantCode(t, err, "")
		if len(out.Successful) != 1 || out.Successful[0].ID != "a" || len(out.Failed) != 2 ||
			out.Failed[0] != (sns.BatchResultErrorEntry{ID: "b", Code: sns.CodeInvalidParameter, Message: "Invalid parameter: Empty message", SenderFault: true}) ||
			out.Failed[1] != (sns.BatchResultErrorEntry{ID: "c", Code: sns.CodeInvalidParameter, Message: "Invalid parameter: Subject", SenderFault: true}) {
			t.Fatalf("out = %+v", out)
		}
	})
}

func TestSubscribeErrorMessages(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	fifo := e.createTopic(t, "f.fifo", map[string]string{"FifoTopic": "true"})
	fifoQueue := sqs.QueueARN("us-east-1", account, "q.fifo")
	subscribe := func(topic, endpoint string, attrs map[string]string) error {
		_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: endpoint, Attributes: attrs})
		return err
	}
	wantError(t, subscribe(topic, fifoQueue, nil), sns.CodeInvalidParameter,
		"Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics")
	wantCode(t, subscribe(fifo, fifoQueue, nil), "")
	queue := sqs.QueueARN("us-east-1", account, "q")
	wantError(t, subscribe(topic, queue, map[string]string{"Colour": "red"}), sns.CodeInvalidParameter,
		"Invalid parameter: Attributes Reason: AttributeName")
	wantError(t, subscribe(topic, queue, map[string]string{"RedrivePolicy": "{"}), sns.CodeInvalidParameter,
		"Invalid parameter: Attributes Reason: RedrivePolicy: failed to parse JSON.")
	wantError(t, subscribe("arn:aws:sns:us-east-1:t", queue, nil), sns.CodeInvalidParameter,
		"Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 5")
}

// TestSetSubscriptionAttributesErrorMessages: unlike Subscribe's, these
// name the attribute without "Attributes Reason: ".
func TestSetSubscriptionAttributesErrorMessages(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	sub := e.subscribe(t, topic, "sqs", e.createQueue(t, "q", nil), nil)
	tests := []struct{ name, value, msg string }{
		{"RawMessageDelivery", "yes", "Invalid parameter: RawMessageDelivery: Invalid value [yes]. Must be true or false."},
		{"FilterPolicyScope", "Body", "Invalid parameter: FilterPolicyScope: Invalid value [Body]. Please use either MessageBody or MessageAttributes"},
		{"RedrivePolicy", `{"deadLetterTargetArn":"nope"}`, "Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn"},
		{"Colour", "red", "Invalid parameter: AttributeName"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := e.svc.SetSubscriptionAttributes(e.ctx, caller, sns.SetSubscriptionAttributesInput{SubscriptionARN: sub, AttributeName: tc.name, AttributeValue: tc.value})
			wantError(t, err, sns.CodeInvalidParameter, tc.msg)
		})
	}
	err := e.svc.SetSubscriptionAttributes(e.ctx, caller, sns.SetSubscriptionAttributesInput{SubscriptionARN: "pending confirmation", AttributeName: "RawMessageDelivery", AttributeValue: "true"})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1")
}

func TestAddPermissionActionNames(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	tests := []struct {
		actions []string
		ok      bool
	}{
		{[]string{"Publish", "Subscribe", "Receive", "GetTopicAttributes", "SetTopicAttributes", "AddPermission",
			"RemovePermission", "DeleteTopic", "ListSubscriptionsByTopic"}, true},
		{[]string{"Publish", "CreateTopic"}, false},
		{[]string{"SNS:Publish"}, false},
		{[]string{"*"}, false},
		{[]string{"publish"}, false},
		{[]string{"SendMessage"}, false},
	}
	for i, tc := range tests {
		t.Run(strings.Join(tc.actions, ","), func(t *testing.T) {
			err := e.svc.AddPermission(e.ctx, caller, sns.AddPermissionInput{TopicARN: topic, Label: string(rune('a' + i)),
				AWSAccountIDs: []string{"111111111111"}, ActionNames: tc.actions})
			if tc.ok {
				wantCode(t, err, "")
				return
			}
			wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: Policy statement action out of service scope!")
		})
	}
}

func TestConfirmSubscriptionBadToken(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	for _, token := range []string{"", "nope", strings.Repeat("0", 64), strings.Repeat("z", 200)} {
		_, err := e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: token})
		wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: Token")
	}
}
