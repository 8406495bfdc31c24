package sns

import (
	"context"
	"errors"
	"net/mail"
	"strings"
)

// Email (email, email-json) and SMS deliveries. They run in the delivery
// jobs like every other protocol; what differs is the transport (a Mailer,
// an SMSSender) and the retry policy, AWS's for endpoints it does not
// manage: no immediate retry, 2 retries 10 s apart, 10 with exponential
// backoff from 10 s to 600 s, then 38 every 600 s (50 retries, about 6
// hours).
var customerManagedRetry RetryPolicy = DeliveryPolicy{
	NumRetries: 50, NumMinDelayRetries: 2, MinDelayTarget: 10, MaxDelayTarget: 600,
	NumMaxDelayRetries: 38, BackoffFunction: BackoffExponential,
}

// The subjects of SNS's emails: a notification published without a
// Subject, and a subscription confirmation.
const (
	DefaultEmailSubject      = "AWS Notification Message"
	ConfirmationEmailSubject = "AWS Notification - Subscription Confirmation"
)

// notifyProtocol reports whether protocol delivers by email, SMS or mobile
// push.
func notifyProtocol(protocol string) bool {
	return protocol == ProtocolEmail || protocol == ProtocolEmailJSON || protocol == ProtocolSMS || protocol == ProtocolApplication
}

// errOptedOut is why an SMS to a number that opted out is not sent.
var errOptedOut = errors.New("phone number is opted out")

// deliverEmail mails n to an email or email-json subscriber.
func (s *Service) deliverEmail(ctx context.Context, t Target, n Notification) error {
	if s.cfg.Mail == nil {
		return permanentError{errors.New("no mailer configured")}
	}
	subject := n.Subject
	if subject == "" {
		subject = DefaultEmailSubject
	}
	body := EmailText(n.Message, UnsubscribeURL(t))
	if t.Protocol == ProtocolEmailJSON {
		var err error
		if body, err = s.cfg.Envelope(t, n); err != nil {
			return permanentError{err}
		}
	}
	return s.cfg.Mail.SendMail(ctx, Mail{To: t.Endpoint, FromName: t.DisplayName, Subject: subject, Body: body})
}

// EmailText is the body of an email notification: the message, then a
// footer with the link that unsubscribes the address.
func EmailText(message, unsubscribeURL string) string {
	var b strings.Builder
	b.WriteString(message)
	b.WriteString("\n\n--\nIf you wish to stop receiving notifications from this topic, please click or visit the link below to unsubscribe:\n")
	b.WriteString(unsubscribeURL)
	b.WriteString("\n\nPlease do not reply directly to this email.\n")
	return b.String()
}

// ConfirmationEmailText is the body of the confirmation email of an email
// subscription: the topic and the SubscribeURL that confirms it.
func ConfirmationEmailText(topicARN, subscribeURL string) string {
	return "You have chosen to subscribe to the topic:\n" + topicARN +
		"\n\nTo confirm this subscription, click or visit the link below (if this was in error no action is necessary):\n" +
		subscribeURL + "\n\nPlease do not reply directly to this email.\n"
}

// sendEmailConfirmation mails a subscription's confirmation: text with the
// SubscribeURL to email subscribers, the SubscriptionConfirmation JSON
// document to email-json ones.
func (s *Service) sendEmailConfirmation(ctx context.Context, t Target, c Confirmation) error {
	if s.cfg.Mail == nil {
		return errors.New("no mailer configured")
	}
	body := ConfirmationEmailText(c.TopicARN, c.SubscribeURL)
	if t.Protocol == ProtocolEmailJSON {
		var err error
		if body, err = confirmationEnvelope(t, c); err != nil {
			return err
		}
	}
	return s.cfg.Mail.SendMail(ctx, Mail{To: t.Endpoint, FromName: t.DisplayName, Subject: ConfirmationEmailSubject, Body: body})
}

// Message attributes that set how one SMS is sent, as AWS names them.
const (
	AttrSMSSenderID          = "AWS.SNS.SMS.SenderID"
	AttrSMSType              = "AWS.SNS.SMS.SMSType"
	AttrSMSMaxPrice          = "AWS.SNS.SMS.MaxPrice"
	AttrSMSOriginationNumber = "AWS.MM.SMS.OriginationNumber"
	AttrSMSEntityID          = "AWS.MM.SMS.EntityId"
	AttrSMSTemplateID        = "AWS.MM.SMS.TemplateId"
)

// smsMessageAttrs are the reserved (AWS.) message attributes Publish
// accepts: those of SMS messages.
var smsMessageAttrs = map[string]bool{
	AttrSMSSenderID: true, AttrSMSType: true, AttrSMSMaxPrice: true,
	AttrSMSOriginationNumber: true, AttrSMSEntityID: true, AttrSMSTemplateID: true,
}

// deliverSMS sends n to the phone number of an sms subscription (or of a
// Publish to a PhoneNumber), unless the number opted out of the messages
// of the publishing account. The sender ID and SMS type come from the
// message's attributes, else from the account's SMS attributes; the
// type defaults to Promotional, as on AWS.
func (s *Service) deliverSMS(ctx context.Context, dj *deliveryJob, sub jobSub, n Notification) error {
	if s.cfg.SMS == nil {
		return permanentError{errors.New("no SMS webhook configured")}
	}
	account, phone := dj.Pub.Account, sub.Endpoint
	optedOut, err := s.optedOut(ctx, account, phone)
	switch {
	case err != nil:
		return err
	case optedOut:
		return permanentError{errOptedOut}
	}
	defaults, err := s.smsAttributes(ctx, account)
	if err != nil {
		return err
	}
	attr := func(name, fallback string) string {
		if v := n.MessageAttributes[name].StringValue; v != "" {
			return v
		}
		return fallback
	}
	m := SMS{
		MessageID: n.MessageID, PhoneNumber: phone, Message: n.Message, Account: account,
		SenderID: attr(AttrSMSSenderID, defaults[SMSAttrDefaultSenderID]),
		SMSType:  attr(AttrSMSType, defaults[SMSAttrDefaultSMSType]),
		MaxPrice: attr(AttrSMSMaxPrice, ""), OriginationNumber: attr(AttrSMSOriginationNumber, ""),
		Timestamp: awsTimestamp(n.Timestamp),
	}
	if m.SMSType == "" {
		m.SMSType = SMSTypePromotional
	}
	if dj.Pub.Topic != "" {
		m.TopicARN = n.TopicARN
		m.SubscriptionARN = n.TopicARN + ":" + sub.ID.String()
	}
	optedOut, err = s.cfg.SMS.SendSMS(ctx, m)
	if optedOut {
		// The gateway says the recipient opted out (a STOP reply): later
		// messages of this account are not sent until OptInPhoneNumber.
		if err := s.store.PutAccountRecord(ctx, account, recordSMSOptOut, phone, nil); err != nil {
			return err
		}
		return permanentError{errOptedOut}
	}
	return err
}

// validEmailAddress reports whether s is one bare email address
// (user@domain, no display name or angle brackets).
func validEmailAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && strings.Contains(s, "@") && !strings.ContainsAny(s, "\r\n")
}
