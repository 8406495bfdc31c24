package snsmail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"

	"github.com/heraldmq/herald/sns"
)

// Config configures a Mailer.
type Config struct {
	// Addr is the SMTP relay, host:port.
	Addr string
	// From is the sender's address (user@domain); the topic's DisplayName,
	// when it has one, is its name.
	From string
	// Username and Password, when Username is set, authenticate with PLAIN
	// (net/smtp sends it only over TLS, or to localhost).
	Username, Password string
	// TLS connects with TLS from the start (port 465); otherwise STARTTLS
	// is used when the relay offers it.
	TLS bool
	// Timeout bounds one mail's whole conversation (30 s).
	Timeout time.Duration
	// TLSConfig, if set, is used for TLS and STARTTLS (tests).
	TLSConfig *tls.Config
}

// Mailer sends SNS mail over SMTP; it implements sns.Mailer.
type Mailer struct {
	cfg  Config
	host string
}

var _ sns.Mailer = (*Mailer)(nil)

// New checks cfg and returns its Mailer.
func New(cfg Config) (*Mailer, error) {
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil || host == "" {
		return nil, fmt.Errorf("smtp address %q: want host:port", cfg.Addr)
	}
	a, err := mail.ParseAddress(cfg.From)
	if err != nil || a.Name != "" || a.Address != cfg.From {
		return nil, fmt.Errorf("smtp from %q: want an address, user@domain", cfg.From)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &Mailer{cfg: cfg, host: host}, nil
}

// SendMail delivers m to the relay: one connection, one message.
func (m *Mailer) SendMail(ctx context.Context, msg sns.Mail) error {
	data, err := m.compose(msg, time.Now())
	if err != nil {
		return sns.Permanent(err)
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", m.cfg.Addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if m.cfg.TLS {
		conn = tls.Client(conn, m.tlsConfig())
	}
	c, err := smtp.NewClient(conn, m.host)
	if err != nil {
		return classify(err)
	}
	defer c.Close()
	if !m.cfg.TLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(m.tlsConfig()); err != nil {
				return classify(err)
			}
		}
	}
	if m.cfg.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", m.cfg.Username, m.cfg.Password, m.host)); err != nil {
			return classify(err)
		}
	}
	if err := c.Mail(m.cfg.From); err != nil {
		return classify(err)
	}
	if err := c.Rcpt(msg.To); err != nil {
		return classify(err)
	}
	w, err := c.Data()
	if err != nil {
		return classify(err)
	}
	if _, err := w.Write(data); err != nil {
		return classify(err)
	}
	if err := w.Close(); err != nil {
		return classify(err)
	}
	return classify(c.Quit())
}

func (m *Mailer) tlsConfig() *tls.Config {
	if m.cfg.TLSConfig != nil {
		return m.cfg.TLSConfig
	}
	return &tls.Config{ServerName: m.host}
}

// classify marks the relay's permanent refusals (5xx) as permanent.
func classify(err error) error {
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return sns.Permanent(err)
	}
	return err
}

// compose writes the message: headers (non-ASCII words encoded), then the
// text as quoted-printable UTF-8.
func (m *Mailer) compose(msg sns.Mail, now time.Time) ([]byte, error) {
	if strings.ContainsAny(msg.To, "\r\n") {
		return nil, fmt.Errorf("recipient %q", msg.To)
	}
	from := (&mail.Address{Name: msg.FromName, Address: m.cfg.From}).String()
	var id [12]byte
	_, _ = rand.Read(id[:])
	domain := m.cfg.From[strings.LastIndexByte(m.cfg.From, '@')+1:]
	var b bytes.Buffer
	header := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	header("From", from)
	header("To", "<"+msg.To+">")
	header("Subject", mime.QEncoding.Encode("utf-8", strings.NewReplacer("\r", " ", "\n", " ").Replace(msg.Subject)))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", "<"+hex.EncodeToString(id[:])+"@"+domain+">")
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=UTF-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(msg.Body)); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
