package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Rollup calls (docs/rollups.md). Answers are returned as the server's
// JSON, for the caller to decode or print.

// PutRollup defines or replaces rollup name; created is true for a new one.
func (c *Client) PutRollup(ctx context.Context, name string, def json.RawMessage) (json.RawMessage, bool, error) {
	var out json.RawMessage
	st, err := c.do(ctx, http.MethodPut, "/v1/rollups/"+url.PathEscape(name), nil, def, &out)
	return out, st == http.StatusCreated, err
}

// GetRollup returns a rollup's definition.
func (c *Client) GetRollup(ctx context.Context, name string) (json.RawMessage, error) {
	var out json.RawMessage
	_, err := c.do(ctx, http.MethodGet, "/v1/rollups/"+url.PathEscape(name), nil, nil, &out)
	return out, err
}

// ListRollups returns a page of the caller's rollups.
func (c *Client) ListRollups(ctx context.Context, after string, limit int) (json.RawMessage, error) {
	q := url.Values{}
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out json.RawMessage
	_, err := c.do(ctx, http.MethodGet, "/v1/rollups", q, nil, &out)
	return out, err
}

// DeleteRollup forgets a rollup and its counts.
func (c *Client) DeleteRollup(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, "/v1/rollups/"+url.PathEscape(name), nil, nil, nil)
	return err
}

// SendRollupEvents counts the events of body (an object or an array).
func (c *Client) SendRollupEvents(ctx context.Context, name string, body json.RawMessage) (json.RawMessage, error) {
	var out json.RawMessage
	_, err := c.do(ctx, http.MethodPost, "/v1/rollups/"+url.PathEscape(name)+"/events", nil, body, &out)
	return out, err
}

// BackfillRollup fills the parts a cache-fed rollup gained from the
// messages the cache stored in [from, to) (POST .../backfill); a zero
// start fills those of the newest start.
func (c *Client) BackfillRollup(ctx context.Context, name string, from, to, start time.Time) (json.RawMessage, error) {
	req := map[string]string{"from": from.UTC().Format(time.RFC3339Nano), "to": to.UTC().Format(time.RFC3339Nano)}
	if !start.IsZero() {
		req["start"] = start.UTC().Format(time.RFC3339Nano)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	_, err = c.do(ctx, http.MethodPost, "/v1/rollups/"+url.PathEscape(name)+"/backfill", nil, json.RawMessage(body), &out)
	return out, err
}

// QueryRollup runs a series, totals or top query with the given
// parameters.
func (c *Client) QueryRollup(ctx context.Context, name, kind string, q url.Values) (json.RawMessage, error) {
	var out json.RawMessage
	_, err := c.do(ctx, http.MethodGet, "/v1/rollups/"+url.PathEscape(name)+"/"+kind, q, nil, &out)
	return out, err
}
