// Package wsauth authenticates WebSocket clients of Herald with JSON Web
// Tokens and says what a token allows.
//
// A token is read from the request's "Authorization: Bearer" header or its
// "token" query parameter. It is verified with HS256 against a shared
// secret, or with RS256 or ES256 against configured public keys; any other
// algorithm (including "none") is rejected, and so are expired tokens. Its
// "herald" claim lists the [Grants]: the patterns it may subscribe to, the
// patterns it may publish under and the queues it may consume.
package wsauth
