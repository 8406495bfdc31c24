package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/heraldmq/herald/api"
)

// The admin API (docs/http-api.md, "Admin API and the console"): the
// caller's queues and topics as the console shows them. Like every /v1/
// call it acts as the client's identity, so it sees that account only.

// The admin API's documents (package api), under the names the client
// has always used.
type (
	Queue          = api.AdminQueue
	QueuesResponse = api.AdminQueues
	Subscription   = api.AdminSubscription
	Topic          = api.AdminTopic
	TopicsResponse = api.AdminTopics
	PeekedMessage  = api.PeekedMessage
	PeekResponse   = api.Peek
	ReindexResult  = api.Reindex
	DataCenters    = api.DataCenters
)

// Queues lists the caller's queues with their message counts.
func (c *Client) Queues(ctx context.Context) (QueuesResponse, error) {
	var resp QueuesResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/admin/queues", nil, nil, &resp)
	return resp, err
}

// Topics lists the caller's topics with their subscriptions.
func (c *Client) Topics(ctx context.Context) (TopicsResponse, error) {
	var resp TopicsResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/admin/topics", nil, nil, &resp)
	return resp, err
}

// Peek returns up to limit of queue's oldest messages without receiving
// them: their receive counts and visibility do not change. limit 0 is the
// server's default (10); the server allows at most 100.
func (c *Client) Peek(ctx context.Context, queue string, limit int) (PeekResponse, error) {
	var q url.Values
	if limit > 0 {
		q = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	var resp PeekResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/admin/queues/"+url.PathEscape(queue)+"/peek", q, nil, &resp)
	return resp, err
}

// Reindex bumps the index epoch of the server's data center: every node
// of it rebuilds each queue's Redis state from the store on next use. Only
// the operator account (the server's --aws-account) may.
func (c *Client) Reindex(ctx context.Context) (ReindexResult, error) {
	var resp ReindexResult
	_, err := c.do(ctx, http.MethodPost, "/v1/admin/sqs/reindex", nil, nil, &resp)
	return resp, err
}

// DataCenters shows the server's data center and the fenced ones.
func (c *Client) DataCenters(ctx context.Context) (DataCenters, error) {
	var resp DataCenters
	_, err := c.do(ctx, http.MethodGet, "/v1/admin/dc", nil, nil, &resp)
	return resp, err
}

// FenceDC takes data center dc out of service after its loss: the
// server's data center serves its queues from now on. Only the operator
// account may, and only once dc is really down (docs/operations.md).
func (c *Client) FenceDC(ctx context.Context, dc string) (DataCenters, error) {
	var resp DataCenters
	_, err := c.do(ctx, http.MethodPost, "/v1/admin/dc/fence", nil, api.DataCenter{DC: dc}, &resp)
	return resp, err
}

// UnfenceDC gives fenced data center dc its queues back; it returns once
// every node has switched (some seconds). Only the operator account may.
func (c *Client) UnfenceDC(ctx context.Context, dc string) (DataCenters, error) {
	var resp DataCenters
	_, err := c.do(ctx, http.MethodPost, "/v1/admin/dc/unfence", nil, api.DataCenter{DC: dc}, &resp)
	return resp, err
}
