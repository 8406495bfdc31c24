// Package access says who a caller is and what it may do, for every door
// into Herald. An edge (the AWS APIs, Herald's HTTP API, WebSockets)
// establishes the caller's [Identity] once, from an access key's signature
// or a token, and puts it in the request's context; the domain services
// (the message cache, SQS, SNS) check it for every action.
//
// [Grants] bound a caller in the message cache: the path patterns it may
// read (query, subscribe to) and the paths it may write, by pattern
// containment (paths.Contains), and the queues a WebSocket client may
// consume.
package access
