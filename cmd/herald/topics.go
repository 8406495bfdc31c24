package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/internal/uuidv1"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snshttp"
)

// topicService is the SNS service wired to the engine, the queue service
// (its internal queues and sqs deliveries), the message cache (path
// deliveries) and the HTTP deliverer.
type topicService struct {
	svc      *sns.Service
	signer   *snshttp.Signer
	delivery *snshttp.Deliverer
}

// openTopics builds the SNS service. Notifications are signed with a key
// from --sns-signing-key-file/--sns-signing-cert-file, or with one Herald
// creates and keeps in the data directory (every node of a cluster must
// share one: configure the files there).
func openTopics(e *engine, cacheSvc *cache.Service, grants func(account string) access.Grants, queues *queueService, rollups *rollup.Service, cfg awsConfig, notify snsNotifyConfig, dataDir string, log *slog.Logger) (*topicService, error) {
	signer, err := loadSigner(cfg, dataDir)
	if err != nil {
		return nil, err
	}
	d, err := snshttp.New(snshttp.Config{Signer: signer})
	if err != nil {
		return nil, err
	}
	mailer, sms, err := notify.senders()
	if err != nil {
		return nil, err
	}
	push, err := notify.pushGateway()
	if err != nil {
		return nil, err
	}
	var ingester sns.RollupIngester // nil unless there are rollups (a nil *rollup.Service is not)
	if rollups != nil {
		ingester = rollups
	}
	svc := sns.NewService(e.topics, sns.Config{
		Region: cfg.region, Logger: log, Queues: queues.svc, Rollups: ingester,
		HTTP:     httpDeliverer{d},
		Paths:    cachePaths{cacheSvc, grants},
		Envelope: signedEnvelope(d),
		Mail:     mailer,
		SMS:      sms,
		Push:     push,
		// A job a dead node held comes back after its visibility timeout;
		// workers extend it while they are busy, so it can be short.
		PublishVisibility:  15 * time.Second,
		DeliveryVisibility: 30 * time.Second,
		Workers:            cfg.snsWorkers,
		Parallelism:        cfg.snsParallelism,
	})
	return &topicService{svc: svc, signer: signer, delivery: d}, nil
}

func loadSigner(cfg awsConfig, dataDir string) (*snshttp.Signer, error) {
	if cfg.snsKeyFile != "" || cfg.snsCertFile != "" {
		key, err := os.ReadFile(cfg.snsKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--sns-signing-key-file: %w", err)
		}
		cert, err := os.ReadFile(cfg.snsCertFile)
		if err != nil {
			return nil, fmt.Errorf("--sns-signing-cert-file: %w", err)
		}
		return snshttp.NewSigner(key, cert)
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	return snshttp.LoadOrCreateSigner(dataDir)
}

func (t *topicService) run(ctx context.Context) { t.svc.Run(ctx) }

func (t *topicService) close() {
	t.svc.Close()
	t.delivery.Close()
}

// httpDeliverer adapts snshttp's Deliverer to the Service's HTTPDeliverer.
type httpDeliverer struct{ d *snshttp.Deliverer }

func target(t sns.Target) snshttp.Target {
	return snshttp.Target{SubscriptionARN: t.SubscriptionARN, TopicARN: t.TopicARN, Endpoint: t.Endpoint, Raw: t.Raw,
		SignatureVersion: t.SignatureVersion, ContentType: t.ContentType, PublicURL: t.PublicURL()}
}

func (h httpDeliverer) Deliver(ctx context.Context, t sns.Target, n sns.Notification) error {
	return h.d.Deliver(ctx, target(t), n)
}

func (h httpDeliverer) SendConfirmation(ctx context.Context, t sns.Target, c sns.Confirmation) error {
	return h.d.SendConfirmationMessage(ctx, target(t), snshttp.TypeSubscriptionConfirmation, snshttp.Confirmation{
		TopicARN: c.TopicARN, Token: c.Token, SubscribeURL: c.SubscribeURL, MessageID: c.MessageID, Timestamp: c.Timestamp})
}

// signedEnvelope builds the signed JSON envelope queues get for a
// notification that is not raw, as AWS sends it.
func signedEnvelope(d *snshttp.Deliverer) sns.Enveloper {
	return func(t sns.Target, n sns.Notification) (string, error) {
		b, err := d.Encoder().Notification(&n, t.SubscriptionARN, t.SignatureVersion, t.PublicURL())
		return string(b), err
	}
}

// cachePaths stores notifications in the message cache for path
// subscriptions. The cache message id is derived from the SNS message id
// and the path, so a delivery that runs twice stores the message once. A
// topic writes with the grants of its account's access keys.
type cachePaths struct {
	c      *cache.Service
	grants func(account string) access.Grants
}

func (p cachePaths) PutNotification(ctx context.Context, path string, n sns.Notification) error {
	meta, err := sns.PathMetadata(path, n)
	if err != nil {
		return err
	}
	_, account, _, err := sns.ParseTopicARN(n.TopicARN, "TopicArn")
	if err != nil {
		return err
	}
	ctx = access.WithIdentity(ctx, access.Identity{Account: account, Subject: n.TopicARN, Grants: p.grants(account)})
	id := uuidv1.Stable(n.MessageID+"\x00"+path, n.Timestamp)
	_, _, err = p.c.Put(ctx, cache.PutInput{MessageID: id.String(), Metadata: meta, Body: []byte(n.Message)})
	return err
}

// registerSNSMetrics exposes the SNS service's delivery counters on
// /metrics as herald_sns_deliveries_total{outcome=...} and
// herald_sns_published_total.
func registerSNSMetrics(reg prometheus.Registerer, st *sns.Stats) {
	const deliveries = "herald_sns_deliveries_total"
	const help = "SNS deliveries to subscriptions by outcome: delivered, filtered (read, then skipped by its filter policy; subscriptions the filter index leaves unread are not counted), retried (a failed attempt scheduled again), throttled (queued again for its turn under a throttle policy), dead_lettered, dropped."
	reg.MustRegister(
		metrics.Counter("herald_sns_published_total", "SNS publish jobs expanded into deliveries.", nil, &st.Published),
		metrics.Outcome(deliveries, help, "delivered", &st.Delivered),
		metrics.Outcome(deliveries, help, "filtered", &st.Filtered),
		metrics.Outcome(deliveries, help, "retried", &st.Retried),
		metrics.Outcome(deliveries, help, "throttled", &st.Throttled),
		metrics.Outcome(deliveries, help, "dead_lettered", &st.DeadLettered),
		metrics.Outcome(deliveries, help, "dropped", &st.Dropped),
		metrics.Counter("herald_sns_continuations_total", "SNS publish jobs of large topics handed over to a continuation after 10 chunks.", nil, &st.Continued),
		metrics.Counter("herald_sns_subscriptions_read_total", "Subscriptions the fan-outs of standard topics read and tested: with the filter index, those under the keys the messages carry (docs/sns.md).", nil, &st.Tested),
		metrics.Counter("herald_sns_confirmations_failed_total", "Subscription confirmations given up after their attempts (an email subscription on a server without --smtp-addr, an endpoint that never answered): the subscription stays pending.", nil, &st.ConfirmationsFailed),
		metrics.Counter("herald_sns_forged_jobs_total", "Jobs on Herald's internal SNS queues refused for a missing or wrong seal (docs/security.md).", nil, &st.Forged),
	)
}
