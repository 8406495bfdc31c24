package sns

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// Publish to an endpoint, application subscriptions, and push delivery.
//
// A push is a delivery job of one "application" subscription whose
// endpoint is the endpoint's ARN, on the delivery queue like every other
// notification. Its payload is the message, or with MessageStructure=json
// the member named by the application's platform ("HERALD", "APNS",
// "GCM", ...), else "default". A HERALD endpoint gets it as an SQS
// message in the queue its token names (body: the payload; message
// attributes: the publish's); a device reads that queue over the WebSocket
// gateway (subscribe_queue), live while connected, from the queue when it
// comes back. The other platforms' pushes go to the push gateway.

var (
	errEndpointGone     = errors.New("the platform endpoint no longer exists")
	errEndpointDisabled = errors.New("the platform endpoint is disabled")
	errAppDisabled      = errors.New("the platform application is disabled")
)

func errNoEndpoint() *Error {
	return ErrInvalidParameter("TargetArn Reason: No endpoint found for the target arn specified")
}

// appEnabled reports whether r is enabled (Enabled absent means true).
func appEnabled(r *appRecord) bool { return r.Attributes[AppAttrEnabled] != "false" }

// publishPush publishes one message to a platform endpoint.
func (s *Service) publishPush(ctx context.Context, c Caller, in PublishInput, arn string) (PublishOutput, error) {
	ep, e := parseEndpointARN(arn, "TargetArn")
	if e != nil {
		return PublishOutput{}, e
	}
	if e := authorizePush(c, "Publish", ep.App.Account, arn); e != nil {
		return PublishOutput{}, e
	}
	r, err := s.getEndpoint(ctx, ep)
	if isCode(err, herald.ENotFound) {
		return PublishOutput{}, errNoEndpoint()
	}
	if err != nil {
		return PublishOutput{}, AsError(err)
	}
	app, err := s.getApp(ctx, ep.App)
	if isCode(err, herald.ENotFound) {
		return PublishOutput{}, errNoEndpoint()
	}
	if err != nil {
		return PublishOutput{}, AsError(err)
	}
	switch {
	case !appEnabled(app):
		return PublishOutput{}, NewError(CodePlatformApplicationDisabled, "Platform application is disabled")
	case !r.enabled():
		return PublishOutput{}, NewError(CodeEndpointDisabled, "Endpoint is disabled")
	}
	entry := PublishBatchEntry{Message: in.Message, Subject: in.Subject, MessageStructure: in.MessageStructure,
		MessageAttributes: in.MessageAttributes, MessageDeduplicationID: in.MessageDeduplicationID, MessageGroupID: in.MessageGroupID}
	if e := validatePublish(&Topic{}, entry); e != nil {
		return PublishOutput{}, e
	}
	id := uuid.NewString()
	dj := &deliveryJob{
		Pub: publishJob{Account: ep.App.Account, Message: in.Message, Subject: deref(in.Subject), Structure: in.MessageStructure,
			Attributes: in.MessageAttributes, Timestamp: s.now().UnixMilli(), Scheme: c.Scheme, Host: c.Host, MessageID: id},
		Subs: []jobSub{{Protocol: ProtocolApplication, Endpoint: arn}},
	}
	if err := s.enqueueDelivery(ctx, dj, 0); err != nil {
		return PublishOutput{}, queueError(err)
	}
	return PublishOutput{MessageID: id}, nil
}

// checkApplicationEndpoint checks Subscribe's endpoint of protocol
// application: an existing endpoint of the subscriber's own account whose
// platform Herald can deliver to; FIFO topics take none.
func (s *Service) checkApplicationEndpoint(ctx context.Context, c Caller, endpoint string, fifo bool) *Error {
	if fifo {
		return s.unsupportedProtocol(ProtocolApplication, fifo)
	}
	ep, e := parseEndpointARN(endpoint, "Endpoint")
	if e != nil {
		return e
	}
	if ep.App.Account != c.Account {
		return errNotAuthorized(c, "Subscribe", endpoint)
	}
	if _, err := s.getEndpoint(ctx, ep); isCode(err, herald.ENotFound) {
		return ErrInvalidParameter("Endpoint Reason: No endpoint found for the target arn specified")
	} else if err != nil {
		return AsError(err)
	}
	return nil
}

// pushPayload is what a platform's device gets of p.
func pushPayload(p *publishJob, platform string) string {
	if p.Structure != "json" {
		return p.Message
	}
	m, e := parseStructure(p.Message)
	if e != nil {
		return p.Message
	}
	if v, ok := m[platform]; ok {
		return v
	}
	return m["default"]
}

// deliverPush delivers a notification to a platform endpoint: nothing to
// an endpoint that was deleted or disabled, or of a disabled application
// (permanent failures); to the token's queue for HERALD; to the push
// gateway otherwise. A gateway's answer that the token is invalid
// disables the endpoint.
func (s *Service) deliverPush(ctx context.Context, dj *deliveryJob, sub jobSub, n Notification) error {
	ep, e := parseEndpointARN(sub.Endpoint, "Endpoint")
	if e != nil {
		return permanentError{e}
	}
	r, err := s.getEndpoint(ctx, ep)
	if isCode(err, herald.ENotFound) {
		return permanentError{errEndpointGone}
	}
	if err != nil {
		return err
	}
	app, err := s.getApp(ctx, ep.App)
	switch {
	case isCode(err, herald.ENotFound):
		return permanentError{errEndpointGone}
	case err != nil:
		return err
	case !appEnabled(app):
		return permanentError{errAppDisabled}
	case !r.enabled():
		return permanentError{errEndpointDisabled}
	}
	payload := pushPayload(&dj.Pub, ep.App.Platform)
	if ep.App.Platform == PlatformHerald {
		acct := ep.App.Account
		_, err := s.q.SendMessage(ctx, sqs.Caller{Account: acct, Region: s.region(ep.App.Region), SenderID: acct, Scheme: dj.Pub.Scheme, Host: dj.Pub.Host},
			sqs.SendMessageInput{QueueURL: "/" + acct + "/" + r.token(), MessageBody: payload, MessageAttributes: sqsAttributes(n.MessageAttributes)})
		if err != nil && !transient(err) {
			return permanentError{err}
		}
		return err
	}
	if s.cfg.Push == nil {
		return permanentError{errors.New("no push gateway configured")}
	}
	p := Push{
		MessageID: n.MessageID, Platform: ep.App.Platform, Token: r.token(), Payload: payload,
		EndpointARN: sub.Endpoint, PlatformApplicationARN: ep.App.arn(),
		CustomUserData: r.Attributes[EndpointAttrCustomUserData], Timestamp: awsTimestamp(n.Timestamp),
	}
	if dj.Pub.Topic != "" {
		p.TopicARN = n.TopicARN
		p.SubscriptionARN = n.TopicARN + ":" + sub.ID.String()
	}
	invalid, err := s.cfg.Push.SendPush(ctx, p)
	if invalid {
		if err := s.disableEndpoint(ctx, ep, p.Token); err != nil {
			return err
		}
		return permanentError{errEndpointDisabled}
	}
	return err
}

// disableEndpoint sets Enabled=false on ep, unless its token changed
// meanwhile (the invalid token is no longer its).
func (s *Service) disableEndpoint(ctx context.Context, ep endpointRef, token string) error {
	r, err := s.getEndpoint(ctx, ep)
	if isCode(err, herald.ENotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if r.token() != token || !r.enabled() {
		return nil
	}
	r.Attributes[EndpointAttrEnabled] = "false"
	return s.putEndpoint(ctx, ep, r)
}
