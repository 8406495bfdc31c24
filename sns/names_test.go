package sns_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sns"
)

func TestParseARNs(t *testing.T) {
	id := uuid.New()
	tests := []struct {
		arn     string
		topicOK bool
		subOK   bool
	}{
		{"arn:aws:sns:us-east-1:000000000000:t", true, false},
		{"arn:aws:sns:eu-west-1:tenant-a:t.fifo", true, false},
		{"arn:aws-cn:sns:cn-north-1:1:t_1-2", true, false},
		{"arn:aws:sns:us-east-1:000000000000:t:" + id.String(), false, true},
		{"arn:aws:sqs:us-east-1:000000000000:t", false, false},
		{"arn:aws:sns:us-east-1::t", false, false},
		{"arn:aws:sns:us-east-1:1:bad/name", false, false},
		{"arn:aws:sns:us-east-1:1:t:not-a-uuid", false, false},
		{"t", false, false},
	}
	for _, tc := range tests {
		_, _, _, err := sns.ParseTopicARN(tc.arn, "TopicArn")
		if (err == nil) != tc.topicOK {
			t.Errorf("ParseTopicARN(%q) = %v", tc.arn, err)
		}
		_, acct, topic, got, err := sns.ParseSubscriptionARN(tc.arn, "SubscriptionArn")
		if (err == nil) != tc.subOK {
			t.Errorf("ParseSubscriptionARN(%q) = %v", tc.arn, err)
		}
		if err == nil && (got != id || acct != "000000000000" || topic != "t") {
			t.Errorf("ParseSubscriptionARN(%q) = %s %s %s", tc.arn, acct, topic, got)
		}
	}
	if got := sns.SubscriptionARN("us-east-1", "1", "t", id); got != "arn:aws:sns:us-east-1:1:t:"+id.String() {
		t.Fatalf("SubscriptionARN = %s", got)
	}
}

func TestValidateTopicName(t *testing.T) {
	for name, ok := range map[string]bool{
		"a": true, "A-b_9": true, "x.fifo": true, strings.Repeat("n", 256): true,
		"": false, ".fifo": false, "a.b": false, "a b": false, strings.Repeat("n", 257): false, "ü": false,
	} {
		if err := sns.ValidateTopicName(name); (err == nil) != ok {
			t.Errorf("ValidateTopicName(%q) = %v", name, err)
		}
	}
}

// TestParseARNMessages checks AWS's words for ARNs it cannot read: too few
// elements are counted, other malformed ARNs name the parameter.
func TestParseARNMessages(t *testing.T) {
	tests := []struct {
		arn, param, want string
		parse            func(arn, param string) error
	}{
		{"", "TopicArn", "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1", parseTopic},
		{"not-an-arn", "TopicArn", "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1", parseTopic},
		{"arn:aws:sns:us-east-1:t", "ResourceArn", "Invalid parameter: ResourceArn Reason: An ARN must have at least 6 elements, not 5", parseTopic},
		{"arn:aws:sns:us-east-1:1:bad/name", "TopicArn", "Invalid parameter: TopicArn", parseTopic},
		{"pending confirmation", "SubscriptionArn", "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1", parseSub},
		{"a:b:c", "SubscriptionArn", "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 3", parseSub},
		{"arn:aws:sns:us-east-1:1:t", "SubscriptionArn", "Invalid parameter: SubscriptionArn", parseSub},
	}
	for _, tc := range tests {
		t.Run(tc.arn, func(t *testing.T) {
			err := tc.parse(tc.arn, tc.param)
			var se *sns.Error
			if !errors.As(err, &se) || se.Code != sns.CodeInvalidParameter || se.Message != tc.want {
				t.Fatalf("error = %v, want InvalidParameter %q", err, tc.want)
			}
		})
	}
}

func parseTopic(arn, param string) error {
	_, _, _, err := sns.ParseTopicARN(arn, param)
	return err
}

func parseSub(arn, param string) error {
	_, _, _, _, err := sns.ParseSubscriptionARN(arn, param)
	return err
}
