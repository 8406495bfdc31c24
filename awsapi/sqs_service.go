package awsapi

import (
	"context"
	"encoding/xml"
	"errors"
	"log/slog"
	"net/http"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/sqs"
)

// sqsNamespace is the XML namespace of SQS Query responses.
const sqsNamespace = "http://queue.amazonaws.com/doc/2012-11-05/"

// sqsService answers SQS requests in both protocols over an sqs.API.
type sqsService struct {
	api sqs.API
	log *slog.Logger
}

func (s *sqsService) SigningName() string { return sqsSigningName }

func (s *sqsService) HasAction(action string) bool {
	_, ok := sqsQueryActions[action]
	return ok
}

// serveJSON answers an AWS JSON 1.0 request for c.Action.
func (s *sqsService) serveJSON(w http.ResponseWriter, c *Call) {
	act, ok := sqsJSONActions[c.Action]
	if !ok {
		s.writeJSONError(w, c, sqs.ErrUnknownOperation(herald.Clip(c.Action)))
		return
	}
	d := newJSONDecoder(c)
	defer d.release()
	out, err := act(c.Request.Context(), s.api, callerOf(c), d)
	if err != nil {
		s.writeJSONError(w, c, err)
		return
	}
	if err := writeJSONResponse(w, http.StatusOK, out); err != nil {
		s.writeJSONError(w, c, sqs.ErrInternal(err))
	}
}

// ServeQuery answers a Query request for c.Action.
func (s *sqsService) ServeQuery(w http.ResponseWriter, c *Call) {
	act, ok := sqsQueryActions[c.Action]
	if !ok {
		s.WriteQueryError(w, c, sqs.ErrInvalidAction(herald.Clip(c.Action)))
		return
	}
	if accountActions[c.Action] && pathQueueURL(c) != "" {
		s.WriteQueryError(w, c, sqs.NewError(sqs.CodeInvalidAction, "The action %s is not valid for this endpoint.", c.Action))
		return
	}
	result, err := act(c.Request.Context(), s.api, callerOf(c), newQueryParams(c))
	if err != nil {
		s.WriteQueryError(w, c, err)
		return
	}
	resp := queryResponse{
		XMLName:  xml.Name{Local: c.Action + "Response"},
		Xmlns:    sqsNamespace,
		Result:   result,
		Metadata: responseMetadata{RequestID: c.RequestID},
	}
	writeXML(w, http.StatusOK, resp)
}

// WriteQueryError answers with err as an SQS <ErrorResponse>. Like every
// error writer of the edge, it bounds the message with herald.ClipMessage.
func (s *sqsService) WriteQueryError(w http.ResponseWriter, c *Call, err error) {
	e := s.toError(c, err)
	if e.Code == sqs.CodeRequestThrottled {
		limits.PauseBeforeAnswer(c.Request.Context(), err)
	}
	writeXML(w, e.Status, xmlErrorResponse{
		Xmlns:     sqsNamespace,
		Error:     xmlError{Type: e.Fault(), Code: herald.Clip(e.QueryCode), Message: herald.ClipMessage(e.QueryText())},
		RequestID: c.RequestID,
	})
}

// writeJSONError answers with err as an AWS JSON 1.0 error.
func (s *sqsService) writeJSONError(w http.ResponseWriter, c *Call, err error) {
	e := s.toError(c, err)
	if e.Code == sqs.CodeRequestThrottled {
		limits.PauseBeforeAnswer(c.Request.Context(), err)
	}
	jsonType := e.JSONType()
	// Codes are Herald's own, never client input; the header is clipped
	// all the same so that no header can grow with a request.
	w.Header().Set("x-amzn-query-error", herald.Clip(e.QueryErrorHeader()))
	writeJSONResponse(w, e.Status, jsonErrorBody{Type: herald.Clip(jsonType), Message: herald.ClipMessage(e.Message)})
}

// toError converts any error met answering c into an *sqs.Error, logging
// those that are Herald's fault.
func (s *sqsService) toError(c *Call, err error) *sqs.Error {
	var authErr *awsauth.Error
	var e *sqs.Error
	if errors.As(err, &authErr) {
		e = sqs.NewError(authErr.Code, "%s", authErr.Message)
		e.Status = authErr.Status
	} else {
		e = sqs.AsError(err)
	}
	if e.Status >= 500 && !clientGone(c) {
		s.log.Error("sqs request failed", "action", c.Action, "request_id", c.RequestID, "err", err)
	}
	return e
}

// clientGone reports whether the client hung up (a long poll abandoned),
// which is not a failure worth logging.
func clientGone(c *Call) bool {
	return errors.Is(c.Request.Context().Err(), context.Canceled)
}

// callerOf is c as the SQS service sees its caller.
func callerOf(c *Call) sqs.Caller {
	return sqs.Caller{Account: c.Account, Region: c.region(), SenderID: c.SenderID, Scheme: c.Scheme, Host: c.Host,
		TraceHeader: c.Request.Header.Get("X-Amzn-Trace-Id")}
}

// pathQueueURL is the queue URL a request addresses by its path, as when
// an SDK posts to the queue URL itself, or "" for requests to "/".
// accountActions act on an account, not on one queue: as AWS does, a
// Query request for one of them sent to a queue URL is InvalidAction.
var accountActions = map[string]bool{"CreateQueue": true, "GetQueueUrl": true, "ListQueues": true}

func pathQueueURL(c *Call) string {
	p := c.Request.URL.Path
	if p == "" || p == "/" {
		return ""
	}
	return c.Scheme + "://" + c.Host + p
}
