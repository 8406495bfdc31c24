// Package snsload measures the fan-out of an SNS-compatible server (Herald's
// SNS API): how fast and how completely one topic's publishes reach many HTTP
// subscribers, and how long one publish takes to reach every queue of a topic
// with very many SQS subscribers. `herald bench sns` is built on it.
//
// SNS is called with the AWS Query protocol (form-encoded POSTs answered in
// XML) directly over net/http; the SQS calls go through sqsload's client.
// Requests are signed with SigV4 only when access keys are given.
package snsload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// APIVersion is the SNS API version every Query request names.
const APIVersion = "2010-03-31"

// Client calls one SNS endpoint with the Query protocol, and the same
// server's SQS JSON API for the one SQS action sqsload's client lacks. It is
// safe for concurrent use.
type Client struct {
	endpoint string // the server URL with path "/"
	http     *http.Client
	signer   *v4.Signer // nil: unsigned
	creds    aws.Credentials
	region   string
}

// NewClient returns a client of the server at baseURL keeping up to
// connections idle keep-alive connections; each call is bounded by timeout.
func NewClient(baseURL string, connections int, timeout time.Duration, accessKey, secretKey, region string) *Client {
	transport := &http.Transport{
		Proxy:               nil, // a benchmark talks to the server it names, never a proxy
		MaxIdleConns:        max(connections, 1),
		MaxIdleConnsPerHost: max(connections, 1),
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	c := &Client{
		endpoint: strings.TrimRight(baseURL, "/") + "/",
		http:     &http.Client{Transport: transport, Timeout: timeout},
		region:   region,
	}
	if accessKey != "" && secretKey != "" {
		c.signer = v4.NewSigner()
		c.creds = aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secretKey}
		if c.region == "" {
			c.region = "us-east-1"
		}
	}
	return c
}

// Close drops the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// APIError is an error answer of the server.
type APIError struct {
	Action  string
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: HTTP %d %s: %s", e.Action, e.Status, e.Code, e.Message)
}

// query posts the SNS action with params (Action and Version are added) and
// decodes a successful XML answer into out (nil: discard it).
func (c *Client) query(ctx context.Context, action string, params url.Values, out any) error {
	form := url.Values{"Action": {action}, "Version": {APIVersion}}
	for k, v := range params {
		form[k] = v
	}
	body, status, err := c.post(ctx, action, "sns", "application/x-www-form-urlencoded; charset=utf-8", "", []byte(form.Encode()))
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return decodeQueryError(action, status, body)
	}
	if out == nil {
		return nil
	}
	if err := xml.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: decoding the answer: %w", action, err)
	}
	return nil
}

// post sends body to the endpoint, signed for service when the client signs,
// and returns the answer's body and status.
func (c *Client) post(ctx context.Context, action, service, contentType, target string, body []byte) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", contentType)
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	if c.signer != nil {
		sum := sha256.Sum256(body)
		if err := c.signer.SignHTTP(ctx, c.creds, req, hex.EncodeToString(sum[:]), service, c.region, time.Now()); err != nil {
			return nil, 0, fmt.Errorf("%s: signing: %w", action, err)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", action, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: reading the answer: %w", action, err)
	}
	return answer, resp.StatusCode, nil
}

// decodeQueryError reads an <ErrorResponse><Error><Code>…</Code><Message>…
// answer; a body that is not one becomes the message as it is.
func decodeQueryError(action string, status int, body []byte) error {
	var doc struct {
		Error struct {
			Code    string `xml:"Code"`
			Message string `xml:"Message"`
		} `xml:"Error"`
	}
	e := &APIError{Action: action, Status: status, Message: strings.TrimSpace(string(body))}
	if xml.Unmarshal(body, &doc) == nil && doc.Error.Code != "" {
		e.Code, e.Message = doc.Error.Code, doc.Error.Message
	}
	return e
}
