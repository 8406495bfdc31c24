package sns

import (
	"context"
	"encoding/base64"
	"strconv"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// MaxListPage is how many topics or subscriptions one List* page holds, as
// on AWS.
const MaxListPage = 100

func isCode(err error, code string) bool { return herald.ErrorCode(err) == code }

func (s *Service) CreateTopic(ctx context.Context, c Caller, in CreateTopicInput) (string, error) {
	if e := authorizeAccount(c, "CreateTopic"); e != nil {
		return "", e
	}
	if err := ValidateTopicName(in.Name); err != nil {
		return "", err
	}
	in.Attributes = canonicalAttrs(in.Attributes)
	fifo := boolAttr(in.Attributes, AttrFifoTopic)
	if IsFIFOName(in.Name) != fifo {
		return "", ErrInvalidParameter("Fifo Topic names must end with .fifo and they must be created with FifoTopic attribute set to true.")
	}
	attrs := map[string]string{}
	for k, v := range in.Attributes {
		if e := s.validateTopicAttribute(k, v, true, fifo); e != nil {
			return "", e
		}
		if k == AttrFifoTopic && v == "false" {
			continue
		}
		attrs[k] = v
	}
	if e := validateTags(in.Tags); e != nil {
		return "", e
	}
	t := &Topic{ID: uuid.New(), Account: c.Account, Region: s.region(c.Region), Name: in.Name, Attributes: attrs, Tags: cloneMap(in.Tags), CreatedAt: s.now()}
	existing, err := s.store.CreateTopic(ctx, t)
	if isCode(err, herald.EConflict) && existing != nil {
		for k, v := range attrs {
			if existing.Attributes[k] != v {
				return "", ErrInvalidParameter("Attributes Reason: Topic already exists with different attributes")
			}
		}
		for k, v := range in.Tags {
			if existing.Tags[k] != v {
				return "", ErrInvalidParameter("Tags Reason: Topic already exists with different tags")
			}
		}
		return s.topicARN(existing), nil
	}
	if err != nil {
		return "", AsError(err)
	}
	// Every subscription of a new topic is indexed as it is stored; should
	// this mark fail, the first publish indexes the (few) subscriptions
	// there are and marks the topic then.
	if err := s.markIndexed(ctx, t.ID); err != nil {
		s.log.Warn("sns: marking a new topic as filter-indexed failed; its first publish will index it", "topic", t.Name, "err", err)
	}
	return s.topicARN(t), nil
}

// DeleteTopic deletes a topic and its subscriptions; deleting a topic that
// does not exist succeeds, as on AWS.
func (s *Service) DeleteTopic(ctx context.Context, c Caller, arn string) error {
	t, e := s.lookupTopic(ctx, c, arn, "TopicArn", "DeleteTopic")
	if e != nil {
		if e.Code == CodeNotFound {
			return nil
		}
		return e
	}
	if err := s.store.DeleteTopic(ctx, t); err != nil && !isCode(err, herald.ENotFound) {
		return AsError(err)
	}
	// The mark of a deleted topic can do no harm (topic IDs are never
	// reused); deleting it keeps the records few.
	_ = s.store.DeleteAccountRecord(ctx, s.cfg.InternalAccount, filterIndexKind, t.ID.String())
	return nil
}

// pageToken and parsePageToken make the opaque NextToken of List*.
func pageToken(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func parsePageToken(tok string) (string, *Error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", ErrInvalidParameter("NextToken")
	}
	return string(b), nil
}

func (s *Service) ListTopics(ctx context.Context, c Caller, nextToken string) (ListTopicsOutput, error) {
	if e := authorizeAccount(c, "ListTopics"); e != nil {
		return ListTopicsOutput{}, e
	}
	after, e := parsePageToken(nextToken)
	if e != nil {
		return ListTopicsOutput{}, e
	}
	ts, err := s.store.ListTopics(ctx, c.Account, s.region(c.Region), after, MaxListPage+1)
	if err != nil {
		return ListTopicsOutput{}, AsError(err)
	}
	var out ListTopicsOutput
	for i, t := range ts {
		if i == MaxListPage {
			out.NextToken = pageToken(ts[i-1].Name)
			break
		}
		out.TopicARNs = append(out.TopicARNs, s.topicARN(t))
	}
	return out, nil
}

// subscriptionCounts counts a topic's confirmed and pending subscriptions.
func (s *Service) subscriptionCounts(ctx context.Context, t *Topic) (confirmed, pending int, err error) {
	after := uuid.Nil
	for {
		subs, err := s.store.ListSubscriptions(ctx, t.ID, after, 1000)
		if err != nil {
			return 0, 0, err
		}
		for _, sub := range subs {
			if sub.Pending {
				pending++
			} else {
				confirmed++
			}
		}
		if len(subs) < 1000 {
			return confirmed, pending, nil
		}
		after = subs[len(subs)-1].ID
	}
}

func (s *Service) GetTopicAttributes(ctx context.Context, c Caller, arn string) (map[string]string, error) {
	t, e := s.lookupTopic(ctx, c, arn, "TopicArn", "GetTopicAttributes")
	if e != nil {
		return nil, e
	}
	confirmed, pending, err := s.subscriptionCounts(ctx, t)
	if err != nil {
		return nil, AsError(err)
	}
	out := cloneMap(t.Attributes)
	if out == nil {
		out = map[string]string{}
	}
	topicARN := s.topicARN(t)
	out["TopicArn"] = topicARN
	out["Owner"] = t.Account
	out["SubscriptionsConfirmed"] = strconv.Itoa(confirmed)
	out["SubscriptionsPending"] = strconv.Itoa(pending)
	out["SubscriptionsDeleted"] = "0"
	if out[AttrPolicy] == "" {
		out[AttrPolicy] = defaultTopicPolicy(topicARN, t.Account)
	}
	if out[AttrDisplayName] == "" {
		out[AttrDisplayName] = ""
	}
	if _, eff, err := s.cfg.DeliveryPolicies.Effective(t.Attributes[AttrDeliveryPolicy], ""); err == nil {
		out["EffectiveDeliveryPolicy"] = eff
	}
	if topicFIFO(t) {
		out[AttrFifoTopic] = "true"
		if out[AttrContentBasedDeduplication] == "" {
			out[AttrContentBasedDeduplication] = "false"
		}
	}
	return out, nil
}

func (s *Service) SetTopicAttributes(ctx context.Context, c Caller, in SetTopicAttributesInput) error {
	t, e := s.lookupTopic(ctx, c, in.TopicARN, "TopicArn", "SetTopicAttributes")
	if e != nil {
		return e
	}
	if readOnlyTopicAttrs[in.AttributeName] {
		return ErrInvalidParameter("AttributeName")
	}
	in.AttributeValue = canonicalValue(in.AttributeName, in.AttributeValue)
	if e := s.validateTopicAttribute(in.AttributeName, in.AttributeValue, false, topicFIFO(t)); e != nil {
		return e
	}
	t.Attributes = cloneMap(t.Attributes)
	if t.Attributes == nil {
		t.Attributes = map[string]string{}
	}
	if in.AttributeValue == "" {
		delete(t.Attributes, in.AttributeName)
	} else {
		t.Attributes[in.AttributeName] = in.AttributeValue
	}
	return errOrNil(s.store.UpdateTopic(ctx, t))
}

// errOrNil is AsError that keeps a nil error an untyped nil.
func errOrNil(err error) error {
	if err == nil {
		return nil
	}
	return AsError(err)
}
