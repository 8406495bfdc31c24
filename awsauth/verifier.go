package awsauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/heraldmq/herald"
)

const (
	// DefaultMaxSkew is how far X-Amz-Date may be from the server clock.
	DefaultMaxSkew = 15 * time.Minute
	// MaxPresignExpiry is the largest X-Amz-Expires accepted (seven days).
	MaxPresignExpiry = 7 * 24 * time.Hour

	algorithm       = "AWS4-HMAC-SHA256"
	amzDateLayout   = "20060102T150405Z"
	scopeDateLayout = "20060102"
	scopeTerminator = "aws4_request"
	unsignedPayload = "UNSIGNED-PAYLOAD"

	headerAuthorization = "Authorization"
	headerAmzDate       = "X-Amz-Date"
	headerContentSHA256 = "X-Amz-Content-Sha256"

	queryAlgorithm     = "X-Amz-Algorithm"
	queryCredential    = "X-Amz-Credential"
	queryDate          = "X-Amz-Date"
	querySignedHeaders = "X-Amz-SignedHeaders"
	querySignature     = "X-Amz-Signature"
	queryExpires       = "X-Amz-Expires"
)

// Credentials maps access key IDs to their secret access keys.
type Credentials map[string]string

// Identity is who signed a request: the access key and the region and
// service named in the signature's credential scope.
type Identity struct {
	AccessKey string
	Region    string
	Service   string
}

// Option configures a Verifier.
type Option func(*Verifier)

// WithClock replaces time.Now as the source of the current time.
func WithClock(now func() time.Time) Option {
	return func(v *Verifier) {
		if now != nil {
			v.now = now
		}
	}
}

// WithMaxSkew sets how far X-Amz-Date may lie from the current time in
// either direction. Non-positive values keep DefaultMaxSkew.
func WithMaxSkew(d time.Duration) Option {
	return func(v *Verifier) {
		if d > 0 {
			v.maxSkew = d
		}
	}
}

// WithUnsignedPayload accepts requests whose X-Amz-Content-Sha256 header is
// UNSIGNED-PAYLOAD, i.e. whose body is not covered by the signature. The AWS
// SDKs never do this for SQS or SNS, so it is refused by default.
func WithUnsignedPayload() Option {
	return func(v *Verifier) { v.allowUnsigned = true }
}

// Verifier checks SigV4 signatures against a fixed set of access keys. It is
// safe for concurrent use.
type Verifier struct {
	keys          map[string]string
	now           func() time.Time
	maxSkew       time.Duration
	allowUnsigned bool
	signer        *v4.Signer
}

// NewVerifier returns a Verifier for keys (copied; entries with an empty
// access key ID or secret are ignored). Without usable keys the Verifier is
// disabled and accepts every request.
func NewVerifier(keys Credentials, opts ...Option) *Verifier {
	v := &Verifier{
		keys:    make(map[string]string, len(keys)),
		now:     time.Now,
		maxSkew: DefaultMaxSkew,
		signer:  v4.NewSigner(),
	}
	for id, secret := range keys {
		if id != "" && secret != "" {
			v.keys[id] = secret
		}
	}
	for _, opt := range opts {
		opt(v)
	}
	return v
}

// Enabled reports whether signatures are checked, i.e. whether any key is
// configured. A nil Verifier is disabled.
func (v *Verifier) Enabled() bool {
	return v != nil && len(v.keys) > 0
}

// authInput is the signature data the client sent.
type authInput struct {
	accessKey     string
	scopeDate     string
	region        string
	service       string
	signedHeaders string
	signature     string
	amzDate       string
	presigned     bool
	expires       time.Duration
	hasExpires    bool
}

func (in *authInput) identity() Identity {
	return Identity{AccessKey: in.accessKey, Region: in.region, Service: in.service}
}

// Verify checks the SigV4 signature of r, whose body the caller has already
// read into body (r.Body is not touched). The signature may be carried by the
// Authorization header or by presigned query parameters. On success it
// returns the signer's identity; on failure the error is an *Error.
//
// When the Verifier is disabled every request passes; the identity is then
// taken, unverified, from the credential scope if the request has one.
func (v *Verifier) Verify(r *http.Request, body []byte) (Identity, error) {
	if !v.Enabled() {
		if unsigned(r) { // no scope to read: spare parsing the query and an error
			return Identity{}, nil
		}
		in, err := parseAuth(r)
		if err != nil {
			return Identity{}, nil
		}
		return in.identity(), nil
	}

	in, err := parseAuth(r)
	if err != nil {
		return Identity{}, err
	}
	secret, ok := v.keys[in.accessKey]
	if !ok {
		return Identity{}, errUnknownKey()
	}

	signingTime, perr := time.Parse(amzDateLayout, in.amzDate)
	if perr != nil {
		return Identity{}, errIncomplete("X-Amz-Date %q is not in the ISO 8601 basic format YYYYMMDD'T'HHMMSS'Z'", herald.Clip(in.amzDate))
	}
	if got := signingTime.Format(scopeDateLayout); got != in.scopeDate {
		return Identity{}, errMismatch("credential scope date %s differs from the date %s of X-Amz-Date", in.scopeDate, got)
	}
	if e := v.checkTime(in, signingTime); e != nil {
		return Identity{}, e
	}

	payloadHash, e := v.payloadHash(r, body)
	if e != nil {
		return Identity{}, e
	}

	wantHeaders, wantSig, e := v.recompute(r, in, secret, payloadHash, signingTime)
	if e != nil {
		return Identity{}, e
	}
	if wantHeaders != in.signedHeaders {
		return Identity{}, errMismatch("signed headers %q cannot be reproduced (expected %q)", herald.Clip(in.signedHeaders), herald.Clip(wantHeaders))
	}
	if subtle.ConstantTimeCompare([]byte(wantSig), []byte(in.signature)) != 1 {
		return Identity{}, errMismatch("the signature does not match the one computed from the request and the secret key of %s", in.accessKey)
	}
	return in.identity(), nil
}

// checkTime enforces the allowed clock skew and presigned expiry.
func (v *Verifier) checkTime(in *authInput, signed time.Time) *Error {
	now := v.now().UTC()
	if signed.After(now.Add(v.maxSkew)) {
		return errExpired("X-Amz-Date %s is more than %s in the future of %s", in.amzDate, v.maxSkew, now.Format(amzDateLayout))
	}
	if in.presigned && in.hasExpires {
		if now.After(signed.Add(in.expires)) {
			return errExpired("the presigned request expired at %s, now is %s", signed.Add(in.expires).Format(amzDateLayout), now.Format(amzDateLayout))
		}
		return nil
	}
	if now.After(signed.Add(v.maxSkew)) {
		return errExpired("X-Amz-Date %s is more than %s before %s", in.amzDate, v.maxSkew, now.Format(amzDateLayout))
	}
	return nil
}

// payloadHash returns the payload hash the client must have signed: the
// X-Amz-Content-Sha256 header when present (after checking it against the
// body), otherwise the hex SHA-256 of the body.
func (v *Verifier) payloadHash(r *http.Request, body []byte) (string, *Error) {
	sum := sha256.Sum256(body)
	bodyHash := hex.EncodeToString(sum[:])
	declared := r.Header.Values(headerContentSHA256)
	switch {
	case len(declared) == 0:
		return bodyHash, nil
	case len(declared) > 1:
		return "", errIncomplete("X-Amz-Content-Sha256 appears more than once")
	case declared[0] == unsignedPayload:
		if !v.allowUnsigned {
			return "", errIncomplete("unsigned payloads are not accepted: the body must be covered by the signature")
		}
		return unsignedPayload, nil
	case declared[0] == bodyHash:
		return bodyHash, nil
	default:
		return "", errMismatch("X-Amz-Content-Sha256 does not match the SHA-256 of the request body")
	}
}

// recompute signs a copy of r holding only what the client declared as
// signed, using the SDK signer, and returns the signed header list and
// signature the signer produced.
func (v *Verifier) recompute(r *http.Request, in *authInput, secret, payloadHash string, signingTime time.Time) (signedHeaders, signature string, _ *Error) {
	u := *r.URL
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	u.Host = r.Host
	u.Scheme = "http"
	if r.TLS != nil {
		u.Scheme = "https"
	}
	if in.presigned {
		q := r.URL.Query()
		q.Del(querySignature)
		u.RawQuery = q.Encode()
	}

	cp := &http.Request{
		Method: r.Method,
		URL:    &u,
		Host:   r.Host,
		Header: make(http.Header),
	}
	for _, name := range strings.Split(in.signedHeaders, ";") {
		switch name {
		case "host":
			// The signer always signs r.Host.
		case "content-length":
			// The signer signs ContentLength itself, and only when positive.
			if r.ContentLength <= 0 {
				return "", "", errMismatch("signed header content-length is missing or zero")
			}
			cp.ContentLength = r.ContentLength
		default:
			values := r.Header.Values(name)
			if len(values) == 0 {
				return "", "", errMismatch("signed header %q is not present in the request", herald.Clip(name))
			}
			cp.Header[http.CanonicalHeaderKey(name)] = append([]string(nil), values...)
		}
	}

	creds := aws.Credentials{AccessKeyID: in.accessKey, SecretAccessKey: secret}
	ctx := context.Background()
	if in.presigned {
		signedURI, _, err := v.signer.PresignHTTP(ctx, creds, cp, payloadHash, in.service, in.region, signingTime,
			func(o *v4.SignerOptions) { o.DisableHeaderHoisting = true })
		if err != nil {
			return "", "", errMismatch("cannot recompute the signature: %s", herald.Clip(err.Error()))
		}
		signed, err := url.Parse(signedURI)
		if err != nil {
			return "", "", errMismatch("cannot recompute the signature: %s", herald.Clip(err.Error()))
		}
		q := signed.Query()
		return q.Get(querySignedHeaders), q.Get(querySignature), nil
	}

	if err := v.signer.SignHTTP(ctx, creds, cp, payloadHash, in.service, in.region, signingTime); err != nil {
		return "", "", errMismatch("cannot recompute the signature: %s", herald.Clip(err.Error()))
	}
	out, perr := parseAuthorization(cp.Header.Get(headerAuthorization))
	if perr != nil {
		return "", "", errMismatch("cannot recompute the signature: %s", herald.Clip(perr.Message))
	}
	return out.signedHeaders, out.signature, nil
}

// unsigned reports whether r carries no signature: no Authorization header
// and no query, so no presigned parameters (parseAuth's errMissing).
func unsigned(r *http.Request) bool {
	return len(r.Header[headerAuthorization]) == 0 && r.URL.RawQuery == ""
}

// parseAuth extracts the signature data from the Authorization header or
// from presigned query parameters.
func parseAuth(r *http.Request) (*authInput, *Error) {
	authz := r.Header.Values(headerAuthorization)
	query := r.URL.Query()
	presigned := query.Has(queryAlgorithm) || query.Has(queryCredential) || query.Has(querySignature)

	switch {
	case len(authz) == 0 && !presigned:
		return nil, errMissing()
	case len(authz) > 0 && presigned:
		return nil, errIncomplete("the request is signed both in the Authorization header and in the query string")
	case len(authz) > 1:
		return nil, errIncomplete("more than one Authorization header")
	case presigned:
		return parsePresigned(query)
	}

	in, err := parseAuthorization(authz[0])
	if err != nil {
		return nil, err
	}
	dates := r.Header.Values(headerAmzDate)
	switch len(dates) {
	case 0:
		return nil, errIncomplete("the X-Amz-Date header is required")
	case 1:
		in.amzDate = dates[0]
	default:
		return nil, errIncomplete("X-Amz-Date appears more than once")
	}
	return in, nil
}

// parseAuthorization parses
// "AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/SERVICE/aws4_request, SignedHeaders=a;b, Signature=hex".
func parseAuthorization(header string) (*authInput, *Error) {
	alg, rest, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || alg != algorithm {
		return nil, errIncomplete("the Authorization header must use the %s algorithm", algorithm)
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(rest, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, errIncomplete("malformed Authorization component %q", herald.Clip(part))
		}
		if _, dup := fields[k]; dup {
			return nil, errIncomplete("Authorization component %s appears more than once", herald.Clip(k))
		}
		fields[k] = val
	}
	for _, k := range []string{"Credential", "SignedHeaders", "Signature"} {
		if fields[k] == "" {
			return nil, errIncomplete("the Authorization header lacks %s", k)
		}
	}
	in := &authInput{signedHeaders: fields["SignedHeaders"], signature: fields["Signature"]}
	if err := in.parseCredential(fields["Credential"]); err != nil {
		return nil, err
	}
	if err := checkSignedHeaders(in.signedHeaders); err != nil {
		return nil, err
	}
	return in, nil
}

func parsePresigned(q url.Values) (*authInput, *Error) {
	for _, k := range []string{queryAlgorithm, queryCredential, queryDate, querySignedHeaders, querySignature} {
		switch n := len(q[k]); {
		case n == 0 || q.Get(k) == "":
			return nil, errIncomplete("the presigned query lacks %s", k)
		case n > 1:
			return nil, errIncomplete("the presigned query has %s more than once", k)
		}
	}
	if alg := q.Get(queryAlgorithm); alg != algorithm {
		return nil, errIncomplete("X-Amz-Algorithm must be %s", algorithm)
	}
	in := &authInput{
		presigned:     true,
		amzDate:       q.Get(queryDate),
		signedHeaders: q.Get(querySignedHeaders),
		signature:     q.Get(querySignature),
	}
	if err := in.parseCredential(q.Get(queryCredential)); err != nil {
		return nil, err
	}
	if err := checkSignedHeaders(in.signedHeaders); err != nil {
		return nil, err
	}
	if vals, ok := q[queryExpires]; ok {
		if len(vals) != 1 {
			return nil, errIncomplete("the presigned query has %s more than once", queryExpires)
		}
		secs, err := strconv.ParseInt(vals[0], 10, 64)
		if err != nil || secs < 1 || secs > int64(MaxPresignExpiry/time.Second) {
			return nil, errIncomplete("X-Amz-Expires must be a number of seconds between 1 and %d", int64(MaxPresignExpiry/time.Second))
		}
		in.expires = time.Duration(secs) * time.Second
		in.hasExpires = true
	}
	return in, nil
}

// parseCredential parses "AKID/YYYYMMDD/REGION/SERVICE/aws4_request".
func (in *authInput) parseCredential(cred string) *Error {
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[4] != scopeTerminator {
		return errIncomplete("credential %q must have the form ACCESSKEY/YYYYMMDD/REGION/SERVICE/%s", herald.Clip(cred), scopeTerminator)
	}
	for _, p := range parts[:4] {
		if p == "" {
			return errIncomplete("credential %q has an empty component", herald.Clip(cred))
		}
	}
	if _, err := time.Parse(scopeDateLayout, parts[1]); err != nil {
		return errIncomplete("credential scope date %q is not YYYYMMDD", herald.Clip(parts[1]))
	}
	in.accessKey, in.scopeDate, in.region, in.service = parts[0], parts[1], parts[2], parts[3]
	return nil
}

// checkSignedHeaders requires a non-empty list of lower-case names that
// includes host, as AWS does.
func checkSignedHeaders(list string) *Error {
	hasHost := false
	for name := range strings.SplitSeq(list, ";") {
		if name == "" || name != strings.ToLower(name) {
			return errIncomplete("SignedHeaders %q must be a ';'-separated list of lower-case header names", herald.Clip(list))
		}
		if name == "host" {
			hasHost = true
		}
	}
	if !hasHost {
		return errIncomplete("SignedHeaders must include host")
	}
	return nil
}
