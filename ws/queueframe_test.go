package ws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/sqs"
)

// levelLog records the level of every log record (and passes it on to
// the test's log).
type levelLog struct {
	slog.Handler
	mu     *sync.Mutex
	levels *[]slog.Level
}

func newLevelLog(t *testing.T) (*slog.Logger, func() []slog.Level) {
	l := levelLog{
		Handler: slog.NewTextHandler(newTestWriter(t), &slog.HandlerOptions{Level: slog.LevelDebug}),
		mu:      new(sync.Mutex),
		levels:  new([]slog.Level),
	}
	return slog.New(l), func() []slog.Level {
		l.mu.Lock()
		defer l.mu.Unlock()
		return append([]slog.Level(nil), *l.levels...)
	}
}

func (l levelLog) Handle(ctx context.Context, r slog.Record) error {
	l.mu.Lock()
	*l.levels = append(*l.levels, r.Level)
	l.mu.Unlock()
	return l.Handler.Handle(ctx, r)
}

func (l levelLog) WithAttrs(as []slog.Attr) slog.Handler {
	return levelLog{Handler: l.Handler.WithAttrs(as), mu: l.mu, levels: l.levels}
}

func (l levelLog) WithGroup(name string) slog.Handler {
	return levelLog{Handler: l.Handler.WithGroup(name), mu: l.mu, levels: l.levels}
}

// newQueueWSEnv serves the WebSocket endpoint with queue push over an
// in-memory SQS service, logging to a recorder.
func newQueueWSEnv(t *testing.T) (*env, *queueEnv, func() []slog.Level) {
	t.Helper()
	qe := newQueueEnv(t)
	logger, levels := newLevelLog(t)
	e := newEnv(t, func(c *Config) {
		c.Logger = logger
		c.NewQueuePush = func(_ context.Context, _ access.Identity, queue string, vt, maxInFlight int, send func(any) error) (QueuePush, error) {
			return NewSQSQueuePush(qe.svc, queueTestCaller, queue, vt, maxInFlight, send)
		}
	})
	return e, qe, levels
}

// TestAckNackMalformedHandle checks that ack and nack with a receipt
// handle Herald never issued are the client's error ("invalid", with the
// request's id), not Herald's, and log nothing above INFO.
func TestAckNackMalformedHandle(t *testing.T) {
	e, qe, levels := newQueueWSEnv(t)
	c := e.dial(t)
	c.send(map[string]any{"type": "subscribe_queue", "id": "s", "queue": qe.url})
	c.expect("subscribed")

	handles := []string{"garbage", "", "AQEB!!not-base64!!", strings.Repeat("x", 100<<10)}
	for i, h := range handles {
		if h == "" {
			continue // a missing handle is an invalid_frame, tested elsewhere
		}
		for _, typ := range []string{"ack", "nack"} {
			id := fmt.Sprintf("%s-%d", typ, i)
			c.send(map[string]any{"type": typ, "id": id, "queue": qe.url, "receipt_handle": h})
			f := c.expect("error")
			if f.str("id") != id || f.str("code") != codeInvalid {
				t.Fatalf("%s with handle %.40q: frame %v, want code %q and id %q", typ, h, f, codeInvalid, id)
			}
			if msg := f.str("message"); msg == "" || len(msg) > 2<<10 {
				t.Fatalf("%s: message of %d bytes: %.300q", typ, len(msg), msg)
			}
		}
	}
	for _, l := range levels() {
		if l > slog.LevelInfo {
			t.Fatalf("a malformed receipt handle was logged at %v", l)
		}
	}
}

// TestErrorFramesBounded checks that error frames stay small whatever
// the frame they answer repeats: a huge type, query, queue or pattern.
func TestErrorFramesBounded(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Authenticate = nil
		c.MaxMalformed = 100
	})
	c := e.dial(t)
	huge := strings.Repeat("y", 512<<10)
	frames := []map[string]any{
		{"type": huge, "id": "1"},
		{"type": "query", "id": "2", "query": huge},
		{"type": "subscribe", "id": "3", "pattern": "a", "mode": huge},
		{"type": "unsubscribe_queue", "id": "4", "queue": huge},
		{"type": "unsubscribe", "id": "5", "pattern": huge},
		{"type": "subscribe", "id": "6", "pattern": huge + "/#/x"},
		{"type": "subscribe", "id": "7", "pattern": "a", "mode": "recover", "since": huge},
	}
	for _, fr := range frames {
		c.send(fr)
		f := c.expect("error")
		if f.str("id") != fr["id"] {
			t.Fatalf("error frame %v answers another request than %v", f["id"], fr["id"])
		}
		if msg := f.str("message"); len(msg) > herald.ClipMessageBytes+32 {
			t.Fatalf("frame %v: message of %d bytes: %.300q", fr["id"], len(msg), msg)
		}
	}
}

// TestCodeOfSQSErrors checks the mapping of SQS errors to error frame
// codes: the client's faults by their meaning, only Herald's own as
// internal.
func TestCodeOfSQSErrors(t *testing.T) {
	cases := []struct {
		err  error
		code string
	}{
		{sqs.ErrReceiptHandleIsInvalid("x"), codeInvalid},
		{sqs.ErrInvalidParameterValue("bad"), codeInvalid},
		{sqs.NewError(sqs.CodeMessageNotInflight, "not in flight"), codeInvalid},
		{fmt.Errorf("ack: %w", sqs.ErrReceiptHandleIsInvalid("x")), codeInvalid},
		{sqs.NewError(sqs.CodeAccessDenied, "no"), codeForbidden},
		{sqs.ErrQueueDoesNotExist(), codeNotFound},
		{sqs.ErrServiceUnavailable(errors.New("down")), codeUnavailable},
		{sqs.ErrInternal(errors.New("bug")), codeInternal},
		{sqs.AsError(herald.Errorf(herald.ENotFound, "gone")), codeNotFound},
		{ErrQueuePushClosed, codeNotFound},
		{fmt.Errorf("queue q: %w", ErrForbidden), codeForbidden},
		{herald.Errorf(herald.EInvalid, "bad"), codeInvalid},
		{herald.Errorf(herald.EForbidden, "not yours"), codeForbidden},
		{errors.New("unexpected"), codeInternal},
	}
	for _, tc := range cases {
		if got := codeOf(tc.err); got != tc.code {
			t.Errorf("codeOf(%v) = %q, want %q", tc.err, got, tc.code)
		}
		msg := messageOf(tc.err)
		if tc.code == codeInternal && msg != "internal error" {
			t.Errorf("messageOf(%v) = %q reveals an internal error", tc.err, msg)
		}
		var se *sqs.Error
		if tc.code != codeInternal && errors.As(tc.err, &se) && msg != se.Message {
			t.Errorf("messageOf(%v) = %q, want the SQS message %q", tc.err, msg, se.Message)
		}
	}
}
