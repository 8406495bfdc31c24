// Package smtptest is an SMTP sink for tests: an in-process server on
// loopback that speaks enough SMTP for net/smtp (EHLO/HELO, MAIL, RCPT,
// DATA, RSET, NOOP, QUIT) and keeps every message it accepts. It is a fake
// that receives, not a mail server: no TLS, no authentication, no relay.
package smtptest

import (
	"bufio"
	"io"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one accepted message.
type Message struct {
	From    string
	To      []string
	Data    []byte // as received, headers and body
	Header  mail.Header
	Body    string // decoded from quoted-printable when so encoded
	Subject string // decoded
}

// Server is a running sink.
type Server struct {
	Addr string // host:port

	ln       net.Listener
	mu       sync.Mutex
	msgs     []Message
	arrived  chan struct{}
	tempFail int             // answer 451 to this many RCPTs first
	refuse   map[string]bool // recipients answered 550
	wg       sync.WaitGroup
}

// NewServer starts a sink on 127.0.0.1 that stops when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), ln: ln, arrived: make(chan struct{}, 1024), refuse: map[string]bool{}}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

// TempFail makes the next n recipients get 451 (try again later).
func (s *Server) TempFail(n int) {
	s.mu.Lock()
	s.tempFail = n
	s.mu.Unlock()
}

// Refuse makes recipient get 550 (no such mailbox).
func (s *Server) Refuse(recipient string) {
	s.mu.Lock()
	s.refuse[recipient] = true
	s.mu.Unlock()
}

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// To returns the messages accepted for recipient.
func (s *Server) To(recipient string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		for _, r := range m.To {
			if r == recipient {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// Wait waits up to d for the n-th message to recipient and returns it.
func (s *Server) Wait(t testing.TB, recipient string, n int, d time.Duration) Message {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if got := s.To(recipient); len(got) >= n {
			return got[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("smtptest: %d messages to %s within %v, want %d", len(s.To(recipient)), recipient, d, n)
		}
		select {
		case <-s.arrived:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.serve(conn) }()
	}
}

// address is the <...> of a MAIL FROM or RCPT TO argument.
func address(arg string) string {
	i, j := strings.IndexByte(arg, '<'), strings.LastIndexByte(arg, '>')
	if i < 0 || j < i {
		return ""
	}
	return arg[i+1 : j]
}

func (s *Server) serve(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	tp := textproto.NewConn(conn)
	reply := func(line string) { _ = tp.PrintfLine("%s", line) }
	reply("220 smtptest ESMTP")
	var from string
	var to []string
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			reply("250-smtptest")
			reply("250 8BITMIME")
		case "HELO":
			reply("250 smtptest")
		case "MAIL":
			from, to = address(arg), nil
			reply("250 OK")
		case "RCPT":
			rcpt := address(arg)
			s.mu.Lock()
			temp, refused := s.tempFail > 0, s.refuse[rcpt]
			if temp {
				s.tempFail--
			}
			s.mu.Unlock()
			switch {
			case refused:
				reply("550 no such mailbox")
			case temp:
				reply("451 try again later")
			default:
				to = append(to, rcpt)
				reply("250 OK")
			}
		case "DATA":
			if len(to) == 0 {
				reply("503 no recipients")
				continue
			}
			reply("354 end with <CRLF>.<CRLF>")
			data, err := io.ReadAll(tp.DotReader())
			if err != nil {
				return
			}
			s.keep(from, to, data)
			reply("250 OK")
		case "RSET":
			from, to = "", nil
			reply("250 OK")
		case "NOOP":
			reply("250 OK")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 not implemented")
		}
	}
}

func (s *Server) keep(from string, to []string, data []byte) {
	m := Message{From: from, To: to, Data: data}
	if parsed, err := mail.ReadMessage(strings.NewReader(string(data))); err == nil {
		m.Header = parsed.Header
		var body io.Reader = parsed.Body
		if strings.EqualFold(parsed.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			body = quotedprintable.NewReader(body)
		}
		b, _ := io.ReadAll(bufio.NewReader(body))
		m.Body = strings.ReplaceAll(string(b), "\r\n", "\n")
		dec := new(mimeDecoder)
		m.Subject = dec.decode(parsed.Header.Get("Subject"))
	}
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	s.mu.Unlock()
	select {
	case s.arrived <- struct{}{}:
	default:
	}
}
