// Package snsmail sends the mail of SNS email and email-json subscriptions
// over SMTP with the standard library's net/smtp: to a relay (host:port),
// from one configured address, with STARTTLS when the relay offers it (or
// implicit TLS), and PLAIN authentication when a user name is configured.
// A relay's 5xx answer is a permanent failure (sns.Permanent); anything
// else is retried by the SNS service.
package snsmail
