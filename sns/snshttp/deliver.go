package snshttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/heraldmq/herald/sns"
)

// Defaults of Config.
const (
	DefaultMaxConcurrent  = 1024
	DefaultMaxPerHost     = 64
	DefaultTimeout        = 15 * time.Second // AWS waits about 15 s for an endpoint
	DefaultConnectTimeout = 5 * time.Second
	DefaultHostWait       = 5 * time.Second
	DefaultUserAgent      = "Amazon Simple Notification Service Agent"
	DefaultContentType    = "text/plain; charset=UTF-8"
	maxResponseDrain      = 64 << 10
)

// Config configures a Deliverer.
type Config struct {
	// Signer signs envelopes (required).
	Signer *Signer
	// PublicURL is Herald's base URL as endpoints reach it, e.g.
	// "https://herald.example.com"; SubscribeURL, UnsubscribeURL and
	// SigningCertURL are under it unless a Target sets its own.
	PublicURL string
	// CertPath is the path of the certificate under the public URL
	// (default DefaultCertPath); serve Signer.CertHandler there.
	CertPath string

	MaxConcurrent  int           // requests in flight in all; default 1024
	MaxPerHost     int           // requests (and connections) in flight per endpoint host; default 64
	Timeout        time.Duration // whole attempt, connect to response headers; default 15 s
	ConnectTimeout time.Duration // TCP connect and TLS handshake; default 5 s
	// HostWait is how long an attempt waits for a slot of a host that has
	// MaxPerHost requests in flight before failing with ErrHostBusy, so
	// callers' workers are not all parked on one slow host; default 5 s,
	// negative waits as long as the context allows.
	HostWait time.Duration
	// Retry429 makes 429 Too Many Requests a Failed (retried) attempt. AWS
	// retries nothing in 200–4xx, so it is off by default.
	Retry429 bool

	UserAgent string      // default DefaultUserAgent, as AWS sends
	TLSConfig *tls.Config // for https endpoints; nil: system roots
	// Transport replaces the HTTP transport (tests); the timeouts and
	// per-host bounds above still apply.
	Transport http.RoundTripper
}

// Target is one http/https subscription as the Deliverer sees it.
type Target struct {
	SubscriptionARN string
	// TopicARN is needed by confirmations; "" derives it from
	// SubscriptionARN. Notifications use Notification.TopicARN.
	TopicARN string
	Endpoint string // the endpoint URL
	Raw      bool   // RawMessageDelivery: the body is the message itself
	// SignatureVersion is the topic's, "1" (SHA1withRSA, the default) or
	// "2" (SHA256withRSA).
	SignatureVersion string
	// ContentType is the delivery policy's headerContentType; "" sends
	// DefaultContentType.
	ContentType string
	// PublicURL overrides Config.PublicURL for this target (the URL the
	// publisher used, say).
	PublicURL string
}

func (t *Target) topicARN() string {
	if t.TopicARN != "" {
		return t.TopicARN
	}
	if i := strings.LastIndexByte(t.SubscriptionARN, ':'); i > 0 {
		return t.SubscriptionARN[:i]
	}
	return ""
}

// Deliverer posts notifications and confirmations to endpoints through a
// bounded pool of HTTP connections. It is safe for concurrent use.
//
// Bounds: at most MaxPerHost requests per endpoint host (scheme, host and
// port) and MaxConcurrent in all; an attempt takes its host slot before a
// global one, so a hanging host holds at most MaxPerHost of the global
// slots and never delays deliveries to other hosts. Redirects are not
// followed: a 3xx answer is a Failed attempt, as AWS treats any status
// outside 200–4xx, and following them would let an endpoint point Herald's
// POSTs at another host.
type Deliverer struct {
	cfg    Config
	enc    Encoder
	client *http.Client
	global chan struct{}
	hosts  *hostLimiter
	tr     *http.Transport // nil with Config.Transport
}

// New returns a Deliverer.
func New(cfg Config) (*Deliverer, error) {
	if cfg.Signer == nil {
		return nil, errors.New("snshttp: Config.Signer is required")
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.MaxPerHost <= 0 {
		cfg.MaxPerHost = DefaultMaxPerHost
	}
	if cfg.MaxPerHost > cfg.MaxConcurrent {
		cfg.MaxPerHost = cfg.MaxConcurrent
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.HostWait == 0 {
		cfg.HostWait = DefaultHostWait
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	d := &Deliverer{
		cfg:    cfg,
		enc:    Encoder{Signer: cfg.Signer, CertPath: cfg.CertPath},
		global: make(chan struct{}, cfg.MaxConcurrent),
		hosts:  newHostLimiter(cfg.MaxPerHost),
	}
	rt := cfg.Transport
	if rt == nil {
		dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
		d.tr = &http.Transport{
			Proxy:                 nil, // endpoints are reached directly, never through environment proxies
			DialContext:           dialer.DialContext,
			TLSClientConfig:       cfg.TLSConfig,
			TLSHandshakeTimeout:   cfg.ConnectTimeout,
			MaxIdleConns:          cfg.MaxConcurrent,
			MaxIdleConnsPerHost:   cfg.MaxPerHost,
			MaxConnsPerHost:       cfg.MaxPerHost,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: cfg.Timeout,
			DisableCompression:    true,
		}
		rt = d.tr
	}
	d.client = &http.Client{
		Transport: rt,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return d, nil
}

// Close closes idle connections.
func (d *Deliverer) Close() {
	if d.tr != nil {
		d.tr.CloseIdleConnections()
	}
}

// Encoder is the Deliverer's envelope encoder (for SQS deliveries of
// enveloped notifications).
func (d *Deliverer) Encoder() *Encoder { return &d.enc }

// Signer is the configured Signer.
func (d *Deliverer) Signer() *Signer { return d.cfg.Signer }

func (d *Deliverer) publicURL(t *Target) string {
	if t.PublicURL != "" {
		return t.PublicURL
	}
	return d.cfg.PublicURL
}

// Deliver makes one attempt to deliver n to t: the signed JSON envelope,
// or with t.Raw the message alone. nil means Delivered (2xx); otherwise a
// *DeliveryError (see IsRetryable), or ctx's error.
func (d *Deliverer) Deliver(ctx context.Context, t Target, n sns.Notification) error {
	var body []byte
	if t.Raw {
		body = []byte(n.Message)
	} else {
		var err error
		body, err = d.enc.Notification(&n, t.SubscriptionARN, t.SignatureVersion, d.publicURL(&t))
		if err != nil {
			return err
		}
	}
	h := http.Header{
		"x-amz-sns-message-type":     {TypeNotification},
		"x-amz-sns-message-id":       {n.MessageID},
		"x-amz-sns-topic-arn":        {n.TopicARN},
		"x-amz-sns-subscription-arn": {t.SubscriptionARN},
	}
	if t.Raw {
		h["x-amz-sns-rawdelivery"] = []string{"true"}
	}
	return d.post(ctx, &t, h, body)
}

// SendConfirmation posts a SubscriptionConfirmation with token and
// subscribeURL ("" builds it under the public URL) to t.
func (d *Deliverer) SendConfirmation(ctx context.Context, t Target, token, subscribeURL string) error {
	return d.SendConfirmationMessage(ctx, t, TypeSubscriptionConfirmation, Confirmation{Token: token, SubscribeURL: subscribeURL})
}

// SendUnsubscribeConfirmation posts an UnsubscribeConfirmation, whose
// SubscribeURL subscribes the endpoint again, to t.
func (d *Deliverer) SendUnsubscribeConfirmation(ctx context.Context, t Target, token, subscribeURL string) error {
	return d.SendConfirmationMessage(ctx, t, TypeUnsubscribeConfirmation, Confirmation{Token: token, SubscribeURL: subscribeURL})
}

// SendConfirmationMessage posts a confirmation of type typ with c's fields
// (TopicARN, SubscriptionARN and SubscribeURL default from t).
func (d *Deliverer) SendConfirmationMessage(ctx context.Context, t Target, typ string, c Confirmation) error {
	if typ != TypeSubscriptionConfirmation && typ != TypeUnsubscribeConfirmation {
		return fmt.Errorf("snshttp: %q is not a confirmation type", typ)
	}
	if c.TopicARN == "" {
		c.TopicARN = t.topicARN()
	}
	if c.SubscriptionARN == "" {
		c.SubscriptionARN = t.SubscriptionARN
	}
	if c.SubscribeURL == "" {
		c.SubscribeURL = SubscribeURL(d.publicURL(&t), c.TopicARN, c.Token)
	}
	body, id, err := d.enc.Confirmation(typ, c, t.SignatureVersion, d.publicURL(&t))
	if err != nil {
		return err
	}
	h := http.Header{
		"x-amz-sns-message-type": {typ},
		"x-amz-sns-message-id":   {id},
		"x-amz-sns-topic-arn":    {c.TopicARN},
	}
	if typ == TypeUnsubscribeConfirmation {
		h["x-amz-sns-subscription-arn"] = []string{c.SubscriptionARN}
	}
	return d.post(ctx, &t, h, body)
}

// post makes one bounded, timed attempt.
func (d *Deliverer) post(ctx context.Context, t *Target, h http.Header, body []byte) error {
	u, err := url.Parse(t.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if err == nil {
			err = errors.New("not an http or https URL")
		}
		return &DeliveryError{Outcome: Rejected, Endpoint: t.Endpoint, Err: err}
	}
	hostKey := u.Scheme + "://" + strings.ToLower(u.Host)

	release, err := d.hosts.acquire(ctx, hostKey, d.cfg.HostWait)
	if err != nil {
		if errors.Is(err, ErrHostBusy) {
			return &DeliveryError{Outcome: Failed, Endpoint: t.Endpoint, Err: err}
		}
		return err
	}
	defer release()
	select {
	case d.global <- struct{}{}:
		defer func() { <-d.global }()
	case <-ctx.Done():
		return ctx.Err()
	}

	actx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, t.Endpoint, bytes.NewReader(body))
	if err != nil {
		return &DeliveryError{Outcome: Rejected, Endpoint: t.Endpoint, Err: err}
	}
	ct := t.ContentType
	if ct == "" {
		ct = DefaultContentType
	}
	h["Content-Type"] = []string{ct}
	h["User-Agent"] = []string{d.cfg.UserAgent}
	req.Header = h

	resp, err := d.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // the caller gave up; not the endpoint's fault
		}
		return &DeliveryError{Outcome: Failed, Endpoint: t.Endpoint, Err: err}
	}
	// Drain a little so the connection can be reused; a large or slow body
	// is cut off by the attempt's timeout or the limit.
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseDrain))
	resp.Body.Close()

	outcome := Classify(resp.StatusCode)
	if resp.StatusCode == http.StatusTooManyRequests && d.cfg.Retry429 {
		outcome = Failed
	}
	if outcome == Delivered {
		return nil
	}
	return &DeliveryError{Outcome: outcome, Status: resp.StatusCode, Endpoint: t.Endpoint}
}
