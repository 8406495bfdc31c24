package sns

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// The mobile-push actions. Applications and endpoints are account records
// (Store) of the application's account:
//
//   - kind "push-app", key "<PLATFORM>/<name>": the application's
//     attributes;
//   - kind "push-ep/<PLATFORM>/<name>", key: the endpoint's id: its
//     attributes (Token, Enabled, CustomUserData), so that an application's
//     endpoints are one kind, paged in order of id;
//   - kind "push-tok/<PLATFORM>/<name>", key: a token: the id of the
//     endpoint that has it (CreatePlatformEndpoint's idempotency).
//
// A region other than the home one keeps its records under
// "<account>@<region>", as the queue service does.
//
// Every action is the calling account's own, as for the SMS actions:
// another account's applications and endpoints are AuthorizationError.

const (
	recordPushApp      = "push-app"
	recordPushEndpoint = "push-ep/"
	recordPushToken    = "push-tok/"
)

// appRecord is a platform application's record.
type appRecord struct {
	Attributes map[string]string `json:"attrs"`
	Created    int64             `json:"created"` // Unix ms
}

// endpointRecord is a platform endpoint's record; Attributes holds Token,
// Enabled ("true" or "false") and CustomUserData when set.
type endpointRecord struct {
	Attributes map[string]string `json:"attrs"`
	Created    int64             `json:"created"`
}

func (r *endpointRecord) token() string { return r.Attributes[EndpointAttrToken] }
func (r *endpointRecord) enabled() bool { return r.Attributes[EndpointAttrEnabled] == "true" }

// pushRegion is the region c acts in, by name.
func (s *Service) pushRegion(c Caller) string { return s.regionName(s.region(c.Region)) }

// recordAccount is where account's push records of region live.
func (s *Service) recordAccount(account, region string) string {
	return storeAccount(account, s.region(region))
}

func (a appRef) key() string { return a.Platform + "/" + a.Name }

// authorizePush checks c's action on a resource of account.
func authorizePush(c Caller, action, account, arn string) *Error {
	if e := authorizeAccount(c, action); e != nil {
		return e
	}
	if account != c.Account || sqs.IsInternalAccount(account) {
		return errNotAuthorized(c, action, arn)
	}
	return nil
}

func errAppNotFound() *Error      { return NewError(CodeNotFound, "PlatformApplication does not exist") }
func errEndpointNotFound() *Error { return NewError(CodeNotFound, "Endpoint does not exist") }

// getApp reads an application's record (ENotFound).
func (s *Service) getApp(ctx context.Context, a appRef) (*appRecord, error) {
	r, err := getJSONRecord[appRecord](ctx, s.store, s.recordAccount(a.Account, a.Region), recordPushApp, a.key(), "platform application "+a.arn())
	if err == nil && r.Attributes == nil {
		r.Attributes = map[string]string{}
	}
	return r, err
}

func (s *Service) putApp(ctx context.Context, a appRef, r *appRecord) error {
	return putJSONRecord(ctx, s.store, s.recordAccount(a.Account, a.Region), recordPushApp, a.key(), r)
}

// getEndpoint reads an endpoint's record (ENotFound).
func (s *Service) getEndpoint(ctx context.Context, ep endpointRef) (*endpointRecord, error) {
	r, err := getJSONRecord[endpointRecord](ctx, s.store, s.recordAccount(ep.App.Account, ep.App.Region),
		recordPushEndpoint+ep.App.key(), ep.ID.String(), "platform endpoint "+ep.arn())
	if err == nil && r.Attributes == nil {
		r.Attributes = map[string]string{}
	}
	return r, err
}

func (s *Service) putEndpoint(ctx context.Context, ep endpointRef, r *endpointRecord) error {
	return putJSONRecord(ctx, s.store, s.recordAccount(ep.App.Account, ep.App.Region), recordPushEndpoint+ep.App.key(), ep.ID.String(), r)
}

// tokenEndpoint returns the id of a's endpoint with token (ENotFound).
func (s *Service) tokenEndpoint(ctx context.Context, a appRef, token string) (uuid.UUID, error) {
	v, err := s.store.GetAccountRecord(ctx, s.recordAccount(a.Account, a.Region), recordPushToken+a.key(), token)
	if err != nil {
		return uuid.Nil, err
	}
	return uuid.ParseBytes(v)
}

func (s *Service) putTokenEndpoint(ctx context.Context, a appRef, token string, id uuid.UUID) error {
	return s.store.PutAccountRecord(ctx, s.recordAccount(a.Account, a.Region), recordPushToken+a.key(), token, []byte(id.String()))
}

// deleteRecord removes a record; one already gone is fine.
func (s *Service) deleteRecord(ctx context.Context, account, kind, key string) error {
	err := s.store.DeleteAccountRecord(ctx, account, kind, key)
	if isCode(err, herald.ENotFound) {
		return nil
	}
	return err
}

// checkAppAttributes validates platform application attributes (of
// platform) as CreatePlatformApplication and SetPlatformApplicationAttributes
// take them.
func checkAppAttributes(attrs map[string]string) *Error {
	for name, v := range attrs {
		switch name {
		case AppAttrPlatformCredential, AppAttrPlatformPrincipal, AppAttrApplePlatformTeamID, AppAttrApplePlatformBundleID:
			if len(v) > 16384 {
				return ErrInvalidParameter("Attributes Reason: %s is too long", name)
			}
		case AppAttrEventEndpointCreated, AppAttrEventEndpointDeleted, AppAttrEventEndpointUpdated, AppAttrEventDeliveryFailure:
			if v == "" {
				continue
			}
			if _, _, _, err := ParseTopicARN(v, "Attributes"); err != nil {
				return ErrInvalidParameter("Attributes Reason: %s: %s is not a topic ARN", name, herald.Clip(v))
			}
		case AppAttrSuccessFeedbackRoleArn, AppAttrFailureFeedbackRoleArn:
			if len(v) > 2048 {
				return ErrInvalidParameter("Attributes Reason: %s is too long", name)
			}
		case AppAttrSuccessFeedbackSampleRate:
			if v == "" {
				continue
			}
			if n, err := strconv.Atoi(v); err != nil || n < 0 || n > 100 {
				return ErrInvalidParameter("Attributes Reason: %s: must be a whole percentage from 0 to 100", name)
			}
		case AppAttrEnabled:
			if _, ok := parseBoolAttr(v); !ok && v != "" {
				return errBoolAttr(name, v)
			}
		default:
			return ErrInvalidParameter("Attributes Reason: Invalid attribute name: %s", herald.Clip(name))
		}
	}
	return nil
}

// appAttributes is what GetPlatformApplicationAttributes shows of r: its
// attributes but the credentials, which AWS never returns, and Enabled.
func appAttributes(r *appRecord) map[string]string {
	out := make(map[string]string, len(r.Attributes)+1)
	for k, v := range r.Attributes {
		if k != AppAttrPlatformCredential && k != AppAttrPlatformPrincipal && v != "" {
			out[k] = v
		}
	}
	if out[AppAttrEnabled] == "" {
		out[AppAttrEnabled] = "true"
	}
	return out
}

// mergeAppAttributes applies attrs to r's (an empty value removes one;
// Enabled is kept lower-case).
func mergeAppAttributes(r *appRecord, attrs map[string]string) {
	for k, v := range attrs {
		if k == AppAttrEnabled && v != "" {
			b, _ := parseBoolAttr(v)
			v = strconv.FormatBool(b)
		}
		if v == "" {
			delete(r.Attributes, k)
		} else {
			r.Attributes[k] = v
		}
	}
}

// checkAppCredentials checks that an application of platform has the
// credentials it needs: none for HERALD, a principal and a credential for
// Apple's platforms, a credential for the others.
func checkAppCredentials(platform string, attrs map[string]string) *Error {
	cred, princ := attrs[AppAttrPlatformCredential], attrs[AppAttrPlatformPrincipal]
	switch {
	case platform == PlatformHerald:
		return nil
	case princ != "" && cred == "":
		return ErrInvalidParameter("Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential")
	case cred == "":
		return ErrInvalidParameter("Attributes Reason: PlatformCredential attribute is required for platform %s", platform)
	case applePlatform(platform) && princ == "":
		return ErrInvalidParameter("Attributes Reason: PlatformCredential attribute provided without PlatformPrincipal")
	}
	return nil
}

// CreatePlatformApplication creates an application of the caller's
// account, or, when one of that platform and name exists, sets the given
// attributes on it and answers its ARN.
func (s *Service) CreatePlatformApplication(ctx context.Context, c Caller, in CreatePlatformApplicationInput) (string, error) {
	if e := authorizeAccount(c, "CreatePlatformApplication"); e != nil {
		return "", e
	}
	if !validApplicationName(in.Name) {
		return "", ErrInvalidParameter("Name Reason: must be 1 to 256 ASCII letters, digits, underscores, hyphens and periods")
	}
	if in.Platform == "" {
		return "", ErrInvalidParameter("Platform Reason: cannot be empty")
	}
	if !platforms[in.Platform] {
		return "", ErrInvalidParameter("Platform Reason: %s is not supported", herald.Clip(in.Platform))
	}
	if e := checkAppAttributes(in.Attributes); e != nil {
		return "", e
	}
	a := appRef{Region: s.pushRegion(c), Account: c.Account, Platform: in.Platform, Name: in.Name}
	r, err := s.getApp(ctx, a)
	switch {
	case isCode(err, herald.ENotFound):
		r = &appRecord{Attributes: map[string]string{}, Created: s.now().UnixMilli()}
	case err != nil:
		return "", AsError(err)
	}
	mergeAppAttributes(r, in.Attributes)
	if e := checkAppCredentials(in.Platform, r.Attributes); e != nil {
		return "", e
	}
	if err := s.putApp(ctx, a, r); err != nil {
		return "", AsError(err)
	}
	return a.arn(), nil
}

// lookupApp parses an application ARN, authorizes c's action on it and
// reads it (NotFound).
func (s *Service) lookupApp(ctx context.Context, c Caller, arn, action string) (appRef, *appRecord, *Error) {
	a, e := parseApplicationARN(arn, "PlatformApplicationArn")
	if e != nil {
		return a, nil, e
	}
	if e := authorizePush(c, action, a.Account, arn); e != nil {
		return a, nil, e
	}
	r, err := s.getApp(ctx, a)
	if isCode(err, herald.ENotFound) {
		return a, nil, errAppNotFound()
	}
	if err != nil {
		return a, nil, AsError(err)
	}
	return a, r, nil
}

func (s *Service) GetPlatformApplicationAttributes(ctx context.Context, c Caller, arn string) (map[string]string, error) {
	_, r, e := s.lookupApp(ctx, c, arn, "GetPlatformApplicationAttributes")
	if e != nil {
		return nil, e
	}
	return appAttributes(r), nil
}

func (s *Service) SetPlatformApplicationAttributes(ctx context.Context, c Caller, in SetPlatformApplicationAttributesInput) error {
	a, r, e := s.lookupApp(ctx, c, in.PlatformApplicationARN, "SetPlatformApplicationAttributes")
	if e != nil {
		return e
	}
	if e := checkAppAttributes(in.Attributes); e != nil {
		return e
	}
	mergeAppAttributes(r, in.Attributes)
	if e := checkAppCredentials(a.Platform, r.Attributes); e != nil {
		return e
	}
	return errOrNil(s.putApp(ctx, a, r))
}

// DeletePlatformApplication removes an application and all its endpoints;
// one that does not exist is not an error, as on AWS.
func (s *Service) DeletePlatformApplication(ctx context.Context, c Caller, arn string) error {
	a, e := parseApplicationARN(arn, "PlatformApplicationArn")
	if e != nil {
		return e
	}
	if e := authorizePush(c, "DeletePlatformApplication", a.Account, arn); e != nil {
		return e
	}
	acct := s.recordAccount(a.Account, a.Region)
	// Endpoints first, so that a failure leaves an application whose
	// deletion can be repeated.
	for _, kind := range []string{recordPushEndpoint + a.key(), recordPushToken + a.key()} {
		for {
			recs, err := s.store.ListAccountRecords(ctx, acct, kind, "", MaxListPage)
			if err != nil {
				return AsError(err)
			}
			for _, r := range recs {
				if err := s.deleteRecord(ctx, acct, kind, r.Key); err != nil {
					return AsError(err)
				}
			}
			if len(recs) < MaxListPage {
				break
			}
		}
	}
	return errOrNil(s.deleteRecord(ctx, acct, recordPushApp, a.key()))
}

// ListPlatformApplications lists the caller's applications (of its
// region) in pages of 100, in order of platform and name.
func (s *Service) ListPlatformApplications(ctx context.Context, c Caller, nextToken string) (ListPlatformApplicationsOutput, error) {
	out := ListPlatformApplicationsOutput{PlatformApplications: []PlatformApplication{}}
	if e := authorizeAccount(c, "ListPlatformApplications"); e != nil {
		return out, e
	}
	after := ""
	if nextToken != "" {
		var e *Error
		if after, e = parsePageToken(nextToken); e != nil {
			return out, e
		}
	}
	region := s.pushRegion(c)
	recs, err := s.store.ListAccountRecords(ctx, s.recordAccount(c.Account, region), recordPushApp, after, MaxListPage+1)
	if err != nil {
		return out, AsError(err)
	}
	for i, rec := range recs {
		if i == MaxListPage {
			out.NextToken = pageToken(recs[i-1].Key)
			break
		}
		var r appRecord
		if err := json.Unmarshal(rec.Value, &r); err != nil {
			return out, AsError(fmt.Errorf("platform application %s: %w", rec.Key, err))
		}
		platform, name, _ := cutSlash(rec.Key)
		out.PlatformApplications = append(out.PlatformApplications, PlatformApplication{
			PlatformApplicationARN: ApplicationARN(region, c.Account, platform, name), Attributes: appAttributes(&r)})
	}
	return out, nil
}

func cutSlash(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// checkToken validates an endpoint's device token for platform. A HERALD
// token names a standard SQS queue of the application's account.
func checkToken(platform, token string) *Error {
	if token == "" {
		return ErrInvalidParameter("Token Reason: cannot be empty")
	}
	if len(token) > MaxTokenLength || !utf8.ValidString(token) {
		return ErrInvalidParameter("Token Reason: must be at most %d bytes of UTF-8", MaxTokenLength)
	}
	if platform == PlatformHerald && (sqs.ValidateQueueName(token) != nil || sqs.IsFIFOName(token)) {
		return ErrInvalidParameter("Token Reason: a HERALD token is the name of a standard SQS queue of the application's account: 1 to 80 letters, digits, hyphens and underscores")
	}
	return nil
}

// checkEndpointAttributes validates endpoint attributes (Token is checked
// by checkToken).
func checkEndpointAttributes(attrs map[string]string) *Error {
	for name, v := range attrs {
		switch name {
		case EndpointAttrEnabled:
			if _, ok := parseBoolAttr(v); !ok {
				return errBoolAttr(name, v)
			}
		case EndpointAttrCustomUserData:
			if len(v) > MaxCustomUserDataBytes || !utf8.ValidString(v) {
				return ErrInvalidParameter("Attributes Reason: CustomUserData must be UTF-8 and at most %d bytes", MaxCustomUserDataBytes)
			}
		case EndpointAttrToken:
		default:
			return ErrInvalidParameter("Attributes Reason: Invalid attribute name: %s", herald.Clip(name))
		}
	}
	return nil
}

// ensureDeviceQueue creates the queue a HERALD token names, in the
// application's account, unless it exists.
func (s *Service) ensureDeviceQueue(ctx context.Context, c Caller, a appRef, token string) *Error {
	qc := sqs.Caller{Account: a.Account, Region: s.region(a.Region), SenderID: c.SenderID, Scheme: c.Scheme, Host: c.Host}
	if _, err := s.q.GetQueueURL(ctx, qc, sqs.GetQueueURLInput{QueueName: token}); err == nil {
		return nil
	}
	if _, err := s.q.CreateQueue(ctx, qc, sqs.CreateQueueInput{QueueName: token}); err != nil {
		return queueError(err)
	}
	return nil
}

// CreatePlatformEndpoint creates an endpoint for a device token, or
// answers the endpoint that has the token when its attributes are the
// same (AWS's idempotency); different ones are InvalidParameter. For a
// HERALD application the token's queue is created if it is missing.
func (s *Service) CreatePlatformEndpoint(ctx context.Context, c Caller, in CreatePlatformEndpointInput) (string, error) {
	a, _, e := s.lookupApp(ctx, c, in.PlatformApplicationARN, "CreatePlatformEndpoint")
	if e != nil {
		return "", e
	}
	if e := checkToken(a.Platform, in.Token); e != nil {
		return "", e
	}
	if e := checkEndpointAttributes(in.Attributes); e != nil {
		return "", e
	}
	if tok, ok := in.Attributes[EndpointAttrToken]; ok && tok != in.Token {
		return "", ErrInvalidParameter("Attributes Reason: Token: must be the Token parameter")
	}
	attrs := map[string]string{EndpointAttrToken: in.Token, EndpointAttrEnabled: "true"}
	if in.CustomUserData != "" {
		if e := checkEndpointAttributes(map[string]string{EndpointAttrCustomUserData: in.CustomUserData}); e != nil {
			return "", e
		}
		attrs[EndpointAttrCustomUserData] = in.CustomUserData
	}
	for k, v := range in.Attributes { // the attributes win over CustomUserData
		if k == EndpointAttrEnabled {
			b, _ := parseBoolAttr(v)
			v = strconv.FormatBool(b)
		}
		if v == "" {
			delete(attrs, k)
			continue
		}
		attrs[k] = v
	}
	id, err := s.tokenEndpoint(ctx, a, in.Token)
	switch {
	case err == nil:
		ep := endpointRef{App: a, ID: id}
		old, err := s.getEndpoint(ctx, ep)
		if err == nil {
			if !maps.Equal(old.Attributes, attrs) {
				return "", ErrInvalidParameter("Token Reason: Endpoint %s already exists with the same Token, but different attributes.", ep.arn())
			}
			return ep.arn(), nil
		}
		if !isCode(err, herald.ENotFound) {
			return "", AsError(err)
		}
		// A token record left by an interrupted deletion: start afresh.
	case !isCode(err, herald.ENotFound):
		return "", AsError(err)
	}
	if a.Platform == PlatformHerald {
		if e := s.ensureDeviceQueue(ctx, c, a, in.Token); e != nil {
			return "", e
		}
	}
	ep := endpointRef{App: a, ID: uuid.New()}
	if err := s.putEndpoint(ctx, ep, &endpointRecord{Attributes: attrs, Created: s.now().UnixMilli()}); err != nil {
		return "", AsError(err)
	}
	if err := s.putTokenEndpoint(ctx, a, in.Token, ep.ID); err != nil {
		return "", AsError(err)
	}
	return ep.arn(), nil
}

// lookupEndpoint parses an endpoint ARN, authorizes c's action on it and
// reads it (NotFound).
func (s *Service) lookupEndpoint(ctx context.Context, c Caller, arn, action string) (endpointRef, *endpointRecord, *Error) {
	ep, e := parseEndpointARN(arn, "EndpointArn")
	if e != nil {
		return ep, nil, e
	}
	if e := authorizePush(c, action, ep.App.Account, arn); e != nil {
		return ep, nil, e
	}
	r, err := s.getEndpoint(ctx, ep)
	if isCode(err, herald.ENotFound) {
		return ep, nil, errEndpointNotFound()
	}
	if err != nil {
		return ep, nil, AsError(err)
	}
	return ep, r, nil
}

func (s *Service) GetEndpointAttributes(ctx context.Context, c Caller, arn string) (map[string]string, error) {
	_, r, e := s.lookupEndpoint(ctx, c, arn, "GetEndpointAttributes")
	if e != nil {
		return nil, e
	}
	return maps.Clone(r.Attributes), nil
}

// SetEndpointAttributes changes an endpoint's Enabled, Token and
// CustomUserData. A new Token must not be another endpoint's of the
// application; a HERALD token's queue is created if it is missing.
func (s *Service) SetEndpointAttributes(ctx context.Context, c Caller, in SetEndpointAttributesInput) error {
	ep, r, e := s.lookupEndpoint(ctx, c, in.EndpointARN, "SetEndpointAttributes")
	if e != nil {
		return e
	}
	if e := checkEndpointAttributes(in.Attributes); e != nil {
		return e
	}
	oldToken := r.token()
	newToken, changing := in.Attributes[EndpointAttrToken]
	changing = changing && newToken != oldToken
	if changing {
		if e := checkToken(ep.App.Platform, newToken); e != nil {
			return e
		}
		other, err := s.tokenEndpoint(ctx, ep.App, newToken)
		switch {
		case err == nil && other != ep.ID:
			if _, gerr := s.getEndpoint(ctx, endpointRef{App: ep.App, ID: other}); gerr == nil {
				return ErrInvalidParameter("Token Reason: Endpoint %s already exists with the same Token", endpointRef{App: ep.App, ID: other}.arn())
			}
		case err != nil && !isCode(err, herald.ENotFound):
			return AsError(err)
		}
		if ep.App.Platform == PlatformHerald {
			if e := s.ensureDeviceQueue(ctx, c, ep.App, newToken); e != nil {
				return e
			}
		}
	}
	for k, v := range in.Attributes {
		switch {
		case k == EndpointAttrEnabled:
			b, _ := parseBoolAttr(v)
			r.Attributes[k] = strconv.FormatBool(b)
		case v == "" && k == EndpointAttrCustomUserData:
			delete(r.Attributes, k)
		default:
			r.Attributes[k] = v
		}
	}
	if err := s.putEndpoint(ctx, ep, r); err != nil {
		return AsError(err)
	}
	if changing {
		if err := s.putTokenEndpoint(ctx, ep.App, newToken, ep.ID); err != nil {
			return AsError(err)
		}
		if err := s.deleteRecord(ctx, s.recordAccount(ep.App.Account, ep.App.Region), recordPushToken+ep.App.key(), oldToken); err != nil {
			return AsError(err)
		}
	}
	return nil
}

// DeleteEndpoint removes an endpoint; one that does not exist is not an
// error, as on AWS.
func (s *Service) DeleteEndpoint(ctx context.Context, c Caller, arn string) error {
	ep, r, e := s.lookupEndpoint(ctx, c, arn, "DeleteEndpoint")
	if e != nil {
		if e.Code == CodeNotFound {
			return nil
		}
		return e
	}
	acct := s.recordAccount(ep.App.Account, ep.App.Region)
	if id, err := s.tokenEndpoint(ctx, ep.App, r.token()); err == nil && id == ep.ID {
		if err := s.deleteRecord(ctx, acct, recordPushToken+ep.App.key(), r.token()); err != nil {
			return AsError(err)
		}
	}
	return errOrNil(s.deleteRecord(ctx, acct, recordPushEndpoint+ep.App.key(), ep.ID.String()))
}

// ListEndpointsByPlatformApplication lists an application's endpoints in
// pages of 100, in order of their ids.
func (s *Service) ListEndpointsByPlatformApplication(ctx context.Context, c Caller, in ListEndpointsByPlatformApplicationInput) (ListEndpointsByPlatformApplicationOutput, error) {
	out := ListEndpointsByPlatformApplicationOutput{Endpoints: []PlatformEndpoint{}}
	a, _, e := s.lookupApp(ctx, c, in.PlatformApplicationARN, "ListEndpointsByPlatformApplication")
	if e != nil {
		return out, e
	}
	after := ""
	if in.NextToken != "" {
		if after, e = parsePageToken(in.NextToken); e != nil {
			return out, e
		}
	}
	recs, err := s.store.ListAccountRecords(ctx, s.recordAccount(a.Account, a.Region), recordPushEndpoint+a.key(), after, MaxListPage+1)
	if err != nil {
		return out, AsError(err)
	}
	for i, rec := range recs {
		if i == MaxListPage {
			out.NextToken = pageToken(recs[i-1].Key)
			break
		}
		id, err := uuid.Parse(rec.Key)
		if err != nil {
			return out, AsError(fmt.Errorf("platform endpoint %s: %w", rec.Key, err))
		}
		var r endpointRecord
		if err := json.Unmarshal(rec.Value, &r); err != nil {
			return out, AsError(fmt.Errorf("platform endpoint %s: %w", rec.Key, err))
		}
		out.Endpoints = append(out.Endpoints, PlatformEndpoint{EndpointARN: endpointRef{App: a, ID: id}.arn(), Attributes: r.Attributes})
	}
	return out, nil
}
