package ws

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/cache"
)

// BenchmarkLiveFrameWrite writes one live frame (a 1 KiB-body message's,
// with its position) per operation to a raw TCP client on loopback that
// discards what it reads, as a fan-out writes to each subscriber: through
// the library (a copy with the position, then Conn.Write with its locks and
// its flush), or beneath it as writeBatch does (header, frame and position
// gathered into a pooled buffer, one write). The write system call is most
// of either. Run it with -cpu 1: with two Ps the figures are bimodal, as
// the client's reader on the other core is woken or is already running.
func BenchmarkLiveFrameWrite(b *testing.B) {
	now := time.Now()
	m := &cache.Message{ID: uuid.Must(uuid.NewUUID()), ReplicaID: uuid.Must(uuid.NewUUID()),
		Metadata: []byte(`{"paths":["bench.run.0.m"]}`), Body: make([]byte, 1024), ReceivedAt: now, ExpiresAt: now.Add(time.Hour)}
	var enc messageEncoder
	frame, err := enc.liveFrame("bench.run.0.#", "bench.run.0.m", m)
	if err != nil {
		b.Fatal(err)
	}
	const epoch = "0123456789abcdef"
	b.Run("library", func(b *testing.B) {
		p, _, br := newRawFramePair(b, false)
		go io.Copy(io.Discard, br)
		var scratch []byte
		b.SetBytes(int64(len(frame)))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			scratch = appendPosition(append(scratch[:0], frame[:len(frame)-1]...), uint64(i+1), epoch)
			if err := p.server.Write(context.Background(), websocket.MessageText, scratch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("beneath", func(b *testing.B) {
		p, _, br := newRawFramePair(b, true)
		go io.Copy(io.Discard, br)
		pool := batchPool{size: DefaultWriteBufferBytes}
		var pos [positionSize]byte
		b.SetBytes(int64(len(frame)))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			pb := pool.get()
			suffix := appendPosition(pos[:0], uint64(i+1), epoch)
			buf := append(appendTextHeader(*pb, len(frame)-1+len(suffix)), frame[:len(frame)-1]...)
			*pb = append(buf, suffix...)
			if err := p.fw.writeFrames(*pb); err != nil {
				b.Fatal(err)
			}
			pool.put(pb)
		}
	})
}
