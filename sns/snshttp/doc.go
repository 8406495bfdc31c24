// Package snshttp delivers SNS notifications to http and https endpoints
// the way Amazon SNS does: the JSON envelopes (Notification,
// SubscriptionConfirmation, UnsubscribeConfirmation) or the raw message,
// AWS's x-amz-sns-* headers, RSA signatures of SignatureVersion 1
// (SHA1withRSA) and 2 (SHA256withRSA) with a certificate Herald serves at
// SigningCertURL, and a bounded HTTP client pool with timeouts so that one
// dead endpoint cannot stall the others.
//
// Deliverer makes one attempt per call; retries follow sns.DeliveryPolicy
// and are the caller's job. Verify is the subscriber's side of the
// signature check, written apart from the signing code so that each tests
// the other.
package snshttp
