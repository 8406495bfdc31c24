package main

import (
	"flag"
	"fmt"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snsmail"
	"github.com/heraldmq/herald/sns/snssms"
)

// snsNotifyConfig configures SNS's email and SMS deliveries
// (docs/sns.md): an SMTP relay for email and email-json subscriptions, a
// webhook for SMS. Without them those protocols are refused.
type snsNotifyConfig struct {
	smtpAddr, smtpFrom         string
	smtpUsername, smtpPassword string
	smtpTLS                    bool
	smsWebhookURL              string
	pushGatewayURL             string // snspush.go
}

func (c *snsNotifyConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.smtpAddr, "smtp-addr", "", "SMTP relay (host:port) SNS mails email and email-json subscriptions through; empty: those protocols are refused")
	fs.StringVar(&c.smtpFrom, "smtp-from", "no-reply@sns.herald.local", "sender address of SNS mail (the topic's DisplayName is its name)")
	fs.StringVar(&c.smtpUsername, "smtp-username", "", "user name for SMTP PLAIN authentication (sent only over TLS or to localhost)")
	fs.StringVar(&c.smtpPassword, "smtp-password", "", "password for SMTP authentication (prefer the environment variable)")
	fs.BoolVar(&c.smtpTLS, "smtp-tls", false, "connect to --smtp-addr with TLS from the start (port 465); otherwise STARTTLS is used when the relay offers it")
	fs.StringVar(&c.smsWebhookURL, "sms-webhook-url", "", "URL SNS posts each SMS to as JSON (sms subscriptions, Publish to a PhoneNumber, sandbox passwords); empty: SMS is refused")
	c.registerPush(fs)
}

// senders returns the Mailer and SMSSender the flags configure (nil when
// not configured).
func (c *snsNotifyConfig) senders() (sns.Mailer, sns.SMSSender, error) {
	var (
		mailer sns.Mailer
		sms    sns.SMSSender
	)
	if c.smtpAddr != "" {
		m, err := snsmail.New(snsmail.Config{Addr: c.smtpAddr, From: c.smtpFrom, Username: c.smtpUsername,
			Password: c.smtpPassword, TLS: c.smtpTLS})
		if err != nil {
			return nil, nil, fmt.Errorf("--smtp-addr/--smtp-from: %w", err)
		}
		mailer = m
	}
	if c.smsWebhookURL != "" {
		w, err := snssms.New(snssms.Config{URL: c.smsWebhookURL})
		if err != nil {
			return nil, nil, fmt.Errorf("--sms-webhook-url: %w", err)
		}
		sms = w
	}
	return mailer, sms, nil
}
