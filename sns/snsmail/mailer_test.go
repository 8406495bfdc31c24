package snsmail_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snsmail"
	"github.com/heraldmq/herald/sns/snsmail/smtptest"
)

func newMailer(t *testing.T, addr string) *snsmail.Mailer {
	t.Helper()
	m, err := snsmail.New(snsmail.Config{Addr: addr, From: "sns@herald.test", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewChecksItsConfig(t *testing.T) {
	tests := []struct{ name, addr, from string }{
		{"no port", "localhost", "a@b.test"},
		{"no from", "localhost:25", ""},
		{"from with a name", "localhost:25", "Herald <a@b.test>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := snsmail.New(snsmail.Config{Addr: tc.addr, From: tc.from}); err == nil {
				t.Errorf("New(%q, %q) = nil error", tc.addr, tc.from)
			}
		})
	}
}

func TestSendMailOverSMTP(t *testing.T) {
	sink := smtptest.NewServer(t)
	m := newMailer(t, sink.Addr)
	body := "line one\nHéllo wörld " + strings.Repeat("x", 200) + "\n.starts with a dot\n"
	err := m.SendMail(t.Context(), sns.Mail{To: "ops@example.com", FromName: "Alerts Desk", Subject: "Disk ➜ full", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	got := sink.Wait(t, "ops@example.com", 1, 5*time.Second)
	if got.From != "sns@herald.test" || got.Header.Get("From") != `"Alerts Desk" <sns@herald.test>` {
		t.Errorf("envelope from %q, From header %q", got.From, got.Header.Get("From"))
	}
	if got.Subject != "Disk ➜ full" {
		t.Errorf("subject %q, want %q", got.Subject, "Disk ➜ full")
	}
	if got.Body != body {
		t.Errorf("body %q, want %q", got.Body, body)
	}
	if got.Header.Get("Content-Type") != "text/plain; charset=UTF-8" || got.Header.Get("Message-ID") == "" || got.Header.Get("Date") == "" {
		t.Errorf("headers %v", got.Header)
	}
}

func TestSendMailFailures(t *testing.T) {
	sink := smtptest.NewServer(t)
	m := newMailer(t, sink.Addr)
	sink.Refuse("gone@example.com")
	err := m.SendMail(t.Context(), sns.Mail{To: "gone@example.com", Subject: "s", Body: "b"})
	if err == nil || !sns.IsPermanent(err) {
		t.Errorf("a 550 recipient: err = %v, want a permanent error", err)
	}
	sink.TempFail(1)
	err = m.SendMail(t.Context(), sns.Mail{To: "ops@example.com", Subject: "s", Body: "b"})
	if err == nil || sns.IsPermanent(err) {
		t.Errorf("a 451 recipient: err = %v, want a temporary error", err)
	}
	if err := m.SendMail(t.Context(), sns.Mail{To: "ops@example.com", Subject: "s", Body: "b"}); err != nil {
		t.Errorf("after the 451: %v", err)
	}
	closed := newMailer(t, "127.0.0.1:1")
	if err := closed.SendMail(t.Context(), sns.Mail{To: "ops@example.com", Subject: "s", Body: "b"}); err == nil || sns.IsPermanent(err) {
		t.Errorf("no relay: err = %v, want a temporary error", err)
	}
}
