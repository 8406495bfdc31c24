package http1

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReplayConnReadsBufferedBytesFirst: a handed-over connection reads
// what the lean server had buffered, then the rest of the stream, and the
// lean server's reader is left detached (it goes back to the pool).
func TestReplayConnReadsBufferedBytesFirst(t *testing.T) {
	for _, buffered := range []int{0, 16, 300} { // bufio's smallest buffer is 16 bytes
		server, client := net.Pipe()
		stream := strings.Repeat("0123456789", 40)
		go func() {
			io.WriteString(client, stream)
			client.Close()
		}()
		br := bufio.NewReaderSize(server, max(buffered, 16))
		if buffered > 0 {
			if _, err := br.Peek(buffered); err != nil {
				t.Fatal(err)
			}
		}
		held := br.Buffered()
		rc := newReplayConn(server, br)
		if br.Buffered() != 0 {
			t.Fatalf("buffered %d: the lean reader still holds %d bytes", buffered, br.Buffered())
		}
		if held < buffered || len(rc.pending) != held {
			t.Fatalf("buffered %d: the lean reader held %d bytes, the replay holds %d", buffered, held, len(rc.pending))
		}
		got, err := io.ReadAll(iotest.OneByteReader(rc)) // small reads cross the replayed part's end
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != stream {
			t.Fatalf("buffered %d: read %q, want %q", buffered, got, stream)
		}
	}
}

// BenchmarkHandedOverConnection opens a connection, sends a GET (which the
// lean server hands to net/http, as a WebSocket upgrade is) and reads the
// answer: the memory one such connection costs the server.
func BenchmarkHandedOverConnection(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	leanAddr, _, _ := startServers(b, h)
	req := "GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\nConnection: close\r\n\r\n"
	b.ReportAllocs()
	for b.Loop() {
		c, err := net.Dial("tcp", leanAddr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.WriteString(c, req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		c.Close()
	}
}

// TestPoolKeepsOnlyHeaderSizedReaders: a reader of another size handed to
// the pool (as the test above hands one over) is dropped, so no connection
// reads its requests through a buffer too small for a header block.
func TestPoolKeepsOnlyHeaderSizedReaders(t *testing.T) {
	for range 100 {
		putReader(bufio.NewReaderSize(nil, 16))
	}
	for range 100 {
		if br := readerPool.Get().(*bufio.Reader); br.Size() != maxHeaderBytes {
			t.Fatalf("the pool gave a reader of %d bytes, want %d", br.Size(), maxHeaderBytes)
		}
	}
}
