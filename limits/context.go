package limits

import "context"

type doorKey struct{}

// WithDoor returns ctx marked as a request that came in through door. An
// edge marks each request it admits from outside (the cache's HTTP API,
// WebSockets, AMQP ingest); the domain services limit the marked ones and
// let Herald's own work, which carries no mark, through.
func WithDoor(ctx context.Context, door string) context.Context {
	return context.WithValue(ctx, doorKey{}, door)
}

// DoorOf is the door ctx was marked with, "" for none.
func DoorOf(ctx context.Context) string {
	d, _ := ctx.Value(doorKey{}).(string)
	return d
}
