// Package client is a Go client for Herald's JSON HTTP API. The herald CLI's
// client commands, the end-to-end tests and the load generator use it.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmq/herald/api"
)

// Client talks to one Herald server.
type Client struct {
	base string
	http *http.Client
}

// New returns a client for the server at baseURL (e.g.
// http://127.0.0.1:4566). A nil httpClient uses http.DefaultClient.
func New(baseURL string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), http: httpClient}
}

// Error is an error answer from the server.
type Error struct {
	Status int
	api.ErrorBody
}

func (e *Error) Error() string {
	return fmt.Sprintf("herald: %d %s: %s", e.Status, e.Code, e.Message)
}

// Put stores one message. created is false when its message_uuid was
// already stored.
func (c *Client) Put(ctx context.Context, req api.PutRequest) (resp api.PutResponse, created bool, err error) {
	status, err := c.do(ctx, http.MethodPost, "/v1/messages", nil, req, &resp)
	return resp, status == http.StatusCreated, err
}

// PutJSON stores one message already encoded as a PutRequest JSON document,
// for producers that build their JSON themselves (and load generators).
func (c *Client) PutJSON(ctx context.Context, doc []byte) (resp api.PutResponse, created bool, err error) {
	status, err := c.do(ctx, http.MethodPost, "/v1/messages", nil, json.RawMessage(doc), &resp)
	return resp, status == http.StatusCreated, err
}

// PutBatch stores up to the server's batch limit of messages.
func (c *Client) PutBatch(ctx context.Context, reqs []api.PutRequest) (api.BatchResponse, error) {
	var batch api.BatchRequest
	for _, r := range reqs {
		raw, err := json.Marshal(r)
		if err != nil {
			return api.BatchResponse{}, err
		}
		batch.Messages = append(batch.Messages, raw)
	}
	var resp api.BatchResponse
	_, err := c.do(ctx, http.MethodPost, "/v1/messages:batch", nil, batch, &resp)
	return resp, err
}

// Get returns one message by its message_uuid.
func (c *Client) Get(ctx context.Context, id string) (api.Message, error) {
	var m api.Message
	_, err := c.do(ctx, http.MethodGet, "/v1/messages/"+url.PathEscape(id), nil, nil, &m)
	return m, err
}

// PageOptions selects a page of a query.
type PageOptions struct {
	Limit  int    // 0 for the server's default
	Cursor string // "" for the first page
}

func (o PageOptions) values() url.Values {
	q := url.Values{}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	return q
}

// Latest returns the latest message of every path matching pattern.
func (c *Client) Latest(ctx context.Context, pattern string, page PageOptions) (api.LatestResponse, error) {
	q := page.values()
	q.Set("pattern", pattern)
	var resp api.LatestResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/latest", q, nil, &resp)
	return resp, err
}

// All returns the messages of one path, newest first.
func (c *Client) All(ctx context.Context, path string, page PageOptions) (api.MessagesResponse, error) {
	q := page.values()
	q.Set("path", path)
	var resp api.MessagesResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/all", q, nil, &resp)
	return resp, err
}

// Journal returns the messages received in [from, to), oldest first.
func (c *Client) Journal(ctx context.Context, from, to time.Time, page PageOptions) (api.MessagesResponse, error) {
	q := page.values()
	q.Set("from", from.UTC().Format(time.RFC3339Nano))
	q.Set("to", to.UTC().Format(time.RFC3339Nano))
	var resp api.MessagesResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/journal", q, nil, &resp)
	return resp, err
}

// Paths returns the complete paths at or below prefix.
func (c *Client) Paths(ctx context.Context, prefix string, page PageOptions) (api.PathsResponse, error) {
	q := page.values()
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	var resp api.PathsResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/paths", q, nil, &resp)
	return resp, err
}

// do sends one request and decodes a JSON answer into out, or returns the
// server's error as an *Error.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, in, out any) (int, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var body io.Reader
	switch in := in.(type) {
	case nil:
	case json.RawMessage:
		body = bytes.NewReader(in)
	default:
		raw, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return 0, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		var e api.ErrorResponse
		if json.Unmarshal(raw, &e) != nil || e.Error.Code == "" {
			e.Error = api.ErrorBody{Code: "http_" + strconv.Itoa(resp.StatusCode), Message: strings.TrimSpace(string(raw))}
		}
		return resp.StatusCode, &Error{Status: resp.StatusCode, ErrorBody: e.Error}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("herald: cannot decode the answer: %w", err)
		}
	}
	return resp.StatusCode, nil
}
