package sns_test

import (
	"testing"

	"github.com/heraldmq/herald/sns"
)

// TestSubscribeUnknownProtocolSaysWhatHeraldTakes: Subscribe with a
// protocol this server does not take is InvalidParameter saying Herald does
// not support it and listing the protocols it does (on this server, for
// this kind of topic). Email, email-json and sms are taken with or without
// their relays (their deliveries fail visibly without one).
func TestSubscribeUnknownProtocolSaysWhatHeraldTakes(t *testing.T) {
	e := newEnv(t)
	standard := e.createTopic(t, "protocols", nil)
	fifo := e.createTopic(t, "protocols.fifo", map[string]string{"FifoTopic": "true"})
	const all = "application, email, email-json, http, https, path, sms, sqs"
	tests := []struct {
		name, topic, protocol, endpoint, message string
	}{
		{"lambda", standard, "lambda", "arn:aws:lambda:us-east-1:000000000000:function:f",
			"Invalid parameter: Herald does not support this protocol string: lambda; it supports " + all},
		{"firehose", standard, "firehose", "arn:aws:firehose:us-east-1:000000000000:deliverystream/s",
			"Invalid parameter: Herald does not support this protocol string: firehose; it supports " + all},
		{"upper case", standard, "SQS", "arn:aws:sqs:us-east-1:000000000000:q",
			"Invalid parameter: Herald does not support this protocol string: SQS; it supports " + all},
		{"empty", standard, "", "x",
			"Invalid parameter: Herald does not support this protocol string: ; it supports " + all},
		{"sms on a FIFO topic", fifo, "sms", "+15555550100",
			"Invalid parameter: Herald does not support this protocol string on a FIFO topic: sms; it supports path, sqs"},
		{"http on a FIFO topic", fifo, "http", "http://example.com/hook",
			"Invalid parameter: Herald does not support this protocol string on a FIFO topic: http; it supports path, sqs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: tc.topic, Protocol: tc.protocol, Endpoint: tc.endpoint})
			wantError(t, err, sns.CodeInvalidParameter, tc.message)
		})
	}
}
