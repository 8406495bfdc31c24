package sns

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/paths"
	"github.com/heraldmq/herald/sqs"
)

// PendingARN is what Subscribe returns for a subscription awaiting
// confirmation (unless ReturnSubscriptionArn), and ListSubscriptions shows.
const (
	PendingConfirmation = "pending confirmation"
	PendingARN          = "PendingConfirmation"
)

// TokenLifetime is how long a confirmation token is valid, as on AWS.
const TokenLifetime = 3 * 24 * time.Hour

// checkEndpoint validates a subscription's protocol and endpoint.
func (s *Service) checkEndpoint(protocol, endpoint string, fifo bool) *Error {
	unsupported := func() *Error { return s.unsupportedProtocol(protocol, fifo) }
	switch protocol {
	case ProtocolHTTP, ProtocolHTTPS:
		if s.cfg.HTTP == nil || fifo {
			return unsupported()
		}
		u, err := url.Parse(endpoint)
		if err != nil || u.Scheme != protocol || u.Host == "" {
			return ErrInvalidParameter("Endpoint must match the specified protocol")
		}
	case ProtocolSQS:
		_, account, queue, err := sqs.ParseQueueARN(endpoint)
		if err != nil || sqs.IsInternalAccount(account) {
			// Herald's internal queues are never an endpoint (deliveries
			// to them would be refused anyway).
			return ErrInvalidParameter("SQS endpoint ARN")
		}
		if sqs.IsFIFOName(queue) && !fifo {
			return errFIFOQueueOnStandardTopic()
		}
	case ProtocolPath:
		if s.cfg.Paths == nil {
			return unsupported()
		}
		if err := paths.Validate(endpoint); err != nil {
			return ErrInvalidParameter("Endpoint: %v", err)
		}
	case ProtocolRollup:
		if s.cfg.Rollups == nil || fifo {
			return unsupported()
		}
		if _, name, ok := strings.Cut(endpoint, "/"); !ok || name == "" || strings.Contains(name, "/") {
			return ErrInvalidParameter("Endpoint: a rollup's name")
		}
	case ProtocolEmail, ProtocolEmailJSON:
		// Taken with or without a mailer (--smtp-addr), as AWS takes them:
		// without one, the confirmation and deliveries fail visibly
		// (logged, counted, dead-lettered: deliver_notify.go).
		if fifo {
			return unsupported()
		}
		if !validEmailAddress(endpoint) {
			return ErrInvalidParameter("Email address")
		}
	case ProtocolApplication:
		// Checked with the store by checkApplicationEndpoint (deliver_push.go).
	case ProtocolSMS:
		if fifo { // with or without an SMS gateway, as for email
			return unsupported()
		}
		if !ValidPhoneNumber(endpoint) {
			return NewError(CodeInvalidParameter, "Invalid SMS endpoint: %s", herald.Clip(endpoint))
		}
	default:
		return unsupported()
	}
	return nil
}

// supportedProtocols lists the protocols this service takes on a topic of
// the given kind, in order.
func (s *Service) supportedProtocols(fifo bool) []string {
	on := []struct {
		protocol string
		ok       bool
	}{
		{ProtocolApplication, !fifo},
		{ProtocolEmail, !fifo},
		{ProtocolEmailJSON, !fifo},
		{ProtocolHTTP, s.cfg.HTTP != nil && !fifo},
		{ProtocolHTTPS, s.cfg.HTTP != nil && !fifo},
		{ProtocolPath, s.cfg.Paths != nil},
		{ProtocolRollup, s.cfg.Rollups != nil && !fifo},
		{ProtocolSMS, !fifo},
		{ProtocolSQS, true},
	}
	var out []string
	for _, p := range on {
		if p.ok {
			out = append(out, p.protocol)
		}
	}
	return out
}

// unsupportedProtocol is Subscribe's InvalidParameter for a protocol this
// service does not take: it says so, and lists those it does.
func (s *Service) unsupportedProtocol(protocol string, fifo bool) *Error {
	kind := ""
	if fifo {
		kind = " on a FIFO topic"
	}
	return ErrInvalidParameter("Herald does not support this protocol string%s: %s; it supports %s",
		kind, herald.Clip(protocol), strings.Join(s.supportedProtocols(fifo), ", "))
}

// newToken returns a confirmation token for subscription id: the id in
// hex followed by 64 random bytes in hex, so that ConfirmSubscription
// finds the subscription with one read.
func newToken(id uuid.UUID) string {
	var r [64]byte
	_, _ = rand.Read(r[:])
	return hex.EncodeToString(id[:]) + hex.EncodeToString(r[:])
}

func tokenSubscription(token string) (uuid.UUID, bool) {
	if len(token) < 64 {
		return uuid.Nil, false
	}
	b, err := hex.DecodeString(token[:32])
	if err != nil {
		return uuid.Nil, false
	}
	id, err := uuid.FromBytes(b)
	return id, err == nil
}

func (s *Service) Subscribe(ctx context.Context, c Caller, in SubscribeInput) (string, error) {
	t, e := s.lookupTopic(ctx, c, in.TopicARN, "TopicArn", "Subscribe")
	if e != nil {
		return "", e
	}
	if in.Protocol == ProtocolRollup {
		// A rollup of the subscriber's own account, named in full so that
		// two accounts' rollups of one name are two subscriptions.
		account, name, ok := strings.Cut(in.Endpoint, "/")
		switch {
		case !ok:
			in.Endpoint = c.Account + "/" + in.Endpoint
		case account != c.Account || name == "":
			return "", ErrInvalidParameter("Endpoint: a rollup of your own account")
		}
	}
	if in.Protocol == ProtocolSMS {
		// "+1 (555) 555-0100" subscribes +15555550100.
		if number, ok := NormalizePhoneNumber(in.Endpoint); ok {
			in.Endpoint = number
		}
	}
	if e := s.checkEndpoint(in.Protocol, in.Endpoint, topicFIFO(t)); e != nil {
		return "", e
	}
	if in.Protocol == ProtocolApplication {
		if e := s.checkApplicationEndpoint(ctx, c, in.Endpoint, topicFIFO(t)); e != nil {
			return "", e
		}
	}
	attrs := map[string]string{}
	for k, v := range canonicalAttrs(in.Attributes) {
		if e := s.validateSubscriptionAttribute(k, v, in.Protocol, true); e != nil {
			return "", e
		}
		if v != "" {
			attrs[k] = v
		}
	}
	if e := s.checkFilterPolicy(attrs); e != nil {
		return "", e
	}
	id := subscriptionID(t.ID, in.Protocol, in.Endpoint)
	answer := func(sub *Subscription) string {
		if sub.Pending && !in.ReturnSubscriptionARN {
			return PendingConfirmation
		}
		return s.subscriptionARN(sub)
	}
	old, err := s.store.GetSubscription(ctx, t.ID, id)
	switch {
	case err == nil:
		for k, v := range attrs {
			if old.Attributes[k] != v {
				return "", ErrInvalidParameter("Attributes Reason: Subscription already exists with different attributes")
			}
		}
		if old.Pending {
			// Subscribing again to a pending subscription sends its
			// confirmation again.
			if err := s.enqueueConfirmation(ctx, t, old, c); err != nil {
				return "", AsError(err)
			}
		}
		return answer(old), nil
	case !isCode(err, herald.ENotFound):
		return "", AsError(err)
	}
	sub := &Subscription{
		ID: id, TopicID: t.ID, TopicAccount: t.Account, TopicRegion: t.Region, TopicName: t.Name, Owner: c.Account,
		Protocol: in.Protocol, Endpoint: in.Endpoint, Attributes: attrs, CreatedAt: s.now(),
	}
	switch in.Protocol {
	case ProtocolHTTP, ProtocolHTTPS, ProtocolEmail, ProtocolEmailJSON:
		sub.Pending = true
	case ProtocolSQS:
		// A queue of the topic's account, or one whose owner subscribes it
		// itself, is confirmed at once; any other queue's owner must
		// confirm (and its policy must admit the topic's messages).
		_, qAccount, _, _ := sqs.ParseQueueARN(in.Endpoint)
		sub.Pending = qAccount != t.Account && qAccount != c.Account
	}
	if sub.Pending {
		sub.Token = newToken(id)
	}
	if err := s.store.PutSubscription(ctx, sub); err != nil {
		return "", AsError(err)
	}
	if sub.Pending {
		if err := s.enqueueConfirmation(ctx, t, sub, c); err != nil {
			// The subscription stays pending; subscribing again retries.
			return "", AsError(err)
		}
	}
	return answer(sub), nil
}

// confirmJob is a SubscriptionConfirmation waiting on the delivery queue,
// so that it survives the node that took the Subscribe.
type confirmJob struct {
	TopicID      uuid.UUID    `json:"topic"`
	Subscription uuid.UUID    `json:"sub"`
	Target       Target       `json:"target"`
	Confirmation Confirmation `json:"conf"`
}

// enqueueConfirmation queues sub's SubscriptionConfirmation on the
// delivery queue; workers on any node send it, up to ConfirmAttempts
// times ConfirmDelay apart (confirm).
func (s *Service) enqueueConfirmation(ctx context.Context, t *Topic, sub *Subscription, c Caller) error {
	topicARN := s.topicARN(t)
	cj := &confirmJob{
		TopicID: t.ID, Subscription: sub.ID,
		Target: Target{
			SubscriptionARN: s.subscriptionARN(sub), TopicARN: topicARN, Protocol: sub.Protocol, Endpoint: sub.Endpoint,
			SignatureVersion: t.Attributes[AttrSignatureVersion], Scheme: c.Scheme, Host: c.Host,
			DisplayName: t.Attributes[AttrDisplayName],
		},
		Confirmation: Confirmation{
			MessageID: uuid.NewString(), TopicARN: topicARN, Token: sub.Token,
			SubscribeURL: SubscribeURL(c.Scheme, c.Host, topicARN, sub.Token),
			Message: "You have chosen to subscribe to the topic " + topicARN +
				".\nTo confirm the subscription, visit the SubscribeURL included in this message.",
			Timestamp: s.now().Truncate(time.Millisecond),
		},
	}
	return s.enqueueDelivery(ctx, &deliveryJob{Confirm: cj}, 0)
}

// confirm sends a queued confirmation, unless its subscription has been
// confirmed or removed meanwhile; a failed attempt is queued again after
// ConfirmDelay until ConfirmAttempts have been made. It reports whether
// the job is settled (sent, dropped or queued again).
func (s *Service) confirm(ctx context.Context, dj *deliveryJob) bool {
	cj := dj.Confirm
	sub, err := s.store.GetSubscription(ctx, cj.TopicID, cj.Subscription)
	switch {
	case isCode(err, herald.ENotFound):
		return true
	case err != nil:
		return false // the job comes again
	case !sub.Pending || sub.Token != cj.Confirmation.Token:
		return true
	}
	err = s.sendConfirmation(ctx, cj.Target, cj.Confirmation)
	if err == nil || ctx.Err() != nil {
		return err == nil
	}
	s.log.Warn("sns: subscription confirmation failed", "subscription", cj.Target.SubscriptionARN, "attempt", dj.Attempt+1, "err", err)
	if dj.Attempt+1 >= s.cfg.ConfirmAttempts {
		s.stats.ConfirmationsFailed.Add(1)
		s.log.Warn("sns: subscription confirmation given up; the subscription stays pending", "subscription", cj.Target.SubscriptionARN, "attempts", dj.Attempt+1)
		return true
	}
	next := *dj
	next.Attempt++
	return s.enqueueDelivery(ctx, &next, s.cfg.ConfirmDelay) == nil
}

func (s *Service) sendConfirmation(ctx context.Context, t Target, c Confirmation) error {
	if t.Protocol == ProtocolSQS {
		body, err := confirmationEnvelope(t, c)
		if err != nil {
			return err
		}
		return s.sendToQueue(ctx, t.TopicARN, t.Endpoint, body, "", "")
	}
	if t.Protocol == ProtocolEmail || t.Protocol == ProtocolEmailJSON {
		return s.sendEmailConfirmation(ctx, t, c)
	}
	return s.cfg.HTTP.SendConfirmation(ctx, t, c)
}

// nonEmpty is &s, or nil (absent) for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// sendToQueue sends body to the queue of arn as SNS acting for topicARN.
func (s *Service) sendToQueue(ctx context.Context, topicARN, arn, body, group, dedup string) error {
	region, account, name, err := sqs.ParseQueueARN(arn)
	if err != nil {
		return err
	}
	in := sqs.SendMessageInput{QueueURL: "/" + account + "/" + name, MessageBody: body}
	if sqs.IsFIFOName(name) {
		in.MessageGroupID, in.MessageDeduplicationID = nonEmpty(group), nonEmpty(dedup)
	}
	_, err = s.q.SendMessage(ctx, s.queueCaller(topicARN, region), in)
	return err
}

func (s *Service) ConfirmSubscription(ctx context.Context, c Caller, in ConfirmSubscriptionInput) (string, error) {
	region, account, name, err := ParseTopicARN(in.TopicARN, "TopicArn")
	if err != nil {
		return "", err
	}
	t, err := s.store.GetTopic(ctx, account, s.region(region), name)
	if isCode(err, herald.ENotFound) {
		return "", NewError(CodeNotFound, "Topic does not exist")
	}
	if err != nil {
		return "", AsError(err)
	}
	invalid := ErrInvalidParameter("Token")
	id, ok := tokenSubscription(in.Token)
	if !ok {
		return "", invalid
	}
	sub, err := s.store.GetSubscription(ctx, t.ID, id)
	if isCode(err, herald.ENotFound) {
		return "", invalid
	}
	if err != nil {
		return "", AsError(err)
	}
	if sub.Token == "" || subtle.ConstantTimeCompare([]byte(sub.Token), []byte(in.Token)) != 1 ||
		s.now().Sub(sub.CreatedAt) > TokenLifetime {
		return "", invalid
	}
	authenticate := strings.EqualFold(in.AuthenticateOnUnsubscribe, "true")
	if sub.Pending || (authenticate && !boolAttr(sub.Attributes, attrConfirmationAuthenticated)) {
		sub.Pending = false
		// Only a signed request may require signed unsubscribes: an
		// anonymous GET of the SubscribeURL (empty Account) cannot.
		if authenticate && c.Account != "" {
			sub.Attributes = cloneMap(sub.Attributes)
			if sub.Attributes == nil {
				sub.Attributes = map[string]string{}
			}
			sub.Attributes[attrConfirmationAuthenticated] = "true"
		}
		if err := s.store.PutSubscription(ctx, sub); err != nil {
			return "", AsError(err)
		}
	}
	return s.subscriptionARN(sub), nil
}

// lookupSubscription finds the subscription arn names, which c must own or
// own the topic of. action names the action in errors.
func (s *Service) lookupSubscription(ctx context.Context, c Caller, arn, action string) (*Topic, *Subscription, *Error) {
	region, account, name, id, err := ParseSubscriptionARN(arn, "SubscriptionArn")
	if err != nil {
		return nil, nil, AsError(err)
	}
	notFound := NewError(CodeNotFound, "Subscription does not exist")
	t, err := s.store.GetTopic(ctx, account, s.region(region), name)
	if isCode(err, herald.ENotFound) {
		return nil, nil, notFound
	}
	if err != nil {
		return nil, nil, AsError(err)
	}
	sub, err := s.store.GetSubscription(ctx, t.ID, id)
	if isCode(err, herald.ENotFound) {
		return nil, nil, notFound
	}
	if err != nil {
		return nil, nil, AsError(err)
	}
	// An anonymous Unsubscribe is the UnsubscribeURL of a notification
	// being followed: AWS allows it unless the subscription was confirmed
	// with AuthenticateOnUnsubscribe by a signed request.
	anonymousUnsubscribe := c.Account == "" && action == "Unsubscribe" && !boolAttr(sub.Attributes, attrConfirmationAuthenticated)
	if c.Account != t.Account && c.Account != sub.Owner && !anonymousUnsubscribe {
		return nil, nil, errNotAuthorized(c, action, arn)
	}
	return t, sub, nil
}

// Unsubscribe deletes a subscription; an unknown one is not an error.
func (s *Service) Unsubscribe(ctx context.Context, c Caller, arn string) error {
	t, sub, e := s.lookupSubscription(ctx, c, arn, "Unsubscribe")
	if e != nil {
		if e.Code == CodeNotFound {
			return nil
		}
		return e
	}
	if err := s.store.DeleteSubscription(ctx, t.ID, sub.ID); err != nil && !isCode(err, herald.ENotFound) {
		return AsError(err)
	}
	return nil
}

func (s *Service) summary(sub *Subscription) SubscriptionSummary {
	arn := s.subscriptionARN(sub)
	if sub.Pending {
		arn = PendingARN
	}
	return SubscriptionSummary{SubscriptionARN: arn, Owner: sub.Owner, Protocol: sub.Protocol,
		Endpoint: sub.Endpoint, TopicARN: TopicARN(s.regionName(sub.TopicRegion), sub.TopicAccount, sub.TopicName)}
}

func (s *Service) ListSubscriptionsByTopic(ctx context.Context, c Caller, topicARN, nextToken string) (ListSubscriptionsOutput, error) {
	t, e := s.lookupTopic(ctx, c, topicARN, "TopicArn", "ListSubscriptionsByTopic")
	if e != nil {
		return ListSubscriptionsOutput{}, e
	}
	after := uuid.Nil
	if nextToken != "" {
		raw, e := parsePageToken(nextToken)
		if e != nil {
			return ListSubscriptionsOutput{}, e
		}
		if after, e = parseUUIDToken(raw); e != nil {
			return ListSubscriptionsOutput{}, e
		}
	}
	subs, err := s.store.ListSubscriptions(ctx, t.ID, after, MaxListPage+1)
	if err != nil {
		return ListSubscriptionsOutput{}, AsError(err)
	}
	var out ListSubscriptionsOutput
	for i, sub := range subs {
		if i == MaxListPage {
			out.NextToken = pageToken(subs[i-1].ID.String())
			break
		}
		out.Subscriptions = append(out.Subscriptions, s.summary(sub))
	}
	return out, nil
}

func parseUUIDToken(raw string) (uuid.UUID, *Error) {
	id, err := uuid.Parse(raw)
	if err != nil {
		return uuid.Nil, ErrInvalidParameter("NextToken")
	}
	return id, nil
}

// ListSubscriptions lists the subscriptions of all the caller's topics,
// topic by topic; NextToken holds the last topic name and subscription id.
func (s *Service) ListSubscriptions(ctx context.Context, c Caller, nextToken string) (ListSubscriptionsOutput, error) {
	if e := authorizeAccount(c, "ListSubscriptions"); e != nil {
		return ListSubscriptionsOutput{}, e
	}
	var out ListSubscriptionsOutput
	topicName, after := "", uuid.Nil
	if nextToken != "" {
		raw, e := parsePageToken(nextToken)
		if e != nil {
			return out, e
		}
		name, idStr, ok := strings.Cut(raw, "\x00")
		if !ok {
			return out, ErrInvalidParameter("NextToken")
		}
		if after, e = parseUUIDToken(idStr); e != nil {
			return out, e
		}
		topicName = name
	}
	// take adds subscriptions of t after `from` until the page is full;
	// true when the page filled up.
	take := func(t *Topic, from uuid.UUID) (bool, error) {
		for {
			room := MaxListPage - len(out.Subscriptions)
			subs, err := s.store.ListSubscriptions(ctx, t.ID, from, room)
			if err != nil {
				return false, err
			}
			for _, sub := range subs {
				out.Subscriptions = append(out.Subscriptions, s.summary(sub))
			}
			if len(out.Subscriptions) == MaxListPage {
				out.NextToken = pageToken(t.Name + "\x00" + subs[len(subs)-1].ID.String())
				return true, nil
			}
			if len(subs) < room {
				return false, nil
			}
			from = subs[len(subs)-1].ID
		}
	}
	if topicName != "" {
		t, err := s.store.GetTopic(ctx, c.Account, s.region(c.Region), topicName)
		if err == nil {
			if full, err := take(t, after); err != nil || full {
				return out, errOrNil(err)
			}
		} else if !isCode(err, herald.ENotFound) {
			return out, AsError(err)
		}
	}
	for {
		ts, err := s.store.ListTopics(ctx, c.Account, s.region(c.Region), topicName, MaxListPage)
		if err != nil {
			return out, AsError(err)
		}
		for _, t := range ts {
			if full, err := take(t, uuid.Nil); err != nil || full {
				return out, errOrNil(err)
			}
		}
		if len(ts) < MaxListPage {
			return out, nil
		}
		topicName = ts[len(ts)-1].Name
	}
}

func (s *Service) GetSubscriptionAttributes(ctx context.Context, c Caller, arn string) (map[string]string, error) {
	t, sub, e := s.lookupSubscription(ctx, c, arn, "GetSubscriptionAttributes")
	if e != nil {
		return nil, e
	}
	out := cloneMap(sub.Attributes)
	if out == nil {
		out = map[string]string{}
	}
	out["SubscriptionArn"] = s.subscriptionARN(sub)
	out["TopicArn"] = s.topicARN(t)
	out["Owner"] = sub.Owner
	// AWS names the IAM principal that called Subscribe; Herald knows its
	// account, the subscription's owner.
	out["SubscriptionPrincipal"] = rootPrincipal(sub.Owner)
	out["Protocol"] = sub.Protocol
	out["Endpoint"] = sub.Endpoint
	out["PendingConfirmation"] = boolString(sub.Pending)
	out[attrConfirmationAuthenticated] = boolString(boolAttr(sub.Attributes, attrConfirmationAuthenticated) || !sub.Pending && sub.Token == "")
	if out[AttrRawMessageDelivery] == "" {
		out[AttrRawMessageDelivery] = "false"
	}
	if out[AttrFilterPolicy] != "" && out[AttrFilterPolicyScope] == "" {
		out[AttrFilterPolicyScope] = ScopeMessageAttributes
	}
	if sub.Protocol == ProtocolHTTP || sub.Protocol == ProtocolHTTPS {
		if _, eff, err := s.cfg.DeliveryPolicies.Effective(t.Attributes[AttrDeliveryPolicy], sub.Attributes[AttrDeliveryPolicy]); err == nil {
			out["EffectiveDeliveryPolicy"] = eff
		}
	}
	return out, nil
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func (s *Service) SetSubscriptionAttributes(ctx context.Context, c Caller, in SetSubscriptionAttributesInput) error {
	_, sub, e := s.lookupSubscription(ctx, c, in.SubscriptionARN, "SetSubscriptionAttributes")
	if e != nil {
		return e
	}
	in.AttributeValue = canonicalValue(in.AttributeName, in.AttributeValue)
	if e := s.validateSubscriptionAttribute(in.AttributeName, in.AttributeValue, sub.Protocol, false); e != nil {
		return e
	}
	attrs := cloneMap(sub.Attributes)
	if attrs == nil {
		attrs = map[string]string{}
	}
	if in.AttributeValue == "" {
		delete(attrs, in.AttributeName)
	} else {
		attrs[in.AttributeName] = in.AttributeValue
	}
	if e := s.checkFilterPolicy(attrs); e != nil {
		return e
	}
	sub.Attributes = attrs
	return errOrNil(s.store.PutSubscription(ctx, sub))
}
