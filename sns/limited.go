package sns

import (
	"context"
	"strings"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/limits"
)

// FullAPI is every SNS action: topics and subscriptions, mobile push and
// SMS. *Service implements it.
type FullAPI interface {
	API
	PushAPI
	SMSAPI
}

var _ FullAPI = (*Service)(nil)

// Limited returns next with every action first admitted by lim, for the
// caller's account through limits.DoorSNS: one request, and a publish's
// bytes (message and attributes, as SNS counts its size). An action over
// a rate is refused with Throttled (HTTP 429), which AWS's SDKs retry with
// backoff; it never reaches next. With a nil lim, next itself. Deliveries
// a publish fans out are not counted again.
func Limited(next FullAPI, lim *limits.Limiter) FullAPI {
	if lim == nil {
		return next
	}
	return &limited{next: next, lim: lim}
}

type limited struct {
	next FullAPI
	lim  *limits.Limiter
}

var _ FullAPI = (*limited)(nil)

// admit takes one request and bytes bytes of c's account, on topic
// (limits.AdmitOn: a rule "sns:NAME" of the topic named, if any).
func (l *limited) admit(c Caller, topic string, bytes int) error {
	if err := l.lim.AdmitOn(c.Account, limits.DoorSNS, topic, bytes); err != nil {
		return throttledError(err)
	}
	return nil
}

// throttledError is Throttled for a refusal of package limits.
func throttledError(err error) error {
	e := NewError(CodeThrottled, "%s", herald.ErrorMessage(err))
	e.Err = err
	return e
}

// begin admits one request of c's account as admit does, then enters it
// into the node's admission control (limits.Admission): leave must be
// called when it is done.
func (l *limited) begin(c Caller, topic string, bytes int) (leave func(), err error) {
	leave, err = l.lim.Begin(c.Account, limits.DoorSNS, topic, bytes)
	if err != nil {
		return nil, throttledError(err)
	}
	return leave, nil
}

// on returns the name of the topic an ARN names, for a rule of that
// topic ("sns:NAME"); "" while no rule names a topic.
func (l *limited) on(topicARN string) string {
	if !l.lim.Names(limits.DoorSNS) {
		return ""
	}
	return topicARN[strings.LastIndexByte(topicARN, ':')+1:]
}

// checkTopicQuota refuses with TopicLimitExceeded a CreateTopic of a new
// topic by an account that holds its quota of topics (limits.QuotaTopics)
// in the caller's region; creating a topic it holds already passes (AWS
// answers its ARN). It counts with ListTopics, pages of 100, up to the
// quota and, at the quota, on to find the name (at most 10,000 more):
// a cost that grows with the quota. Two creations at once may both pass
// at the quota's last place.
func (l *limited) checkTopicQuota(ctx context.Context, c Caller, name string) error {
	quota, ok := l.lim.Quota(c.Account, limits.QuotaTopics)
	if !ok {
		return nil
	}
	held, next := 0, ""
	for held < quota+10000 {
		out, err := l.next.ListTopics(ctx, c, next)
		if err != nil {
			return err
		}
		for _, arn := range out.TopicARNs {
			if strings.HasSuffix(arn, ":"+name) {
				return nil // it exists: CreateTopic answers its ARN
			}
		}
		held += len(out.TopicARNs)
		if next = out.NextToken; next == "" {
			break
		}
	}
	if held < quota {
		return nil
	}
	e := NewError(CodeTopicLimitExceeded, "Topic limit exceeded: the account holds its quota of %d topics in this region.", quota)
	e.Err = limits.OverQuota(c.Account, limits.QuotaTopics, quota)
	return e
}

// batchSize is the bytes of a PublishBatch's messages.
func batchSize(entries []PublishBatchEntry) int {
	n := 0
	for _, e := range entries {
		n += messageSize(e.Message, e.MessageAttributes)
	}
	return n
}

func (l *limited) CreateTopic(ctx context.Context, c Caller, in CreateTopicInput) (topicARN string, err error) {
	leave, err := l.begin(c, in.Name, 0)
	if err != nil {
		return "", err
	}
	defer leave()
	if err := l.checkTopicQuota(ctx, c, in.Name); err != nil {
		return "", err
	}
	return l.next.CreateTopic(ctx, c, in)
}

func (l *limited) DeleteTopic(ctx context.Context, c Caller, topicARN string) error {
	leave, err := l.begin(c, l.on(topicARN), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.DeleteTopic(ctx, c, topicARN)
}

func (l *limited) ListTopics(ctx context.Context, c Caller, nextToken string) (ListTopicsOutput, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return ListTopicsOutput{}, err
	}
	defer leave()
	return l.next.ListTopics(ctx, c, nextToken)
}

func (l *limited) GetTopicAttributes(ctx context.Context, c Caller, topicARN string) (map[string]string, error) {
	leave, err := l.begin(c, l.on(topicARN), 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.GetTopicAttributes(ctx, c, topicARN)
}

func (l *limited) SetTopicAttributes(ctx context.Context, c Caller, in SetTopicAttributesInput) error {
	leave, err := l.begin(c, l.on(in.TopicARN), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.SetTopicAttributes(ctx, c, in)
}

func (l *limited) Subscribe(ctx context.Context, c Caller, in SubscribeInput) (subscriptionARN string, err error) {
	leave, err := l.begin(c, l.on(in.TopicARN), 0)
	if err != nil {
		return "", err
	}
	defer leave()
	if err := l.checkSubscriptionQuota(ctx, c, in); err != nil {
		return "", err
	}
	return l.next.Subscribe(ctx, c, in)
}

// checkSubscriptionQuota refuses with SubscriptionLimitExceeded a new
// subscription to a topic that holds its quota of subscriptions
// (limits.QuotaSubscriptions, the quota of the topic's account, whoever
// subscribes); subscribing an endpoint subscribed already passes (AWS
// answers its ARN). It counts with ListSubscriptionsByTopic, pages of 100,
// up to the quota and, at the quota, on to find the endpoint (at most
// 10,000 more). Two subscriptions at once may both pass at the last place.
func (l *limited) checkSubscriptionQuota(ctx context.Context, c Caller, in SubscribeInput) error {
	// The count is the topic owner's: its listing is the owner's to see,
	// whoever subscribes.
	owner := c
	if parts := strings.Split(in.TopicARN, ":"); len(parts) == 6 && parts[4] != "" {
		owner.Account = parts[4]
	}
	quota, ok := l.lim.Quota(owner.Account, limits.QuotaSubscriptions)
	if !ok {
		return nil
	}
	held, next := 0, ""
	for held < quota+10000 {
		out, err := l.next.ListSubscriptionsByTopic(ctx, owner, in.TopicARN, next)
		if err != nil {
			return nil // no such topic: Subscribe answers that
		}
		for _, s := range out.Subscriptions {
			if s.Protocol == in.Protocol && s.Endpoint == in.Endpoint {
				return nil
			}
		}
		held += len(out.Subscriptions)
		if next = out.NextToken; next == "" {
			break
		}
	}
	if held < quota {
		return nil
	}
	e := NewError(CodeSubscriptionLimitExceeded, "Subscription limit exceeded: the topic holds its quota of %d subscriptions.", quota)
	e.Err = limits.OverQuota(owner.Account, limits.QuotaSubscriptions, quota)
	return e
}

func (l *limited) ConfirmSubscription(ctx context.Context, c Caller, in ConfirmSubscriptionInput) (subscriptionARN string, err error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return "", err
	}
	defer leave()
	return l.next.ConfirmSubscription(ctx, c, in)
}

func (l *limited) Unsubscribe(ctx context.Context, c Caller, subscriptionARN string) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.Unsubscribe(ctx, c, subscriptionARN)
}

func (l *limited) ListSubscriptions(ctx context.Context, c Caller, nextToken string) (ListSubscriptionsOutput, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return ListSubscriptionsOutput{}, err
	}
	defer leave()
	return l.next.ListSubscriptions(ctx, c, nextToken)
}

func (l *limited) ListSubscriptionsByTopic(ctx context.Context, c Caller, topicARN, nextToken string) (ListSubscriptionsOutput, error) {
	leave, err := l.begin(c, l.on(topicARN), 0)
	if err != nil {
		return ListSubscriptionsOutput{}, err
	}
	defer leave()
	return l.next.ListSubscriptionsByTopic(ctx, c, topicARN, nextToken)
}

func (l *limited) GetSubscriptionAttributes(ctx context.Context, c Caller, subscriptionARN string) (map[string]string, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.GetSubscriptionAttributes(ctx, c, subscriptionARN)
}

func (l *limited) SetSubscriptionAttributes(ctx context.Context, c Caller, in SetSubscriptionAttributesInput) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.SetSubscriptionAttributes(ctx, c, in)
}

func (l *limited) Publish(ctx context.Context, c Caller, in PublishInput) (PublishOutput, error) {
	leave, err := l.begin(c, l.on(in.TopicARN), messageSize(in.Message, in.MessageAttributes))
	if err != nil {
		return PublishOutput{}, err
	}
	defer leave()
	return l.next.Publish(ctx, c, in)
}

func (l *limited) PublishBatch(ctx context.Context, c Caller, in PublishBatchInput) (PublishBatchOutput, error) {
	leave, err := l.begin(c, l.on(in.TopicARN), batchSize(in.Entries))
	if err != nil {
		return PublishBatchOutput{}, err
	}
	defer leave()
	return l.next.PublishBatch(ctx, c, in)
}

func (l *limited) TagResource(ctx context.Context, c Caller, in TagResourceInput) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.TagResource(ctx, c, in)
}

func (l *limited) UntagResource(ctx context.Context, c Caller, in UntagResourceInput) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.UntagResource(ctx, c, in)
}

func (l *limited) ListTagsForResource(ctx context.Context, c Caller, resourceARN string) (map[string]string, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.ListTagsForResource(ctx, c, resourceARN)
}

func (l *limited) AddPermission(ctx context.Context, c Caller, in AddPermissionInput) error {
	leave, err := l.begin(c, l.on(in.TopicARN), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.AddPermission(ctx, c, in)
}

func (l *limited) RemovePermission(ctx context.Context, c Caller, in RemovePermissionInput) error {
	leave, err := l.begin(c, l.on(in.TopicARN), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.RemovePermission(ctx, c, in)
}

func (l *limited) GetDataProtectionPolicy(ctx context.Context, c Caller, resourceARN string) (string, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return "", err
	}
	defer leave()
	return l.next.GetDataProtectionPolicy(ctx, c, resourceARN)
}

func (l *limited) PutDataProtectionPolicy(ctx context.Context, c Caller, in PutDataProtectionPolicyInput) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.PutDataProtectionPolicy(ctx, c, in)
}

func (l *limited) CreatePlatformApplication(ctx context.Context, c Caller, in CreatePlatformApplicationInput) (arn string, err error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return "", err
	}
	defer leave()
	return l.next.CreatePlatformApplication(ctx, c, in)
}

func (l *limited) GetPlatformApplicationAttributes(ctx context.Context, c Caller, arn string) (map[string]string, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.GetPlatformApplicationAttributes(ctx, c, arn)
}

func (l *limited) SetPlatformApplicationAttributes(ctx context.Context, c Caller, in SetPlatformApplicationAttributesInput) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.SetPlatformApplicationAttributes(ctx, c, in)
}

func (l *limited) DeletePlatformApplication(ctx context.Context, c Caller, arn string) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.DeletePlatformApplication(ctx, c, arn)
}

func (l *limited) ListPlatformApplications(ctx context.Context, c Caller, nextToken string) (ListPlatformApplicationsOutput, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return ListPlatformApplicationsOutput{}, err
	}
	defer leave()
	return l.next.ListPlatformApplications(ctx, c, nextToken)
}

func (l *limited) CreatePlatformEndpoint(ctx context.Context, c Caller, in CreatePlatformEndpointInput) (arn string, err error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return "", err
	}
	defer leave()
	return l.next.CreatePlatformEndpoint(ctx, c, in)
}

func (l *limited) GetEndpointAttributes(ctx context.Context, c Caller, arn string) (map[string]string, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.GetEndpointAttributes(ctx, c, arn)
}

func (l *limited) SetEndpointAttributes(ctx context.Context, c Caller, in SetEndpointAttributesInput) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.SetEndpointAttributes(ctx, c, in)
}

func (l *limited) DeleteEndpoint(ctx context.Context, c Caller, arn string) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.DeleteEndpoint(ctx, c, arn)
}

func (l *limited) ListEndpointsByPlatformApplication(ctx context.Context, c Caller, in ListEndpointsByPlatformApplicationInput) (ListEndpointsByPlatformApplicationOutput, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return ListEndpointsByPlatformApplicationOutput{}, err
	}
	defer leave()
	return l.next.ListEndpointsByPlatformApplication(ctx, c, in)
}

func (l *limited) SetSMSAttributes(ctx context.Context, c Caller, attributes map[string]string) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.SetSMSAttributes(ctx, c, attributes)
}

func (l *limited) GetSMSAttributes(ctx context.Context, c Caller, names []string) (map[string]string, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.GetSMSAttributes(ctx, c, names)
}

func (l *limited) CheckIfPhoneNumberIsOptedOut(ctx context.Context, c Caller, phoneNumber string) (bool, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return false, err
	}
	defer leave()
	return l.next.CheckIfPhoneNumberIsOptedOut(ctx, c, phoneNumber)
}

func (l *limited) ListPhoneNumbersOptedOut(ctx context.Context, c Caller, nextToken string) (ListPhoneNumbersOptedOutOutput, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return ListPhoneNumbersOptedOutOutput{}, err
	}
	defer leave()
	return l.next.ListPhoneNumbersOptedOut(ctx, c, nextToken)
}

func (l *limited) OptInPhoneNumber(ctx context.Context, c Caller, phoneNumber string) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.OptInPhoneNumber(ctx, c, phoneNumber)
}

func (l *limited) CreateSMSSandboxPhoneNumber(ctx context.Context, c Caller, in CreateSMSSandboxPhoneNumberInput) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.CreateSMSSandboxPhoneNumber(ctx, c, in)
}

func (l *limited) VerifySMSSandboxPhoneNumber(ctx context.Context, c Caller, in VerifySMSSandboxPhoneNumberInput) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.VerifySMSSandboxPhoneNumber(ctx, c, in)
}

func (l *limited) DeleteSMSSandboxPhoneNumber(ctx context.Context, c Caller, phoneNumber string) error {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.DeleteSMSSandboxPhoneNumber(ctx, c, phoneNumber)
}

func (l *limited) ListSMSSandboxPhoneNumbers(ctx context.Context, c Caller, in ListSMSSandboxPhoneNumbersInput) (ListSMSSandboxPhoneNumbersOutput, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return ListSMSSandboxPhoneNumbersOutput{}, err
	}
	defer leave()
	return l.next.ListSMSSandboxPhoneNumbers(ctx, c, in)
}

func (l *limited) GetSMSSandboxAccountStatus(ctx context.Context, c Caller) (bool, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return false, err
	}
	defer leave()
	return l.next.GetSMSSandboxAccountStatus(ctx, c)
}
