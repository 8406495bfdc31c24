package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/internal/reqscheme"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// The admin API (docs/http-api.md, "Admin API") is what the console at "/"
// reads and does; scripts may call it too. It acts through the SQS and SNS
// services as the request's identity (established like every /v1/ route),
// so those services authorize each action exactly as they do for the AWS
// APIs: an identity sees and changes only its own account's queues and
// topics.

// Admin bounds.
const (
	adminMaxQueues   = 200 // queues one page of the listing reads (with their counts)
	adminMaxTopics   = 100 // topics one listing reads (with their subscriptions)
	adminMaxSubs     = 100 // subscriptions shown per topic
	adminMaxBodySize = 256 << 10
)

// NodeInfo describes this Herald node for the console.
type NodeInfo struct {
	Version string    `json:"version"`
	Engine  string    `json:"engine"`
	Started time.Time `json:"started"`
	Region  string    `json:"region"`
}

// QueueAdmin is what the admin API needs of the queue service: its API and
// a look at a queue's messages that receives none (sqs.Service).
type QueueAdmin interface {
	sqs.API
	PeekMessages(ctx context.Context, c sqs.Caller, in sqs.PeekMessagesInput) ([]*sqs.Message, error)
	QueueActivity(ctx context.Context, c sqs.Caller, queueURL string) (sqs.QueueActivity, error)
	// Reindex bumps the index epoch of the node's data center (for the
	// operator account's callers only; the service decides).
	Reindex(ctx context.Context, c sqs.Caller) (uint64, error)
	// DCStatus, FenceDC and UnfenceDC show and move the data centers'
	// queues (sqs/dc.go; the operator account's callers only).
	DCStatus(ctx context.Context, c sqs.Caller) (sqs.DCStatus, error)
	FenceDC(ctx context.Context, c sqs.Caller, dc string) (sqs.DCStatus, error)
	UnfenceDC(ctx context.Context, c sqs.Caller, dc string) (sqs.DCStatus, error)
}

// TopicAdmin is what the admin API needs of the topic service: its API and
// the delivery counts of a subscription (sns.Service).
type TopicAdmin interface {
	sns.API
	SubscriptionDeliveries(ctx context.Context, c sqs.Caller, arn string) (sns.SubscriptionDeliveries, error)
}

// admin is the admin API's state.
type admin struct {
	queues QueueAdmin
	topics TopicAdmin // nil: no topics
	node   NodeInfo
}

// SetAdmin serves the admin API over queues and topics (topics may be nil).
func (s *Server) SetAdmin(queues QueueAdmin, topics TopicAdmin, node NodeInfo) {
	a := &admin{queues: queues, topics: topics, node: node}
	s.route("/v1/admin/node", methods{http.MethodGet: s.adminNode(a)})
	s.route("/v1/admin/queues", methods{http.MethodGet: s.adminQueues(a)})
	s.route("/v1/admin/queues/{name}/messages", methods{http.MethodPost: s.adminSend(a)})
	s.route("/v1/admin/queues/{name}/purge", methods{http.MethodPost: s.adminPurge(a)})
	s.route("/v1/admin/queues/{name}/peek", methods{http.MethodGet: s.adminPeek(a)})
	s.route("/v1/admin/queues/{name}/redrive", methods{http.MethodPost: s.adminRedrive(a)})
	s.route("/v1/admin/sqs/reindex", methods{http.MethodPost: s.adminReindex(a)})
	s.route("/v1/admin/dc", methods{http.MethodGet: s.adminDC(a, nil)})
	s.route("/v1/admin/dc/fence", methods{http.MethodPost: s.adminDC(a, a.queues.FenceDC)})
	s.route("/v1/admin/dc/unfence", methods{http.MethodPost: s.adminDC(a, a.queues.UnfenceDC)})
	s.route("/v1/admin/topics/publish", methods{http.MethodPost: s.adminPublish(a)})
	s.route("/v1/admin/topics", methods{http.MethodGet: s.adminTopics(a)})
}

// adminCaller is the request's identity as the SQS and SNS services see
// their caller.
func adminCaller(r *http.Request) sqs.Caller {
	id, _ := access.FromContext(r.Context())
	return sqs.Caller{Account: id.Account, SenderID: "console:" + id.Subject, Scheme: reqscheme.Of(r), Host: r.Host}
}

// adminError turns an SQS or SNS error into Herald's error shape.
func adminError(err error) error {
	var qe *sqs.Error
	var te *sns.Error
	status, msg := 0, ""
	switch {
	case errors.As(err, &qe):
		status, msg = qe.Status, qe.Code+": "+qe.Message
		if qe.Code == sqs.CodeQueueDoesNotExist {
			status = http.StatusNotFound
		}
	case errors.As(err, &te):
		status, msg = te.Status, te.Code+": "+te.Message
	default:
		return err
	}
	code := herald.EInternal
	switch {
	case status == http.StatusNotFound:
		code = herald.ENotFound
	case status == http.StatusForbidden:
		code = herald.EForbidden
	case status == http.StatusServiceUnavailable:
		code = herald.EUnavailable
	case status >= 400 && status < 500:
		code = herald.EInvalid
	}
	return herald.Errorf(code, "%s", msg)
}

func (s *Server) adminNode(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		out := map[string]any{"node": a.node, "uptime_seconds": int64(time.Since(a.node.Started).Seconds()),
			"components": s.components(), "figures": s.metrics.Summary()}
		writeJSON(w, http.StatusOK, out)
	}
}

// adminQueues lists a page of up to adminMaxQueues of the caller's queues
// with their counts, in name order: those whose names start with the
// `prefix` parameter, from the page `next` names (a previous answer's
// Next). One ListQueues call, so a page costs the same among a million
// queues.
func (s *Server) adminQueues(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := adminCaller(r)
		ctx := r.Context()
		q := r.URL.Query()
		in := sqs.ListQueuesInput{MaxResults: ptrInt(adminMaxQueues), QueueNamePrefix: q.Get("prefix"), NextToken: q.Get("next")}
		out, err := a.queues.ListQueues(ctx, c, in)
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		views := make([]api.AdminQueue, 0, len(out.QueueURLs))
		for _, u := range out.QueueURLs {
			v, err := queueView(ctx, a.queues, c, u)
			if err != nil {
				if herald.ErrorCode(adminError(err)) == herald.ENotFound {
					continue // deleted meanwhile
				}
				writeError(w, r, s.log, adminError(err))
				return
			}
			views = append(views, v)
		}
		sort.Slice(views, func(i, j int) bool { return views[i].Name < views[j].Name })
		writeJSON(w, http.StatusOK, api.AdminQueues{Queues: views, Truncated: out.NextToken != "", Next: out.NextToken})
	}
}

// queueView reads one queue's attributes, counts and activity.
func queueView(ctx context.Context, q QueueAdmin, c sqs.Caller, url string) (api.AdminQueue, error) {
	attrs, err := q.GetQueueAttributes(ctx, c, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: []string{"All"}})
	if err != nil {
		return api.AdminQueue{}, err
	}
	_, _, name, _ := sqs.ParseQueueURL(url)
	n := func(k string) int64 { v, _ := strconv.ParseInt(attrs[k], 10, 64); return v }
	v := api.AdminQueue{
		Name: name, URL: url, ARN: attrs["QueueArn"], FIFO: attrs["FifoQueue"] == "true",
		Visible: n("ApproximateNumberOfMessages"), InFlight: n("ApproximateNumberOfMessagesNotVisible"),
		Delayed: n("ApproximateNumberOfMessagesDelayed"), Attributes: attrs,
	}
	act, err := q.QueueActivity(ctx, c, url)
	if err != nil {
		return api.AdminQueue{}, err
	}
	v.OldestAgeSeconds, v.Sent, v.Received, v.Deleted = act.OldestAge.Seconds(), act.Sent, act.Received, act.Deleted
	if rp := attrs["RedrivePolicy"]; rp != "" {
		if p, err := sqs.ParseRedrivePolicy(rp, sqs.DefaultLimits()); err == nil {
			v.DeadLetterTarget = p.DeadLetterTargetARN
		}
	}
	return v, nil
}

// queueURLOf is the URL of the caller's queue name.
func queueURLOf(ctx context.Context, q QueueAdmin, c sqs.Caller, name string) (string, error) {
	return q.GetQueueURL(ctx, c, sqs.GetQueueURLInput{QueueName: name})
}

func (s *Server) adminSend(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := adminCaller(r)
		body, err := readBody(w, r, adminMaxBodySize)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		var in struct {
			Body  string  `json:"body"`
			Group *string `json:"group,omitempty"`
		}
		if err := decodeAdmin(body, &in); err != nil {
			writeError(w, r, s.log, err)
			return
		}
		url, err := queueURLOf(r.Context(), a.queues, c, r.PathValue("name"))
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		send := sqs.SendMessageInput{QueueURL: url, MessageBody: in.Body, MessageGroupID: in.Group}
		if in.Group != nil {
			dedup := strconv.FormatInt(time.Now().UnixNano(), 36)
			send.MessageDeduplicationID = &dedup
		}
		out, err := a.queues.SendMessage(r.Context(), c, send)
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"message_id": out.MessageID})
	}
}

func (s *Server) adminPurge(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := adminCaller(r)
		url, err := queueURLOf(r.Context(), a.queues, c, r.PathValue("name"))
		if err == nil {
			err = a.queues.PurgeQueue(r.Context(), c, url)
		}
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"purged": r.PathValue("name")})
	}
}

// adminReindex bumps the index epoch of this node's data center, so that
// every queue's Redis state there is rebuilt from the Store on next use
// (after a fail-over and switch-back; docs/deploy.md).
func (s *Server) adminReindex(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		epoch, err := a.queues.Reindex(r.Context(), adminCaller(r))
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		writeJSON(w, http.StatusOK, api.Reindex{Epoch: epoch})
	}
}

// adminRedrive starts a move task taking the messages of the dead-letter
// queue {name} back to the queues they came from (StartMessageMoveTask).
func (s *Server) adminRedrive(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := adminCaller(r)
		ctx := r.Context()
		url, err := queueURLOf(ctx, a.queues, c, r.PathValue("name"))
		var attrs map[string]string
		if err == nil {
			attrs, err = a.queues.GetQueueAttributes(ctx, c, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: []string{"QueueArn"}})
		}
		var handle string
		if err == nil {
			handle, err = a.queues.StartMessageMoveTask(ctx, c, sqs.StartMessageMoveTaskInput{SourceARN: attrs["QueueArn"]})
		}
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"task_handle": handle})
	}
}

// adminPublish publishes a message to a topic.
func (s *Server) adminPublish(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.topics == nil {
			writeError(w, r, s.log, herald.Errorf(herald.ENotFound, "this server has no topics"))
			return
		}
		body, err := readBody(w, r, adminMaxBodySize)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		var in struct {
			TopicARN string  `json:"topic_arn"`
			Message  string  `json:"message"`
			Subject  *string `json:"subject,omitempty"`
			Group    string  `json:"group,omitempty"`
		}
		if err := decodeAdmin(body, &in); err != nil {
			writeError(w, r, s.log, err)
			return
		}
		pub := sns.PublishInput{TopicARN: in.TopicARN, Message: in.Message, Subject: in.Subject, MessageGroupID: in.Group}
		if in.Group != "" {
			pub.MessageDeduplicationID = strconv.FormatInt(time.Now().UnixNano(), 36)
		}
		out, err := a.topics.Publish(r.Context(), adminCaller(r), pub)
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"message_id": out.MessageID})
	}
}

func (s *Server) adminPeek(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := adminCaller(r)
		limit := 10
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "limit: %q is not a number", herald.Clip(v)))
				return
			}
			limit = n
		}
		url, err := queueURLOf(r.Context(), a.queues, c, r.PathValue("name"))
		var msgs []*sqs.Message
		if err == nil {
			msgs, err = a.queues.PeekMessages(r.Context(), c, sqs.PeekMessagesInput{QueueURL: url, Limit: limit})
		}
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		out := make([]api.PeekedMessage, len(msgs))
		for i, m := range msgs {
			body, enc := m.Body, "text"
			if !utf8.ValidString(body) {
				body, enc = base64.StdEncoding.EncodeToString([]byte(body)), "base64"
			}
			out[i] = api.PeekedMessage{MessageID: m.ID.String(), Body: body, BodyEncoding: enc, SentAt: m.SentAt,
				ReceiveCount: m.State.ReceiveCount, VisibleAt: m.State.VisibleAt, GroupID: m.MessageGroupID}
		}
		writeJSON(w, http.StatusOK, api.Peek{Messages: out})
	}
}

func (s *Server) adminTopics(a *admin) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.topics == nil {
			writeJSON(w, http.StatusOK, api.AdminTopics{Topics: []api.AdminTopic{}})
			return
		}
		c := adminCaller(r)
		ctx := r.Context()
		var arns []string
		next := ""
		for len(arns) < adminMaxTopics {
			out, err := a.topics.ListTopics(ctx, c, next)
			if err != nil {
				writeError(w, r, s.log, adminError(err))
				return
			}
			arns = append(arns, out.TopicARNs...)
			if next = out.NextToken; next == "" {
				break
			}
		}
		if len(arns) > adminMaxTopics {
			arns = arns[:adminMaxTopics]
		}
		topicViews := make([]api.AdminTopic, 0, len(arns))
		for _, arn := range arns {
			attrs, err := a.topics.GetTopicAttributes(ctx, c, arn)
			if err != nil {
				continue // deleted meanwhile, or not readable
			}
			subs, err := a.topics.ListSubscriptionsByTopic(ctx, c, arn, "")
			if err != nil {
				writeError(w, r, s.log, adminError(err))
				return
			}
			list := subs.Subscriptions
			if len(list) > adminMaxSubs {
				list = list[:adminMaxSubs]
			}
			views := make([]api.AdminSubscription, len(list))
			for i, sub := range list {
				views[i] = api.AdminSubscription{SubscriptionARN: sub.SubscriptionARN, Owner: sub.Owner, Protocol: sub.Protocol,
					Endpoint: sub.Endpoint, TopicARN: sub.TopicARN}
				if sub.SubscriptionARN != "PendingConfirmation" {
					views[i].Attributes, _ = a.topics.GetSubscriptionAttributes(ctx, c, sub.SubscriptionARN)
					if d, err := a.topics.SubscriptionDeliveries(ctx, c, sub.SubscriptionARN); err == nil {
						views[i].Deliveries = &api.Deliveries{Delivered: d.Delivered, Retried: d.Retried, Failed: d.Failed}
					}
				}
			}
			_, _, name, _ := sns.ParseTopicARN(arn, "TopicArn")
			topicViews = append(topicViews, api.AdminTopic{ARN: arn, Name: name, Attributes: attrs, Subscriptions: views})
		}
		writeJSON(w, http.StatusOK, api.AdminTopics{Topics: topicViews, Truncated: len(arns) == adminMaxTopics})
	}
}

func ptrInt(n int) *int { return &n }

// decodeAdmin reads an admin request's JSON body into v, refusing unknown
// members and trailing data.
func decodeAdmin(body []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return herald.Errorf(herald.EInvalid, "malformed JSON body: %s", herald.Clip(err.Error()))
	}
	if d.More() {
		return herald.Errorf(herald.EInvalid, "malformed JSON body: data after the object")
	}
	return nil
}
