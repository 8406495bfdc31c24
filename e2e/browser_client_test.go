package e2e

import (
	"encoding/base64"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// TestBrowserClientReconnect runs the JavaScript client library
// (web/client/herald.js) in headless Chromium through its test page
// (/client/test.html?scenario=reconnect), served, like the WebSocket, through
// a TCP proxy in front of herald serve. The page subscribes to a pattern and
// a queue and gets a message published over HTTP; then the server is
// restarted on the same data directory (the page sees 1001) while the proxy
// refuses connections, a message is published and one sent to the queue,
// and the proxy lets the page reconnect: the library must resubscribe with
// recover, deliver the missed message exactly once, and get the queue
// message, which the page acks (the queue is then empty).
func TestBrowserClientReconnect(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := ctxFor(t, 2*time.Minute)
	p := startCutProxy(t, strings.TrimPrefix(s.URL, "http://"))
	url := newQueue(t, sqsClient(s), "", nil)
	queue := url[strings.LastIndex(url, "/")+1:]
	word := uniqueWord(t)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

	pageURL := "http://" + p.addr() + "/client/test.html?scenario=reconnect&word=" + word + "&queue=" + queue
	s2 := s
	title := watchPage(t, ctx, chromium, pageURL, func(title string) bool {
		switch title {
		case "CLIENT STEP 1":
			putHTTP(t, s, word+".a", b64("one"))
		case "CLIENT STEP 2":
			p.block()
			s.stop(t)
			s2 = startServer(t, s.DataDir)
			p.setTarget(strings.TrimPrefix(s2.URL, "http://"))
			putHTTP(t, s2, word+".b", b64("two"))
			q := sqsClient(s2)
			out, err := q.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(queue)})
			if err != nil {
				t.Fatalf("GetQueueUrl after the restart: %v", err)
			}
			url = aws.ToString(out.QueueUrl)
			if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String("q1")}); err != nil {
				t.Fatal(err)
			}
			p.unblock()
		}
		return strings.HasPrefix(title, "CLIENT PASS") || strings.HasPrefix(title, "CLIENT FAIL")
	})
	if !strings.HasPrefix(title, "CLIENT PASS") {
		t.Fatalf("page reported %q\nserver log:\n%s\n%s", title, s.logs(), s2.logs())
	}
	if s2 == s {
		t.Fatal("the page passed without the restart")
	}
	// The page acked the queue message: nothing is left, visible or not.
	out, err := sqsClient(s2).GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"} {
		if out.Attributes[a] != "0" {
			t.Errorf("%s is %s after the page acked the queue's only message, want 0", a, out.Attributes[a])
		}
	}
}

// TestBrowserClientTerminalClose: the library does not reconnect after a
// close code of the terminal range (4501, a bad token where anonymous
// access is off), and its shouldReconnect and backoff follow
// docs/websocket.md (/client/test.html?scenario=terminal).
func TestBrowserClientTerminalClose(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "", "--ws-anonymous=false", "--ws-jwt-secret=e2e-client-secret")
	ctx := ctxFor(t, 2*time.Minute)
	title := watchPage(t, ctx, chromium, s.URL+"/client/test.html?scenario=terminal&token=not-a-jwt", func(title string) bool {
		return strings.HasPrefix(title, "CLIENT PASS") || strings.HasPrefix(title, "CLIENT FAIL")
	})
	if title != "CLIENT PASS 4501" {
		t.Fatalf("page reported %q, want CLIENT PASS 4501\nserver log:\n%s", title, s.logs())
	}
}

// cutProxy is a TCP proxy to a server that a test can make refuse
// connections (each is closed at once) and point at another server.
type cutProxy struct {
	ln      net.Listener
	mu      sync.Mutex
	target  string
	blocked bool
}

func startCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			blocked, target := p.blocked, p.target
			p.mu.Unlock()
			if blocked {
				c.Close()
				continue
			}
			go p.pipe(c, target)
		}
	}()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) block()   { p.mu.Lock(); p.blocked = true; p.mu.Unlock() }
func (p *cutProxy) unblock() { p.mu.Lock(); p.blocked = false; p.mu.Unlock() }

func (p *cutProxy) setTarget(target string) { p.mu.Lock(); p.target = target; p.mu.Unlock() }

// pipe copies bytes both ways between c and a new connection to target
// until either side ends, then closes both.
func (p *cutProxy) pipe(c net.Conn, target string) {
	defer c.Close()
	d, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		return
	}
	defer d.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(d, c); done <- struct{}{} }()
	go func() { io.Copy(c, d); done <- struct{}{} }()
	<-done
}

// TestBrowserClientRecoversAGap: a message frame lost between the server
// and the page (dropped by a proxy at an exact step) shows as a skipped
// offset; the library reports the gap, reconnects and recovers the lost
// message and the one after it, each delivered once
// (/client/test.html?scenario=gap).
func TestBrowserClientRecoversAGap(t *testing.T) {
	chromium := findChromium(t)
	s := startServer(t, "")
	ctx := ctxFor(t, 2*time.Minute)
	p := startDropProxy(t, strings.TrimPrefix(s.URL, "http://"))
	word := uniqueWord(t)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	title := watchPage(t, ctx, chromium, "http://"+p.addr()+"/client/test.html?scenario=gap&word="+word, func(title string) bool {
		switch title {
		case "CLIENT STEP 1":
			putHTTP(t, s, word+".a", b64("0"))
		case "CLIENT STEP 2":
			p.arm(`"source":"live"`)
			putHTTP(t, s, word+".a", b64("1"))
			putHTTP(t, s, word+".a", b64("2"))
		}
		return strings.HasPrefix(title, "CLIENT PASS") || strings.HasPrefix(title, "CLIENT FAIL")
	})
	if title != "CLIENT PASS 2" {
		t.Fatalf("page reported %q, want CLIENT PASS 2 (two connections)\nserver log:\n%s", title, s.logs())
	}
	if n := p.dropped.Load(); n != 1 {
		t.Fatalf("the proxy dropped %d frames, want 1", n)
	}
}
