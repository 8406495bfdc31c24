package http1

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkServe compares the lean server with net/http on the shape of an
// SQS JSON call: a signed-size head, a 1 KiB body read whole, a small JSON
// answer. Each parallel client holds one kept-alive connection and waits
// for each answer (no pipelining), as SDKs do. Client and server share the
// process, so allocations count both; the client is the same on both sides.
func BenchmarkServe(b *testing.B) {
	answer := []byte(`{"MessageId":"00000000-0000-4000-8000-000000000000","MD5OfMessageBody":"0123456789abcdef0123456789abcdef"}`)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.Header.Get("X-Amz-Target") == "" {
			http.Error(w, "no target", http.StatusBadRequest)
			return
		}
		w.Header()["Content-Type"] = []string{"application/x-amz-json-1.0"}
		w.Write(answer)
	})
	body := strings.Repeat("x", 1024)
	req := "POST / HTTP/1.1\r\nHost: 127.0.0.1:4566\r\nUser-Agent: aws-sdk-go-v2/1.36.3 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/sqs#1.38.1\r\n" +
		"Content-Length: 1024\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: AmazonSQS.SendMessage\r\n" +
		"X-Amz-Date: 20261205T000000Z\r\nAmz-Sdk-Invocation-Id: 3f1b5c2e-8d4a-4e6b-9c7d-1a2b3c4d5e6f\r\nAmz-Sdk-Request: attempt=1; max=3\r\n" +
		"Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261205/us-east-1/sqs/aws4_request, SignedHeaders=amz-sdk-invocation-id;content-type;host;x-amz-date;x-amz-target, Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\r\n" +
		"Accept-Encoding: gzip\r\n\r\n" + body
	leanAddr, stdAddr, _ := startServers(b, h)
	for _, bc := range []struct{ name, addr string }{{"lean", leanAddr}, {"net-http", stdAddr}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				c, err := net.Dial("tcp", bc.addr)
				if err != nil {
					b.Error(err)
					return
				}
				defer c.Close()
				br := bufio.NewReader(c)
				for pb.Next() {
					if _, err := io.WriteString(c, req); err != nil {
						b.Error(err)
						return
					}
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
		})
	}
}
