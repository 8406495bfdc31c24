package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/heraldmq/herald/limits"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/internal/reqscheme"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/ws"
)

// websocketHandler builds the /v1/ws gateway: identities established as
// for the HTTP API (tokens, or SigV4 presigned URLs), live fan-out through
// events, queue push through the SQS service in the client's account.
func websocketHandler(cfg wsConfig, engine string, creds credentials, grants accountGrants, svc *cache.Service, events cache.Events, queues *queueService, rollups *rollup.Service, awsCfg awsConfig, limiter *limits.Limiter, log *slog.Logger) (*ws.Handler, error) {
	anonymous := cfg.anonymous == "true"
	switch cfg.anonymous {
	case "auto":
		anonymous = engine == "embedded" && !creds.configured()
	case "true", "false":
	default:
		return nil, fmt.Errorf("--ws-anonymous %q: want auto, true or false", cfg.anonymous)
	}
	ident := creds.identifierFor(grants, awsCfg.account, anonymous)
	return ws.NewHandler(ws.Config{
		Cache: svc, Events: events, Limits: limiter,
		Authenticate: func(r *http.Request) (access.Identity, error) {
			return ident.Identify(r, 0)
		},
		NewQueuePush:     queuePush(queues.svc, awsCfg.account),
		Rollups:          rollups,
		MaxFrameBytes:    int64(cfg.maxFrameBytes),
		SendQueueBytes:   cfg.sendQueueBytes,
		MaxSubscriptions: cfg.maxSubscriptions,
		RecoverLimit:     cfg.recoverLimit,
		MaxRecoverLimit:  cfg.maxRecoverLimit,
		RecoverOverlap:   cfg.overlap(),
		PingInterval:     cfg.pingInterval,
		WriteTimeout:     cfg.writeTimeout,
		ReadBufferBytes:  cfg.readBufferBytes,
		WriteBufferBytes: cfg.writeBufferBytes,
		Logger:           log,
	}), nil
}

// queuePush pushes a device's SQS queue over its WebSocket. A queue named
// by URL is looked up by that URL (so another account's queue is refused
// by the SQS service, as the SQS API refuses it); a bare name is a queue
// of the device's account.
func queuePush(api sqs.API, defaultAccount string) ws.NewQueuePushFunc {
	return func(ctx context.Context, id access.Identity, queueName string, vt, maxInFlight int, send func(frame any) error) (ws.QueuePush, error) {
		name := queueName
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if !id.Grants.CanQueue(name) {
			return nil, ws.ErrForbidden
		}
		account := id.Account
		if account == "" {
			account = defaultAccount
		}
		scheme, host := requestOrigin(ctx)
		caller := sqs.Caller{Account: account, SenderID: "websocket:" + id.Subject, Scheme: scheme, Host: host}
		// A URL names its queue (the push checks, as a ReceiveMessage
		// would be checked, that the device may receive from it); a bare
		// name is the device's own account's queue.
		var url string
		if _, owner, qname, err := sqs.ParseQueueURL(queueName); err == nil && strings.Contains(queueName, "/") {
			url = sqs.QueueURL(scheme, host, owner, qname)
		} else {
			var err error
			if url, err = api.GetQueueURL(ctx, caller, sqs.GetQueueURLInput{QueueName: name}); err != nil {
				return nil, queueError(err, queueName)
			}
		}
		qp, err := ws.NewSQSQueuePush(api, caller, url, vt, maxInFlight, send)
		if err != nil {
			return nil, queueError(err, queueName)
		}
		return qp, nil
	}
}

// loadPublicKeys reads PEM public keys from comma-separated files.
func loadPublicKeys(files string) ([]crypto.PublicKey, error) {
	var keys []crypto.PublicKey
	for _, f := range strings.Split(files, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--ws-jwt-public-keys: %w", err)
		}
		block, _ := pem.Decode(raw)
		if block == nil {
			return nil, fmt.Errorf("--ws-jwt-public-keys: %s holds no PEM block", f)
		}
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("--ws-jwt-public-keys: %s: %w", f, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// originKey is the context key of a WebSocket upgrade request's origin.
type originKey struct{}

// origin is the scheme and Host of a request.
type origin struct{ scheme, host string }

// withRequestOrigin hands the scheme and Host of each WebSocket upgrade
// request to queuePush, so that queue_message frames name a queue by the
// URL the SQS API gives a client of the same address.
func withRequestOrigin(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), originKey{}, origin{reqscheme.Of(r), r.Host})))
	})
}

// requestOrigin returns the scheme and host withRequestOrigin recorded in
// ctx, or http and localhost without one.
func requestOrigin(ctx context.Context) (scheme, host string) {
	if o, ok := ctx.Value(originKey{}).(origin); ok && o.host != "" {
		return o.scheme, o.host
	}
	return "http", "localhost"
}

// queueError maps an SQS error about queue (as the client named it) to
// the domain codes the gateway reports.
func queueError(err error, queue string) error {
	var se *sqs.Error
	if !errors.As(err, &se) {
		return err
	}
	switch {
	case se.Code == sqs.CodeQueueDoesNotExist:
		return herald.Errorf(herald.ENotFound, "queue %s does not exist in this account", herald.Clip(queue))
	case se.Code == sqs.CodeAccessDenied:
		return herald.Errorf(herald.EForbidden, "%s", se.Message)
	case se.Sender:
		return herald.Errorf(herald.EInvalid, "%s", se.Message)
	default:
		return herald.Unavailable("queue", err)
	}
}

// registerWSMetrics exposes the WebSocket gateway's counters on /metrics.
func registerWSMetrics(reg prometheus.Registerer, st *ws.Stats) {
	gauge, counter := metrics.Gauge, metrics.Counter
	const closed = "herald_ws_closed_total"
	const closedHelp = "WebSocket connections closed by the server, by reason: auth_failed (4501), slow_consumer (4008), missed_pong (4004), write_timeout (a write stuck for the write timeout), over_quota (4010)."
	reg.MustRegister(
		gauge("herald_ws_connections", "WebSocket connections open.", &st.Connections),
		gauge("herald_ws_subscriptions", "Pattern subscriptions open on WebSocket connections.", &st.Subscriptions),
		counter("herald_ws_connections_total", "WebSocket connections accepted.", nil, &st.Accepted),
		counter("herald_ws_frames_sent_total", "Frames written to WebSocket clients.", nil, &st.FramesSent),
		counter(closed, closedHelp, prometheus.Labels{"reason": "auth_failed"}, &st.AuthFailures),
		counter(closed, closedHelp, prometheus.Labels{"reason": "slow_consumer"}, &st.SlowConsumers),
		counter(closed, closedHelp, prometheus.Labels{"reason": "missed_pong"}, &st.MissedPongs),
		counter(closed, closedHelp, prometheus.Labels{"reason": "write_timeout"}, &st.WriteTimeouts),
		counter(closed, closedHelp, prometheus.Labels{"reason": "over_quota"}, &st.OverQuota),
		counter(closed, closedHelp, prometheus.Labels{"reason": "events_interrupted"}, &st.EventsInterrupted),
	)
}
