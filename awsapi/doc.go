// Package awsapi is Herald's AWS protocol edge: it answers the requests the
// AWS SDKs and tools send to Amazon SQS and SNS on Herald's one listener.
//
// Routing happens in one place, Handler.Accepts and Handler.ServeHTTP:
//
//   - httpapi serves its own routes (/v1/..., /healthz, /metrics) first and
//     hands a request to this package only when no Herald route matches and
//     Accepts sees an AWS marker: an X-Amz-Target header, a SigV4 signature
//     (Authorization header or presigned X-Amz-Credential), an Action
//     parameter, or an AWS content type (form or x-amz-json).
//   - A request with X-Amz-Target is AWS JSON 1.0; "AmazonSQS.<Action>" goes
//     to SQS. Every other request is the Query protocol.
//   - A Query request goes to the service its SigV4 credential scope names
//     ("sqs", "sns"); an unsigned one to the service that knows its Action,
//     SQS when none does. SNS plugs in through Config.SNS (NewSNSService).
//   - Unsigned SNS ConfirmSubscription and Unsubscribe requests (the URLs
//     SNS sends endpoints) are served anonymously even with signatures
//     checked, as AWS serves them; see AnonymousActions.
//
// Before a service sees a request, the edge reads the body (bounded by
// Config.MaxBodyBytes), checks the signature with the awsauth Verifier
// (and that its credential scope names a region of Config.Regions) and
// works out the caller: the account mapped from the access key (or the
// default account), the scheme and the host queue URLs are built from.
//
// Errors are rendered as AWS renders them: JSON 1.0 errors as
// {"__type", "message"} plus the x-amzn-query-error header, Query errors as
// an <ErrorResponse> document. A client mistake never yields a 500, and
// no error message repeats more than a few hundred bytes of the request
// (herald.Clip, herald.ClipMessage).
package awsapi
