package httpapi

import "github.com/heraldmq/herald/api"

// DecodePutRequest reads one message as POST /v1/messages reads its body:
// strictly (unknown or repeated members refused, body base64), with the
// same errors (herald.EInvalid). The WebSocket gateway's publish frames
// read their message with it, so the two cannot drift apart.
func DecodePutRequest(data []byte) (api.PutRequest, error) {
	var req api.PutRequest
	err := decodeStrict(data, &req)
	return req, err
}
