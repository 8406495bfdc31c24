package sns

import (
	"context"
	"strings"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/policy"
	"github.com/heraldmq/herald/sqs"
)

// Authorization: every action on a topic or subscription goes through
// lookupTopic (or lookupSubscription), which checks the Caller against the
// topic's owner and Policy:
//
//   - the owner may do everything, except what an explicit Deny in the
//     topic's policy forbids (never the owner-only actions, so a policy
//     can always be read and repaired);
//   - another account may take the actions a topic policy can grant
//     (crossAccountActions), when the policy allows it and denies nothing;
//   - internal accounts (sqs.IsInternalAccount) own no topics and no
//     client credential acts in them.
//
// Anything else is AuthorizationError, whether the topic exists or not.

// crossAccountActions are the actions a topic policy may grant to other
// accounts (AddPermission's ActionName values).
var crossAccountActions = map[string]bool{
	"Publish": true, "Subscribe": true, "GetTopicAttributes": true, "SetTopicAttributes": true,
	"AddPermission": true, "RemovePermission": true, "DeleteTopic": true, "ListSubscriptionsByTopic": true,
	"Receive": true,
}

// ownerOnly are the actions a topic's owner may always take.
var ownerOnly = map[string]bool{
	"GetTopicAttributes": true, "SetTopicAttributes": true, "AddPermission": true,
	"RemovePermission": true, "DeleteTopic": true,
}

// errNotAuthorized is AWS's answer to an action the caller may not take.
func errNotAuthorized(c Caller, action, arn string) *Error {
	who := "anonymous"
	if c.Account != "" {
		who = rootPrincipal(c.Account)
	}
	return NewError(CodeAuthorizationError, "User: %s is not authorized to perform: SNS:%s on resource: %s", who, action, herald.Clip(arn))
}

// rootPrincipal is the IAM principal Herald knows a caller by: the root of
// its account (Herald has accounts and access keys, no IAM users or roles).
func rootPrincipal(account string) string { return "arn:aws:iam::" + account + ":root" }

// authorizeAccount checks an action in the caller's own account
// (CreateTopic, ListTopics, ListSubscriptions).
func authorizeAccount(c Caller, action string) *Error {
	if c.Account == "" || c.Internal() || sqs.IsInternalAccount(c.Account) || c.Service != "" {
		return errNotAuthorized(c, action, "arn:aws:sns:*:"+c.Account+":*")
	}
	return nil
}

// authorizeTopic checks c's action on topic t (of account; t is nil when
// it does not exist).
func (s *Service) authorizeTopic(c Caller, action, account, arn string, t *Topic) *Error {
	if c.Internal() || sqs.IsInternalAccount(account) || sqs.IsInternalAccount(c.Account) || c.Account == "" {
		return errNotAuthorized(c, action, arn)
	}
	own := c.Account == account
	if !own && (t == nil || !crossAccountActions[action]) {
		return errNotAuthorized(c, action, arn)
	}
	if t == nil || own && ownerOnly[action] {
		return nil
	}
	text := t.Attributes[AttrPolicy]
	if text == "" {
		if own {
			return nil
		}
		return errNotAuthorized(c, action, arn)
	}
	eff := s.policies.Get(text).Evaluate(policy.Request{
		Account: c.Account, Action: "sns:" + action, Resource: arn,
		Context: map[string]string{"aws:SourceOwner": c.Account, "aws:SourceAccount": c.Account},
	})
	switch {
	case eff == policy.Deny:
		return errNotAuthorized(c, action, arn)
	case eff == policy.Allow || own:
		return nil
	}
	return errNotAuthorized(c, action, arn)
}

// lookupTopic finds the topic named by arn (param names the parameter in
// errors) and authorizes c's action on it.
func (s *Service) lookupTopic(ctx context.Context, c Caller, arn, param, action string) (*Topic, *Error) {
	region, account, name, err := ParseTopicARN(arn, param)
	if err != nil {
		return nil, AsError(err)
	}
	if c.Account != account && !crossAccountActions[action] {
		return nil, errNotAuthorized(c, action, arn)
	}
	t, err := s.store.GetTopic(ctx, account, s.region(region), name)
	switch {
	case isCode(err, herald.ENotFound):
		t = nil
	case err != nil:
		return nil, AsError(err)
	}
	if e := s.authorizeTopic(c, action, account, arn, t); e != nil {
		return nil, e
	}
	if t == nil {
		return nil, NewError(CodeNotFound, "Topic does not exist")
	}
	return t, nil
}

// queueCaller is the principal SNS delivers to a queue as: the SNS service
// acting for topicARN's account, which the queue's policy must allow when
// the queue belongs to another account. It acts in the queue's region (of
// its ARN), which may be another than the topic's.
func (s *Service) queueCaller(topicARN, queueRegion string) sqs.Caller {
	_, account, _, _ := ParseTopicARN(topicARN, "TopicArn")
	return sqs.Caller{Account: account, Region: queueRegion, SenderID: account, Scheme: "http", Host: "localhost",
		Service: "sns.amazonaws.com", SourceARN: topicARN}
}

// validPolicyText checks a Policy attribute.
func validPolicyText(name, text string) *Error {
	if _, err := policy.Parse(text); err != nil {
		return ErrInvalidParameter("Attributes Reason: %s: %s", name, strings.TrimSpace(err.Error()))
	}
	return nil
}
