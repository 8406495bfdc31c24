// Package http1 is a lean HTTP/1.1 server for Herald's request and answer
// doors (the AWS door, cache puts), in front of a net/http Server that
// serves everything else.
//
// It answers only requests of a strict, well-formed subset of HTTP/1.1:
// methods POST, PUT and DELETE, an origin-form target, "HTTP/1.1", one Host,
// at most one Content-Length and no Transfer-Encoding, Expect, Upgrade or
// folded header line, the whole header block within 16 KiB. The first
// request of a connection outside that subset, and every request after it,
// go to the net/http Server: the connection is handed over at the request's
// first byte, with the bytes already read replayed, so net/http sees the
// exact stream a client sent and answers or refuses it as it always does.
// No request is ever parsed two ways.
//
// The saving is per request, not per byte: the answer is written with one
// system call, buffers live as long as their connection, and no goroutine
// watches for the client leaving unless a handler runs longer than
// SlowRequest (a long poll); then a read on the idle connection cancels the
// request's context when the client goes, as net/http's does. BENCHMARKS.md
// ("The HTTP edge") measures it against net/http.
//
// Handlers see ordinary *http.Request and http.ResponseWriter values. The
// writer buffers the whole answer and sends it with its length; it does not
// implement http.Flusher or http.Hijacker, which is why streams and
// WebSocket upgrades (GET) stay on net/http.
package http1
