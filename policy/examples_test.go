package policy

import "testing"

// The policies below follow the shapes of the examples AWS documents for
// SQS queue policies and SNS topic policies, and of the statements that
// SQS AddPermission and SNS CreateTopic generate.

const (
	queueARN  = "arn:aws:sqs:us-east-2:444455556666:queue1"
	topicARN  = "arn:aws:sns:us-east-2:444455556666:MyTopic"
	owner     = "444455556666"
	other     = "111122223333"
	stranger  = "999999999999"
	snsSvc    = "sns.amazonaws.com"
	sendMsg   = "sqs:SendMessage"
	recvMsg   = "sqs:ReceiveMessage"
	snsPublis = "sns:Publish"
)

// send is a SendMessage to queue1 by account.
func send(account string) Request {
	return Request{Account: account, Action: sendMsg, Resource: queueARN}
}

// fromTopic is SNS delivering to queue1 on behalf of the topic arn of account.
func fromTopic(arn, account string) Request {
	return Request{Service: snsSvc, Action: sendMsg, Resource: queueARN,
		Context: map[string]string{"aws:SourceArn": arn, "aws:SourceAccount": account}}
}

// awsExamples are the documented shapes, with requests and the effects
// they must get. The fuzz tests start from their documents.
var awsExamples = []struct {
	name   string
	doc    string
	checks []check
}{
	{
		name: "another account may send",
		doc: `{
			  "Version": "2012-10-17",
			  "Id": "Queue1_Policy_UUID",
			  "Statement": [{
			    "Sid": "Queue1_SendMessage",
			    "Effect": "Allow",
			    "Principal": {"AWS": ["111122223333"]},
			    "Action": "sqs:SendMessage",
			    "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1"
			  }]
			}`,
		checks: []check{
			{"granted account sends", send(other), Allow},
			{"action case ignored", Request{Account: other, Action: "SQS:sendmessage", Resource: queueARN}, Allow},
			{"other action", Request{Account: other, Action: recvMsg, Resource: queueARN}, NotApplicable},
			{"other account", send(stranger), NotApplicable},
			{"other queue", Request{Account: other, Action: sendMsg, Resource: queueARN + "x"}, NotApplicable},
			{"resource case kept", Request{Account: other, Action: sendMsg, Resource: "arn:aws:sqs:us-east-2:444455556666:Queue1"}, NotApplicable},
			{"anonymous", send(""), NotApplicable},
			{"service", Request{Service: snsSvc, Action: sendMsg, Resource: queueARN}, NotApplicable},
		},
	},
	{
		name: "two accounts get every action",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [{
			    "Sid": "Queue1_AllActions",
			    "Effect": "Allow",
			    "Principal": {"AWS": ["arn:aws:iam::111122223333:root", "arn:aws:iam::777788889999:role/Worker"]},
			    "Action": "sqs:*",
			    "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1"
			  }]
			}`,
		checks: []check{
			{"root ARN names account", send(other), Allow},
			{"role ARN names account", Request{Account: "777788889999", Action: "sqs:DeleteMessage", Resource: queueARN}, Allow},
			{"sns action", Request{Account: other, Action: snsPublis, Resource: queueARN}, NotApplicable},
			{"stranger", send(stranger), NotApplicable},
		},
	},
	{
		name: "everyone may receive, with wildcards in action and resource",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": {
			    "Effect": "Allow",
			    "Principal": "*",
			    "Action": ["sqs:Receive*", "sqs:GetQueue?ttributes"],
			    "Resource": "arn:aws:sqs:*:444455556666:queue?"
			  }
			}`,
		checks: []check{
			{"anonymous receives", Request{Action: recvMsg, Resource: queueARN}, Allow},
			{"account receives", Request{Account: stranger, Action: recvMsg, Resource: queueARN}, Allow},
			{"service receives", Request{Service: snsSvc, Action: recvMsg, Resource: queueARN}, Allow},
			{"question mark", Request{Action: "sqs:GetQueueAttributes", Resource: queueARN}, Allow},
			{"send not granted", send(stranger), NotApplicable},
			{"other region", Request{Action: recvMsg, Resource: "arn:aws:sqs:eu-west-1:444455556666:queue2"}, Allow},
			{"? needs one character", Request{Action: recvMsg, Resource: "arn:aws:sqs:eu-west-1:444455556666:queue"}, NotApplicable},
		},
	},
	{
		name: "SNS topic may send to queue (ArnEquals on aws:SourceArn)",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [{
			    "Sid": "topic-subscription",
			    "Effect": "Allow",
			    "Principal": {"Service": "sns.amazonaws.com"},
			    "Action": "sqs:SendMessage",
			    "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1",
			    "Condition": {"ArnEquals": {"aws:SourceArn": "arn:aws:sns:us-east-2:444455556666:MyTopic"}}
			  }]
			}`,
		checks: []check{
			{"the topic", fromTopic(topicARN, owner), Allow},
			{"service name case", Request{Service: "SNS.amazonaws.com", Action: sendMsg, Resource: queueARN,
				Context: map[string]string{"AWS:SOURCEARN": topicARN}}, Allow},
			{"another topic", fromTopic(topicARN+"2", owner), NotApplicable},
			{"no source", Request{Service: snsSvc, Action: sendMsg, Resource: queueARN}, NotApplicable},
			{"an account, not the service", Request{Account: owner, Action: sendMsg, Resource: queueARN,
				Context: map[string]string{"aws:SourceArn": topicARN}}, NotApplicable},
			{"another service", Request{Service: "events.amazonaws.com", Action: sendMsg, Resource: queueARN,
				Context: map[string]string{"aws:SourceArn": topicARN}}, NotApplicable},
		},
	},
	{
		name: "everyone, limited to topics of one account (ArnLike)",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [{
			    "Effect": "Allow",
			    "Principal": {"AWS": "*"},
			    "Action": "sqs:SendMessage",
			    "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1",
			    "Condition": {"ArnLike": {"aws:SourceArn": "arn:aws:sns:*:444455556666:*"}}
			  }]
			}`,
		checks: []check{
			{"a topic of the account", fromTopic(topicARN, owner), Allow},
			{"in another region", fromTopic("arn:aws:sns:eu-west-1:444455556666:T", owner), Allow},
			{"a topic of another account", fromTopic("arn:aws:sns:us-east-2:111122223333:MyTopic", other), NotApplicable},
			{"* stays within one ARN part", fromTopic("arn:aws:sns:us-east-2:1:444455556666:MyTopic", other), NotApplicable},
			{"not an ARN", fromTopic("arn:aws:sns", owner), NotApplicable},
			{"no source", send(stranger), NotApplicable},
		},
	},
	{
		name: "deny unless aws:SourceAccount",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [
			    {
			      "Sid": "AllowSNS",
			      "Effect": "Allow",
			      "Principal": {"Service": ["sns.amazonaws.com"]},
			      "Action": "sqs:SendMessage",
			      "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1"
			    },
			    {
			      "Sid": "OnlyFromMyAccount",
			      "Effect": "Deny",
			      "Principal": "*",
			      "Action": "sqs:SendMessage",
			      "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1",
			      "Condition": {"StringNotEquals": {"aws:SourceAccount": 444455556666}}
			    }
			  ]
			}`,
		checks: []check{
			{"from the account", fromTopic(topicARN, owner), Allow},
			{"from another account", fromTopic("arn:aws:sns:us-east-2:111122223333:T", other), Deny},
			{"no source account: negated operator holds", Request{Service: snsSvc, Action: sendMsg, Resource: queueARN}, Deny},
			{"other action", Request{Service: snsSvc, Action: recvMsg, Resource: queueARN}, NotApplicable},
		},
	},
	{
		name: "SNS default topic policy",
		doc: `{
			  "Version": "2008-10-17",
			  "Id": "__default_policy_ID",
			  "Statement": [{
			    "Sid": "__default_statement_ID",
			    "Effect": "Allow",
			    "Principal": {"AWS": "*"},
			    "Action": ["SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission",
			               "SNS:RemovePermission", "SNS:DeleteTopic", "SNS:Subscribe",
			               "SNS:ListSubscriptionsByTopic", "SNS:Publish"],
			    "Resource": "arn:aws:sns:us-east-2:444455556666:MyTopic",
			    "Condition": {"StringEquals": {"AWS:SourceOwner": "444455556666"}}
			  }]
			}`,
		checks: []check{
			{"owner publishes", Request{Account: owner, Action: snsPublis, Resource: topicARN,
				Context: map[string]string{"aws:SourceOwner": owner}}, Allow},
			{"any caller while the owner is the source owner", Request{Account: other, Action: "sns:subscribe", Resource: topicARN,
				Context: map[string]string{"aws:sourceowner": owner}}, Allow},
			{"other source owner", Request{Account: other, Action: snsPublis, Resource: topicARN,
				Context: map[string]string{"aws:SourceOwner": other}}, NotApplicable},
			{"no source owner", Request{Account: owner, Action: snsPublis, Resource: topicARN}, NotApplicable},
			{"action not listed", Request{Account: owner, Action: "sns:CreateTopic", Resource: topicARN,
				Context: map[string]string{"aws:SourceOwner": owner}}, NotApplicable},
		},
	},
	{
		name: "SNS topic allows S3 notifications",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [{
			    "Sid": "s3-events",
			    "Effect": "Allow",
			    "Principal": {"Service": "s3.amazonaws.com"},
			    "Action": "SNS:Publish",
			    "Resource": "arn:aws:sns:us-east-2:444455556666:MyTopic",
			    "Condition": {
			      "ArnLike": {"aws:SourceArn": "arn:aws:s3:*:*:amzn-s3-demo-bucket"},
			      "StringEquals": {"aws:SourceAccount": "444455556666"}
			    }
			  }]
			}`,
		checks: []check{
			{"the bucket", Request{Service: "s3.amazonaws.com", Action: snsPublis, Resource: topicARN,
				Context: map[string]string{"aws:SourceArn": "arn:aws:s3:::amzn-s3-demo-bucket", "aws:SourceAccount": owner}}, Allow},
			{"both operators must hold", Request{Service: "s3.amazonaws.com", Action: snsPublis, Resource: topicARN,
				Context: map[string]string{"aws:SourceArn": "arn:aws:s3:::amzn-s3-demo-bucket", "aws:SourceAccount": other}}, NotApplicable},
			{"another bucket", Request{Service: "s3.amazonaws.com", Action: snsPublis, Resource: topicARN,
				Context: map[string]string{"aws:SourceArn": "arn:aws:s3:::other-bucket", "aws:SourceAccount": owner}}, NotApplicable},
		},
	},
	{
		name: "SQS AddPermission statements",
		doc: `{"Version":"2008-10-17","Id":"arn:aws:sqs:us-east-2:444455556666:queue1/SQSDefaultPolicy","Statement":[` +
			`{"Sid":"send-from-partner","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"SQS:SendMessage","Resource":"arn:aws:sqs:us-east-2:444455556666:queue1"},` +
			`{"Sid":"workers","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::777788889999:root","arn:aws:iam::alice-dev:root"]},"Action":["SQS:ReceiveMessage","SQS:DeleteMessage"],"Resource":"arn:aws:sqs:us-east-2:444455556666:queue1"}]}`,
		checks: []check{
			{"partner sends", send(other), Allow},
			{"partner may not receive", Request{Account: other, Action: recvMsg, Resource: queueARN}, NotApplicable},
			{"worker receives", Request{Account: "777788889999", Action: recvMsg, Resource: queueARN}, Allow},
			{"Herald account name", Request{Account: "alice-dev", Action: "sqs:DeleteMessage", Resource: queueARN}, Allow},
			{"account names keep their case", Request{Account: "Alice-dev", Action: "sqs:DeleteMessage", Resource: queueARN}, NotApplicable},
			{"worker may not send", send("777788889999"), NotApplicable},
		},
	},
	{
		name: "explicit deny beats allow",
		doc: `{
			  "Statement": [
			    {"Effect": "Allow", "Principal": "*", "Action": "sqs:*"},
			    {"Effect": "Deny", "Principal": {"AWS": "111122223333"}, "Action": ["sqs:DeleteMessage", "sqs:PurgeQueue"],
			     "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1"},
			    {"Effect": "Allow", "Principal": {"AWS": "111122223333"}, "Action": "sqs:PurgeQueue"}
			  ]
			}`,
		checks: []check{
			{"allowed action", send(other), Allow},
			{"denied despite two allows", Request{Account: other, Action: "sqs:PurgeQueue", Resource: queueARN}, Deny},
			{"deny is for one account", Request{Account: stranger, Action: "sqs:PurgeQueue", Resource: queueARN}, Allow},
			{"deny is for one queue", Request{Account: other, Action: "sqs:PurgeQueue", Resource: queueARN + "-b"}, Allow},
		},
	},
	{
		name: "NotAction",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [{
			    "Effect": "Allow",
			    "Principal": {"AWS": "111122223333"},
			    "NotAction": ["sqs:DeleteMessage", "sqs:Purge*"],
			    "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1"
			  }]
			}`,
		checks: []check{
			{"action not excluded", send(other), Allow},
			{"excluded action", Request{Account: other, Action: "sqs:deletemessage", Resource: queueARN}, NotApplicable},
			{"excluded by wildcard", Request{Account: other, Action: "sqs:PurgeQueue", Resource: queueARN}, NotApplicable},
			{"other service's action is not excluded", Request{Account: other, Action: snsPublis, Resource: queueARN}, Allow},
		},
	},
	{
		name: "NotPrincipal",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [
			    {"Sid": "OwnerOnlyReceives", "Effect": "Deny",
			     "NotPrincipal": {"AWS": ["arn:aws:iam::444455556666:root"], "Service": "sns.amazonaws.com"},
			     "Action": "sqs:ReceiveMessage", "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1"},
			    {"Effect": "Allow", "Principal": "*", "Action": "sqs:*", "Resource": "arn:aws:sqs:us-east-2:444455556666:queue1"}
			  ]
			}`,
		checks: []check{
			{"owner receives", Request{Account: owner, Action: recvMsg, Resource: queueARN}, Allow},
			{"listed service receives", Request{Service: snsSvc, Action: recvMsg, Resource: queueARN}, Allow},
			{"another account is denied", Request{Account: other, Action: recvMsg, Resource: queueARN}, Deny},
			{"anonymous is denied", Request{Action: recvMsg, Resource: queueARN}, Deny},
			{"another service is denied", Request{Service: "events.amazonaws.com", Action: recvMsg, Resource: queueARN}, Deny},
			{"others may send", send(other), Allow},
		},
	},
	{
		name: "NotResource",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [{
			    "Effect": "Allow",
			    "Principal": {"AWS": "111122223333"},
			    "Action": "sqs:SendMessage",
			    "NotResource": ["arn:aws:sqs:*:444455556666:secret-*", "arn:aws:sqs:*:444455556666:*.fifo"]
			  }]
			}`,
		checks: []check{
			{"ordinary queue", send(other), Allow},
			{"excluded queue", Request{Account: other, Action: sendMsg, Resource: "arn:aws:sqs:us-east-2:444455556666:secret-1"}, NotApplicable},
			{"excluded FIFO queue", Request{Account: other, Action: sendMsg, Resource: "arn:aws:sqs:us-east-2:444455556666:q.fifo"}, NotApplicable},
		},
	},
	{
		name: "IfExists",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [{
			    "Effect": "Allow",
			    "Principal": "*",
			    "Action": "sqs:SendMessage",
			    "Condition": {"ArnEqualsIfExists": {"aws:SourceArn": "arn:aws:sns:us-east-2:444455556666:MyTopic"}}
			  }]
			}`,
		checks: []check{
			{"no source: holds", send(stranger), Allow},
			{"the topic", fromTopic(topicARN, owner), Allow},
			{"another topic", fromTopic(topicARN+"-x", owner), NotApplicable},
		},
	},
	{
		name: "Null: deny requests without a source",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [
			    {"Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage"},
			    {"Effect": "Deny", "Principal": "*", "Action": "sqs:SendMessage",
			     "Condition": {"Null": {"aws:SourceArn": "true"}}}
			  ]
			}`,
		checks: []check{
			{"with a source", fromTopic(topicARN, owner), Allow},
			{"an empty source is present", Request{Service: snsSvc, Action: sendMsg, Resource: queueARN,
				Context: map[string]string{"aws:SourceArn": ""}}, Allow},
			{"without", send(other), Deny},
		},
	},
	{
		name: "deny plain HTTP (Bool aws:SecureTransport)",
		doc: `{
			  "Version": "2012-10-17",
			  "Statement": [
			    {"Effect": "Allow", "Principal": {"AWS": "111122223333"}, "Action": "sqs:*"},
			    {"Effect": "Deny", "Principal": "*", "Action": "*",
			     "Condition": {"Bool": {"aws:SecureTransport": false}}}
			  ]
			}`,
		checks: []check{
			{"over TLS", Request{Account: other, Action: sendMsg, Resource: queueARN,
				Context: map[string]string{"aws:SecureTransport": "true"}}, Allow},
			{"plain", Request{Account: other, Action: sendMsg, Resource: queueARN,
				Context: map[string]string{"aws:SecureTransport": "false"}}, Deny},
			{"unknown: Bool fails on a missing key", Request{Account: other, Action: sendMsg, Resource: queueARN}, Allow},
		},
	},
	{
		name: "anonymous callers",
		doc: `{
			  "Statement": [
			    {"Effect": "Allow", "Principal": {"AWS": ["111122223333", "arn:aws:iam::777788889999:user/bob"]}, "Action": "sqs:SendMessage"},
			    {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sqs:GetQueueUrl"}
			  ]
			}`,
		checks: []check{
			{"named account", send(other), Allow},
			{"user ARN names account", send("777788889999"), Allow},
			{"anonymous is no named account", send(""), NotApplicable},
			{"anonymous matches AWS *", Request{Action: "sqs:GetQueueUrl", Resource: queueARN}, Allow},
		},
	},
}

func TestAWSExamples(t *testing.T) {
	for _, tt := range awsExamples {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, mustParse(t, tt.doc), tt.checks)
		})
	}
}
