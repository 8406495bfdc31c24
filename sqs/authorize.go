package sqs

import (
	"context"
	"strings"

	"github.com/heraldmq/herald/policy"
)

// Authorization: every action names its queue through queueFor, which
// resolves the queue and checks the Caller against it, so that no action
// can reach a queue without the check. The rules:
//
//   - Internal accounts (IsInternalAccount: Herald's own queues, such as
//     SNS's fan-out jobs) are reached only by a Caller from InternalCaller,
//     and such a Caller reaches nothing else. No protocol edge can make one.
//   - A caller acting in the queue's own account may do everything, except
//     what an explicit Deny in the queue's policy forbids it; the policy
//     can never lock the owner out of the owner-only actions (it can
//     always read and fix the policy, or delete the queue).
//   - A caller of another account (or a service principal acting for
//     another account's resource) may do only the actions AWS allows
//     across accounts, and only when the queue's policy allows it and
//     denies nothing. Anything else is AccessDenied, whether or not the
//     queue exists, so that no account learns another's queue names.

// Actions, as policies name them (after the "sqs:" prefix).
const (
	ActCreateQueue                = "CreateQueue"
	ActGetQueueURL                = "GetQueueUrl"
	ActListQueues                 = "ListQueues"
	ActDeleteQueue                = "DeleteQueue"
	ActGetQueueAttributes         = "GetQueueAttributes"
	ActSetQueueAttributes         = "SetQueueAttributes"
	ActPurgeQueue                 = "PurgeQueue"
	ActSendMessage                = "SendMessage"
	ActReceiveMessage             = "ReceiveMessage"
	ActDeleteMessage              = "DeleteMessage"
	ActChangeMessageVisibility    = "ChangeMessageVisibility"
	ActTagQueue                   = "TagQueue"
	ActUntagQueue                 = "UntagQueue"
	ActListQueueTags              = "ListQueueTags"
	ActListDeadLetterSourceQueues = "ListDeadLetterSourceQueues"
	ActStartMessageMoveTask       = "StartMessageMoveTask"
	ActListMessageMoveTasks       = "ListMessageMoveTasks"
	ActCancelMessageMoveTask      = "CancelMessageMoveTask"
	ActAddPermission              = "AddPermission"
	ActRemovePermission           = "RemovePermission"
)

// crossAccountActions are the actions a queue's policy can grant to another
// account: the ones AddPermission accepts. The batch actions are checked as
// their single forms (sqs:SendMessage for SendMessageBatch), as on AWS.
var crossAccountActions = map[string]bool{
	ActSendMessage: true, ActReceiveMessage: true, ActDeleteMessage: true,
	ActChangeMessageVisibility: true, ActGetQueueAttributes: true, ActGetQueueURL: true,
	ActListDeadLetterSourceQueues: true, ActPurgeQueue: true, ActListQueueTags: true,
}

// InternalAccountPrefix starts the name of every internal account.
const InternalAccountPrefix = "herald-"

// IsInternalAccount reports whether account is one of Herald's own
// ("herald-sns"): no client credential may act in it.
func IsInternalAccount(account string) bool {
	return strings.HasPrefix(account, InternalAccountPrefix)
}

// InternalCaller returns the Caller Herald's own services use to act in
// their internal account (which must satisfy IsInternalAccount).
func InternalCaller(account string) Caller {
	return Caller{Account: account, SenderID: account, Scheme: "http", Host: "localhost", internal: true}
}

// Internal reports whether c was made by InternalCaller.
func (c Caller) Internal() bool { return c.internal }

// ValidClientAccount reports whether account may be given to a client
// credential: a valid account name that is not internal.
func ValidClientAccount(account string) bool {
	return validAccount(account) && !IsInternalAccount(account)
}

// ErrAccessDenied reports an action the caller may not take on the queue
// of account and name; explicit says whether a policy denied it.
func ErrAccessDenied(c Caller, action, resourceARN string, explicit bool) *Error {
	reason := "because no resource-based policy allows the sqs:" + strings.ToLower(action) + " action"
	if explicit {
		reason = "with an explicit deny in a resource-based policy"
	}
	return NewError(CodeAccessDenied, "User: %s is not authorized to perform: sqs:%s on resource: %s %s",
		callerARN(c), strings.ToLower(action), resourceARN, reason)
}

// callerARN names the caller as AWS's messages do.
func callerARN(c Caller) string {
	switch {
	case c.Service != "":
		return c.Service
	case c.Account == "":
		return "anonymous"
	}
	return "arn:aws:iam::" + c.Account + ":root"
}

// authorizeAccount checks an action that acts in the caller's own account
// (CreateQueue, ListQueues, GetQueueUrl of its own queue).
func (s *Service) authorizeAccount(c Caller, action string) error {
	if !validAccount(c.Account) || c.Service != "" || IsInternalAccount(c.Account) != c.internal {
		return ErrAccessDenied(c, action, QueueARN(s.regionName(s.region(c.Region)), c.Account, "*"), false)
	}
	return nil
}

// authorizeOperator checks an action on the whole deployment (Reindex):
// only a client of Config.OperatorAccount may take it, never a service
// principal or Herald's own accounts.
func (s *Service) authorizeOperator(c Caller, action string) error {
	if s.cfg.OperatorAccount == "" || c.Account != s.cfg.OperatorAccount || c.Service != "" || c.internal || !ValidClientAccount(c.Account) {
		return NewError(CodeAccessDenied, "User: %s is not authorized to perform: herald:%s (only callers of the operator account may)", callerARN(c), action)
	}
	return nil
}

// queueFor resolves queueURL and authorizes action on it. The queue is in
// the region the URL's host names, else in the caller's (region.go). As on
// AWS, a bare queue name in place of the URL names the caller's own queue.
func (s *Service) queueFor(ctx context.Context, c Caller, action, queueURL string) (*Queue, error) {
	if queueURL == "" {
		return nil, ErrMissingParameter("QueueUrl")
	}
	region, account, name, err := ParseQueueURL(queueURL)
	if err != nil {
		if strings.ContainsAny(queueURL, "/:") || checkQueueName(queueURL) != nil {
			return nil, err
		}
		account, name = c.Account, queueURL
	}
	if region == "" {
		region = c.Region
	}
	return s.queueOf(ctx, c, action, account, s.region(region), name)
}

// queueForARN resolves a queue ARN and authorizes action on it.
func (s *Service) queueForARN(ctx context.Context, c Caller, action, arn string) (*Queue, error) {
	region, account, name, err := ParseQueueARN(arn)
	if err != nil {
		return nil, err
	}
	return s.queueOf(ctx, c, action, account, s.region(region), name)
}

// queueOf resolves the queue of account and name in region ("" the home
// region) and authorizes action. A caller that may not act in account
// learns nothing of its queues: it is refused before the queue is looked
// up, unless the queue's own policy could admit it.
func (s *Service) queueOf(ctx context.Context, c Caller, action, account, region, name string) (*Queue, error) {
	denied := func() error { // the ARN only when refusing: every call comes here
		return ErrAccessDenied(c, action, QueueARN(s.regionName(region), account, name), false)
	}
	if c.internal || IsInternalAccount(account) {
		if !c.internal || c.Account != account {
			return nil, denied()
		}
		return s.queue(ctx, account, region, name)
	}
	own := c.Account == account
	if !own && !crossAccountActions[action] {
		return nil, denied()
	}
	q, err := s.queue(ctx, account, region, name)
	if err != nil {
		if se := AsError(err); !own && se.Code == CodeQueueDoesNotExist {
			return nil, denied()
		}
		return nil, err
	}
	if err := s.authorize(c, action, q); err != nil {
		return nil, err
	}
	return q, nil
}

// ownerOnly are the actions the owner may always take, whatever its
// queue's policy says, so that a policy can be read and repaired.
var ownerOnly = map[string]bool{
	ActGetQueueAttributes: true, ActSetQueueAttributes: true, ActDeleteQueue: true,
	ActAddPermission: true, ActRemovePermission: true,
}

// authorize checks c's action on q against q's policy.
func (s *Service) authorize(c Caller, action string, q *Queue) error {
	own := c.Account == q.Account
	if own && ownerOnly[action] && c.Service == "" {
		return nil
	}
	if q.Attributes.Policy == "" {
		if own {
			return nil
		}
		return ErrAccessDenied(c, action, s.queueARN(q), false)
	}
	p := s.policies.Get(q.Attributes.Policy)
	req := policy.Request{Account: c.Account, Action: "sqs:" + action, Resource: s.queueARN(q)}
	if c.Service != "" {
		req.Account, req.Service = "", c.Service
		req.Context = map[string]string{"aws:SourceArn": c.SourceARN, "aws:SourceAccount": c.Account}
	}
	switch p.Evaluate(req) {
	case policy.Deny:
		return ErrAccessDenied(c, action, s.queueARN(q), true)
	case policy.Allow:
		return nil
	}
	if own {
		return nil
	}
	return ErrAccessDenied(c, action, s.queueARN(q), false)
}
