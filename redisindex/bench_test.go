package redisindex

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// BenchmarkAddReceiveRemove measures one message's round trip through the
// Index: Add, Receive, Remove (three scripts, three round trips).
func BenchmarkAddReceiveRemove(b *testing.B) {
	for _, fifo := range []bool{false, true} {
		name := "standard"
		if fifo {
			name = "fifo"
		}
		b.Run(name, func(b *testing.B) {
			ix := newIndex(b, Options{})
			ctx := context.Background()
			q := builtQueue(b, ix, fifo)
			// A backlog, so that the sets are not trivially small.
			backlog := make([]sqs.Entry, 1000)
			for i := range backlog {
				backlog[i] = sqs.Entry{ID: uuid.Must(uuid.NewUUID()), Group: "backlog", VisibleAt: at(1_000_000)}
			}
			if err := ix.Add(ctx, q, backlog); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				id := uuid.Must(uuid.NewUUID())
				if err := ix.Add(ctx, q, []sqs.Entry{{ID: id, Group: "g", VisibleAt: at(i)}}); err != nil {
					b.Fatal(err)
				}
				res, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Now: at(i), Max: 1, Until: at(i + 30_000)})
				if err != nil || len(res.Claims) != 1 || res.Claims[0].ID != id {
					b.Fatalf("Receive: %+v, %v; want %v", res, err, id)
				}
				if err := ix.Remove(ctx, q, []uuid.UUID{id}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLimitsTake measures one take from a shared bucket of a rate
// limit (one script, one round trip): what each admitted request of a
// limited account costs on Cassandra, against BenchmarkAddReceiveRemove's
// three round trips.
func BenchmarkLimitsTake(b *testing.B) {
	c := newClient(b)
	l := NewLimits(c, Options{Prefix: freshPrefix(b, c)})
	ctx := context.Background()
	for b.Loop() {
		if _, err := l.Take(ctx, "sqs/bench", 1e9, 1e9, 1); err != nil {
			b.Fatal(err)
		}
	}
}
