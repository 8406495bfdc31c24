package wsload

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"
)

func TestCentrifugoCommands(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"connect with token", centrifugoConnect(1, "t.k.n"), `{"id":1,"connect":{"token":"t.k.n","name":"herald-bench"}}`},
		{"connect without token", centrifugoConnect(1, ""), `{"id":1,"connect":{"name":"herald-bench"}}`},
		{"subscribe", centrifugoSubscribe(2, "bench-r-0"), `{"id":2,"subscribe":{"channel":"bench-r-0"}}`},
		{"publish", centrifugoPublish("bench-r-3", []byte("7 123")), `{"channel":"bench-r-3","data":"7 123"}`},
	}
	for _, tt := range tests {
		if string(tt.got) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestCentrifugoToken(t *testing.T) {
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	token, err := centrifugoToken("s3cret", "bench-4", exp)
	if err != nil {
		t.Fatal(err)
	}
	var claims jwt.RegisteredClaims
	if _, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return []byte("s3cret"), nil },
		jwt.WithValidMethods([]string{"HS256"})); err != nil {
		t.Fatal(err)
	}
	if claims.Subject != "bench-4" || !claims.ExpiresAt.Time.Equal(exp) {
		t.Fatalf("claims %+v", claims)
	}
}

func TestCentrifugoDecode(t *testing.T) {
	sent := time.Unix(0, 1700000000123456789)
	pub := func(n int) string {
		return `{"push":{"channel":"bench-r-0","pub":{"data":"` + string(body(n, sent)) + `","offset":3}}}`
	}
	tests := []struct {
		name  string
		frame string
		want  []int // message numbers, -1 for foreign
		pong  bool
	}{
		{"publication", pub(7), []int{7}, false},
		{"two in one frame", pub(1) + "\n" + pub(2), []int{1, 2}, false},
		{"ping", `{}`, nil, true},
		{"ping and publication", "{}\n" + pub(3) + "\n", []int{3}, true},
		{"data before channel", `{"push":{"pub":{"data":"` + string(body(4, sent)) + `"},"channel":"c"}}`, []int{4}, false},
		{"join push", `{"push":{"channel":"c","join":{"info":{"user":"u"}}}}`, []int{-1}, false},
		{"reply", `{"id":2,"subscribe":{}}`, []int{-1}, false},
		{"foreign data", `{"push":{"channel":"c","pub":{"data":{"x":1}}}}`, []int{-1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, pong := centrifugoProtocol{}.decode([]byte(tt.frame), nil)
			if pong != tt.pong || len(got) != len(tt.want) {
				t.Fatalf("got %+v pong %v", got, pong)
			}
			for i, d := range got {
				if d.n != tt.want[i] || d.n >= 0 && !d.sent.Equal(sent) {
					t.Fatalf("delivery %d: %+v", i, d)
				}
			}
		})
	}
}

// fakeCentrifugo speaks enough of Centrifugo's JSON protocol and server
// API for Run: connect (with an HS256 token), subscribe, /api/publish with
// an API key, a ping before the first publication, and /metrics.
type fakeCentrifugo struct {
	secret, key string

	mu    sync.Mutex
	subs  map[string][]*websocket.Conn
	pongs int
}

func (f *fakeCentrifugo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/metrics":
		io.WriteString(w, "process_resident_memory_bytes 1e6\ngo_memstats_heap_inuse_bytes 5e5\n")
	case "/api/publish":
		f.publish(w, r)
	case "/connection/websocket":
		f.serveConn(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeCentrifugo) publish(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-API-Key") != f.key {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var req struct {
		Channel string          `json:"channel"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		io.WriteString(w, `{"error":{"code":107,"message":"bad request"}}`)
		return
	}
	f.mu.Lock()
	subs := f.subs[req.Channel]
	f.mu.Unlock()
	push := `{}` + "\n" + `{"push":{"channel":"` + req.Channel + `","pub":{"data":` + string(req.Data) + `}}}`
	for _, c := range subs {
		c.Write(r.Context(), websocket.MessageText, []byte(push))
	}
	io.WriteString(w, `{"result":{}}`)
}

func (f *fakeCentrifugo) serveConn(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ctx := context.Background()
	reply := func(s string) { c.Write(ctx, websocket.MessageText, []byte(s)) }
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var cmd struct {
			ID      uint32 `json:"id"`
			Connect *struct {
				Token string `json:"token"`
			} `json:"connect"`
			Subscribe *struct {
				Channel string `json:"channel"`
			} `json:"subscribe"`
		}
		switch {
		case string(b) == "{}":
			f.mu.Lock()
			f.pongs++
			f.mu.Unlock()
		case json.Unmarshal(b, &cmd) != nil:
			c.Close(websocket.StatusPolicyViolation, "bad command")
			return
		case cmd.Connect != nil:
			if _, err := jwt.Parse(cmd.Connect.Token, func(*jwt.Token) (any, error) { return []byte(f.secret), nil }); err != nil {
				reply(`{"id":1,"error":{"code":109,"message":"token expired"}}`)
				continue
			}
			reply(`{"id":1,"connect":{"client":"c","version":"fake","ping":25,"pong":true}}`)
		case cmd.Subscribe != nil:
			f.mu.Lock()
			f.subs[cmd.Subscribe.Channel] = append(f.subs[cmd.Subscribe.Channel], c)
			f.mu.Unlock()
			reply(`{"id":2,"subscribe":{}}`)
		}
	}
}

func TestRunCentrifugo(t *testing.T) {
	fake := &fakeCentrifugo{secret: "s", key: "k", subs: map[string][]*websocket.Conn{}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var progress strings.Builder
	res, err := Run(ctx, Config{Server: srv.URL, Protocol: ProtocolCentrifugo, APIKey: "k", TokenSecret: "s",
		Connections: 20, Patterns: 2, Messages: 6, Rate: 100, Timeout: 5 * time.Second, Settle: -1, Progress: &progress})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if res.Protocol != ProtocolCentrifugo || res.Connected != 20 || res.Published != 6 || res.Expected != 60 || res.Delivered != 60 ||
		res.Lost != 0 || res.Duplicates != 0 || res.Foreign != 0 {
		t.Fatalf("result %+v", res)
	}
	fake.mu.Lock()
	pongs := fake.pongs
	fake.mu.Unlock()
	if pongs == 0 {
		t.Fatal("no ping answered")
	}

	res, err = Run(ctx, Config{Server: srv.URL, Protocol: ProtocolCentrifugo, APIKey: "k", TokenSecret: "wrong",
		Connections: 2, Patterns: 1, Messages: 1, Rate: 1, Timeout: 2 * time.Second, Settle: -1})
	if err == nil || res.ConnectFailures != 2 || !strings.Contains(res.ConnectError, "token expired") {
		t.Fatalf("bad token: %+v, %v", res, err)
	}
	res, err = Run(ctx, Config{Server: srv.URL, Protocol: ProtocolCentrifugo, APIKey: "wrong", TokenSecret: "s",
		Connections: 1, Patterns: 1, Messages: 1, Rate: 1, Timeout: 2 * time.Second, Settle: -1})
	if err != nil || res.PublishFailures != 1 || !strings.Contains(res.PublishError, "HTTP 401") {
		t.Fatalf("bad key: %+v, %v", res, err)
	}
}
