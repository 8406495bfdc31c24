package awsapi

import (
	"encoding/xml"
	"errors"
	"log/slog"
	"net/http"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// snsSigningName is the service of SNS credential scopes.
const snsSigningName = "sns"

// SNSService answers SNS Query requests over an sns.API; plug it into the
// edge with Config.SNS. AWS's SNS speaks only the Query protocol.
//
// Like AWS, it answers ConfirmSubscription and Unsubscribe without a
// signature even when signatures are checked: they are the SubscribeURL
// and UnsubscribeURL an endpoint follows with a plain GET. Such an
// anonymous request reaches the API with an empty Caller.Account and
// Caller.SenderID (see AnonymousCaller): ConfirmSubscription then rests on
// the token alone, and Unsubscribe must be refused (AuthorizationError)
// when the subscription was confirmed with AuthenticateOnUnsubscribe=true.
type SNSService struct {
	api sns.API
	log *slog.Logger
}

var _ AnonymousActions = (*SNSService)(nil)

// NewSNSService returns the SNS Query service over api; log may be nil.
func NewSNSService(api sns.API, log *slog.Logger) *SNSService {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &SNSService{api: api, log: log}
}

// AnonymousCaller reports whether c is the caller of an unsigned
// ConfirmSubscription or Unsubscribe while signatures are checked: an
// empty Account, which every other request has.
func AnonymousCaller(c sns.Caller) bool { return c.Account == "" }

func (s *SNSService) SigningName() string { return snsSigningName }

func (s *SNSService) HasAction(action string) bool {
	_, ok := snsActions[action]
	return ok
}

// AllowsAnonymous reports the actions AWS serves without a signature.
func (s *SNSService) AllowsAnonymous(action string) bool {
	return action == "ConfirmSubscription" || action == "Unsubscribe"
}

// ServeQuery answers a Query request for c.Action.
func (s *SNSService) ServeQuery(w http.ResponseWriter, c *Call) {
	act, ok := snsActions[c.Action]
	if !ok {
		s.WriteQueryError(w, c, sns.NewError(sns.CodeInvalidAction,
			"Could not find operation %s for version 2010-03-31", herald.Clip(c.Action)))
		return
	}
	caller := callerOf(c)
	result, err := act(c.Request.Context(), s.api, caller, &snsParams{form: c.Form})
	if err != nil {
		s.WriteQueryError(w, c, err)
		return
	}
	writeXML(w, http.StatusOK, queryResponse{
		XMLName:  xml.Name{Local: c.Action + "Response"},
		Xmlns:    snsNamespace,
		Result:   result,
		Metadata: responseMetadata{RequestID: c.RequestID},
	})
}

// WriteQueryError answers with err as an SNS <ErrorResponse>.
func (s *SNSService) WriteQueryError(w http.ResponseWriter, c *Call, err error) {
	e := s.toError(c, err)
	if e.Code == sns.CodeThrottled {
		limits.PauseBeforeAnswer(c.Request.Context(), err)
	}
	writeXML(w, e.Status, xmlSNSErrorResponse{
		Xmlns:     snsNamespace,
		Error:     xmlSNSError{Type: e.Fault(), Code: herald.Clip(wireCode(e.Code)), Message: herald.ClipMessage(e.Message)},
		RequestID: c.RequestID,
	})
}

// toError converts any error met answering c into an *sns.Error: the
// service's own, an authentication failure, or one the edge raised as an
// *sqs.Error (malformed form, body too large, a recovered panic), logging
// those that are Herald's fault.
func (s *SNSService) toError(c *Call, err error) *sns.Error {
	var authErr *awsauth.Error
	var edgeErr *sqs.Error
	var e *sns.Error
	switch {
	case errors.As(err, &e):
	case errors.As(err, &authErr):
		e = &sns.Error{Code: authErr.Code, Status: authErr.Status, Sender: true, Message: authErr.Message}
	case errors.As(err, &edgeErr) && edgeErr.Status < 500:
		e = &sns.Error{Code: edgeErr.Code, Status: edgeErr.Status, Sender: true, Message: edgeErr.Message, Err: err}
		if edgeErr.Code == sqs.CodeInvalidParameterValue {
			e.Code = sns.CodeInvalidParameter
		}
	case edgeErr != nil:
		e = sns.NewError(sns.CodeInternalError, "The request processing has failed because of an unknown error, exception or failure.")
		e.Err = err
	default:
		e = sns.AsError(err)
	}
	if e.Status >= 500 && !clientGone(c) {
		s.log.Error("sns request failed", "action", c.Action, "request_id", c.RequestID, "err", err)
	}
	return e
}

// wireCode is the code AWS puts on the wire for code: SNS's
// InvalidParameterValueException travels as "ParameterValueInvalid".
func wireCode(code string) string {
	if code == sns.CodeInvalidParameterValue {
		return "ParameterValueInvalid"
	}
	return code
}
