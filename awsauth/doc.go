// Package awsauth verifies AWS Signature Version 4 on requests made to
// Herald's SQS- and SNS-compatible APIs.
//
// Verification never re-implements the signing algorithm: the incoming
// request is reduced to the parts the client declared as signed, and the
// official aws-sdk-go-v2 signer (aws/signer/v4) signs that copy again with
// the secret configured for the client's access key, the region and service
// of the client's credential scope, and the client's X-Amz-Date. The two
// signatures are then compared in constant time, together with the list of
// signed headers.
//
// A Verifier built without keys is disabled: every request passes, which is
// the default of the embedded (development) setup. As soon as keys are
// configured, every request must carry a valid signature, either in the
// Authorization header or as presigned query parameters.
//
// Failures are reported as *Error values carrying the error code and HTTP
// status AWS documents in the "Common Errors" pages of the SQS and SNS API
// references:
//
//	MissingAuthenticationToken  403  no signature at all
//	IncompleteSignature         400  malformed or incomplete signature data
//	InvalidClientTokenId        403  access key not configured
//	SignatureDoesNotMatch       403  signature, scope or signed headers differ
//	RequestExpired              400  X-Amz-Date more than 15 minutes away
//	                                 from now, or presigned URL expired
package awsauth
