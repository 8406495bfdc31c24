// Package sqs is Herald's SQS-compatible queue service: it lets the official
// AWS SDKs (aws-sdk-go-v2, boto3, ...) talk to Herald without changes.
//
// This first part holds the wire-independent rules only: the AWS error codes
// and their HTTP statuses, queue names, ARNs and URLs, queue attributes and
// their validation, and message checks with the MD5 digests that the SDKs
// verify. Nothing here touches storage or HTTP; the protocol edges (JSON 1.0
// and the legacy Query/XML protocol) and the storage engines build on it.
package sqs
