package api

// Event is the data of one event of GET /v1/events: a stored message and
// the one of its paths that matched the stream's pattern. In JSON it is the
// Message's members plus "path".
type Event struct {
	Path string `json:"path"`
	Message
}
