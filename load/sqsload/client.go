// Package sqsload drives load against an SQS-compatible server (Herald's
// SQS API) and measures it per action; `herald bench sqs` is built on it.
//
// Its Client speaks the AWS JSON 1.0 protocol directly over net/http rather
// than through the AWS SDK: on a small machine the load generator's CPU
// competes with the server's, so requests are pre-encoded once per queue and
// responses are decoded into structs holding only the members the load needs.
// Requests are signed with SigV4 (the AWS SDK's signer) only when access keys
// are given.
package sqsload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// ContentType is the media type of AWS JSON 1.0 requests.
const ContentType = "application/x-amz-json-1.0"

// TargetPrefix precedes the action name in the X-Amz-Target header.
const TargetPrefix = "AmazonSQS."

// Options configures a Client.
type Options struct {
	// Connections is the number of keep-alive connections kept to the
	// server; set it to the load's concurrency so no worker ever dials
	// mid-run.
	Connections int
	// Timeout bounds one call; it must exceed the longest long poll.
	Timeout time.Duration
	// AccessKey and SecretKey, when both set, make the client sign every
	// request with SigV4 for service "sqs" in Region.
	AccessKey, SecretKey, Region string
}

// Client calls one SQS endpoint. It is safe for concurrent use.
type Client struct {
	endpoint string // the server URL with path "/", where JSON 1.0 requests are posted
	http     *http.Client
	signer   *v4.Signer // nil: unsigned
	creds    aws.Credentials
	region   string
}

// NewClient returns a client of the server at baseURL (scheme://host:port).
func NewClient(baseURL string, o Options) *Client {
	if o.Connections < 1 {
		o.Connections = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	transport := &http.Transport{
		Proxy:               nil, // a benchmark must hit the server it names, never a proxy
		MaxIdleConns:        o.Connections,
		MaxIdleConnsPerHost: o.Connections,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true, // gzip would cost client CPU for nothing on a local link
	}
	c := &Client{
		endpoint: strings.TrimRight(baseURL, "/") + "/",
		http:     &http.Client{Transport: transport, Timeout: o.Timeout},
		region:   o.Region,
	}
	if o.AccessKey != "" && o.SecretKey != "" {
		c.signer = v4.NewSigner()
		c.creds = aws.Credentials{AccessKeyID: o.AccessKey, SecretAccessKey: o.SecretKey}
		if c.region == "" {
			c.region = "us-east-1"
		}
	}
	return c
}

// Close drops the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Request is one encoded JSON 1.0 request, built once and sent many times.
type Request struct {
	action      string
	target      []string // the X-Amz-Target header value, shared by every send
	body        []byte
	payloadHash string // hex SHA-256 of body, computed only when signing needs it
}

// NewRequest encodes in as the body of action. sign must be true when the
// client signs, so the payload hash is computed once here and not per call.
func NewRequest(action string, body []byte, sign bool) Request {
	r := Request{action: action, target: []string{TargetPrefix + action}, body: body}
	if sign {
		r.payloadHash = payloadHash(body)
	}
	return r
}

// Action is the SQS action the request calls.
func (r Request) Action() string { return r.action }

// Body is the request's encoded JSON body.
func (r Request) Body() []byte { return r.body }

// Signs reports whether the client signs its requests.
func (c *Client) Signs() bool { return c.signer != nil }

// APIError is an error answer of the server.
type APIError struct {
	Action  string
	Status  int
	Code    string // the __type after its namespace, e.g. QueueDoesNotExist
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: HTTP %d %s: %s", e.Action, e.Status, e.Code, e.Message)
}

var contentType = []string{ContentType}

// buffers recycles response bodies: most answers are read, decoded and
// dropped within one call.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// call posts r and hands a successful answer's body to decode (nil:
// discard it). The body is only valid during decode.
func (c *Client) call(ctx context.Context, r Request, decode func(body []byte) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(r.body))
	if err != nil {
		return err
	}
	// Assigning the map directly skips header canonicalisation per call.
	req.Header = http.Header{"Content-Type": contentType, "X-Amz-Target": r.target}
	if c.signer != nil {
		hash := r.payloadHash
		if hash == "" {
			hash = payloadHash(r.body)
		}
		if err := c.signer.SignHTTP(ctx, c.creds, req, hash, "sqs", c.region, time.Now()); err != nil {
			return fmt.Errorf("%s: signing: %w", r.action, err)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", r.action, err)
	}
	buf := buffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer buffers.Put(buf)
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", r.action, err)
	}
	if resp.StatusCode != http.StatusOK {
		return decodeError(r.action, resp.StatusCode, buf.Bytes())
	}
	if decode == nil {
		return nil
	}
	if err := decode(buf.Bytes()); err != nil {
		return fmt.Errorf("%s: decoding the answer: %w", r.action, err)
	}
	return nil
}

// intoJSON decodes an answer into v with encoding/json.
func intoJSON(v any) func([]byte) error {
	return func(body []byte) error { return json.Unmarshal(body, v) }
}

// decodeError reads an AWS JSON error answer: {"__type": "ns#Code", "message": "..."}.
func decodeError(action string, status int, body []byte) error {
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"` // encoding/json also matches AWS's "Message"
	}
	e.Message = strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Type != "" {
		e.Type = e.Type[strings.LastIndexByte(e.Type, '#')+1:]
	}
	return &APIError{Action: action, Status: status, Code: e.Type, Message: e.Message}
}

func payloadHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}
