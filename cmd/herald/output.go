package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
)

// registerOutput adds --output text|json to a client command.
func (cf *clientFlags) registerOutput(fs *flag.FlagSet) {
	cf.output = "text"
	fs.Var(outputValue{&cf.output}, "output", "text (for people) or json (for scripts); message bodies are shown as text when they are UTF-8, else as base64 (said so by body_encoding)")
}

// show prints v as JSON with --output json, else calls text.
func (cf *clientFlags) show(w io.Writer, v any, text func(w io.Writer) error) error {
	if cf.output == "json" {
		return printJSON(w, v)
	}
	return text(w)
}

// shownMessage is a cache message as the CLI prints it: the body as text
// when it is UTF-8, else base64, and body_encoding saying which.
type shownMessage struct {
	MessageUUID  string          `json:"message_uuid"`
	ReplicaUUID  string          `json:"replica_uuid"`
	Metadata     json.RawMessage `json:"metadata"`
	Body         string          `json:"body"`
	BodyEncoding string          `json:"body_encoding"` // text or base64
	ReceivedAt   string          `json:"received_at"`
	ExpiresAt    string          `json:"expires_at"`
}

// decodeBody is a body as text when it is UTF-8, else base64.
func decodeBody(b []byte) (body, encoding string) {
	if utf8.Valid(b) {
		return string(b), "text"
	}
	return base64.StdEncoding.EncodeToString(b), "base64"
}

func showMessage(m api.Message) shownMessage {
	body, enc := decodeBody(m.Body)
	return shownMessage{MessageUUID: m.MessageUUID, ReplicaUUID: m.ReplicaUUID, Metadata: m.Metadata,
		Body: body, BodyEncoding: enc, ReceivedAt: m.ReceivedAt, ExpiresAt: m.ExpiresAt}
}

func showMessages(ms []api.Message) []shownMessage {
	out := make([]shownMessage, len(ms))
	for i, m := range ms {
		out[i] = showMessage(m)
	}
	return out
}

// compactJSON is raw on one line.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// writeBody writes "body" and the body, marking a base64 one; a body of
// several lines starts on the next line.
func writeBody(w io.Writer, label, body, encoding string) {
	if encoding != "text" {
		label += " (" + encoding + ", not UTF-8)"
	}
	if strings.Contains(body, "\n") {
		fmt.Fprintf(w, "%s:\n%s\n", label, strings.TrimSuffix(body, "\n"))
		return
	}
	fmt.Fprintf(w, "%-13s %s\n", label+":", body)
}

func writeMessage(w io.Writer, m shownMessage) {
	fmt.Fprintf(w, "%-13s %s\n", "message_uuid:", m.MessageUUID)
	fmt.Fprintf(w, "%-13s %s\n", "received_at:", m.ReceivedAt)
	fmt.Fprintf(w, "%-13s %s\n", "expires_at:", m.ExpiresAt)
	fmt.Fprintf(w, "%-13s %s\n", "metadata:", compactJSON(m.Metadata))
	writeBody(w, "body", m.Body, m.BodyEncoding)
}

// writeNext tells how to get the next page, if there is one.
func writeNext(w io.Writer, cursor string) {
	if cursor != "" {
		fmt.Fprintf(w, "\n(more: add --cursor %s)\n", cursor)
	}
}

func textMessages(ms []shownMessage, cursor string) func(io.Writer) error {
	return func(w io.Writer) error {
		if len(ms) == 0 {
			fmt.Fprintln(w, "(no messages)")
		}
		for i, m := range ms {
			if i > 0 {
				fmt.Fprintln(w)
			}
			writeMessage(w, m)
		}
		writeNext(w, cursor)
		return nil
	}
}

// latestShown is /v1/latest with shown messages.
type latestShown struct {
	Items      []latestItemShown `json:"items"`
	NextCursor string            `json:"next_cursor"`
}

type latestItemShown struct {
	Path    string       `json:"path"`
	Message shownMessage `json:"message"`
}

func showLatest(r api.LatestResponse) latestShown {
	out := latestShown{Items: make([]latestItemShown, len(r.Items)), NextCursor: r.NextCursor}
	for i, it := range r.Items {
		out.Items[i] = latestItemShown{it.Path, showMessage(it.Message)}
	}
	return out
}

func (l latestShown) text(w io.Writer) error {
	if len(l.Items) == 0 {
		fmt.Fprintln(w, "(no paths match)")
	}
	for i, it := range l.Items {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%-13s %s\n", "path:", it.Path)
		writeMessage(w, it.Message)
	}
	writeNext(w, l.NextCursor)
	return nil
}

// queuesText is 'herald queues' as a table.
func queuesText(r client.QueuesResponse) func(io.Writer) error {
	return func(w io.Writer) error {
		if len(r.Queues) == 0 {
			fmt.Fprintln(w, "(no queues)")
			return nil
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tTYPE\tVISIBLE\tIN FLIGHT\tDELAYED\tDEAD-LETTER QUEUE")
		for _, q := range r.Queues {
			kind := "standard"
			if q.FIFO {
				kind = "fifo"
			}
			dlq := "-"
			if q.DeadLetterTarget != "" {
				dlq = q.DeadLetterTarget[strings.LastIndexByte(q.DeadLetterTarget, ':')+1:]
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", q.Name, kind, q.Visible, q.InFlight, q.Delayed, dlq)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if r.Truncated {
			fmt.Fprintln(w, "(the first 200 queues by name; there are more)")
		}
		return nil
	}
}

// topicsText is 'herald topics': each topic, then its subscriptions.
func topicsText(r client.TopicsResponse) func(io.Writer) error {
	return func(w io.Writer) error {
		if len(r.Topics) == 0 {
			fmt.Fprintln(w, "(no topics)")
			return nil
		}
		for i, t := range r.Topics {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s  (%s)\n", t.Name, t.ARN)
			if len(t.Subscriptions) == 0 {
				fmt.Fprintln(w, "  (no subscriptions)")
				continue
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  PROTOCOL\tSTATE\tENDPOINT")
			for _, s := range t.Subscriptions {
				state := "confirmed"
				if s.Pending() {
					state = "pending"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Protocol, state, s.Endpoint)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		if r.Truncated {
			fmt.Fprintln(w, "(the first 100 topics; there are more)")
		}
		return nil
	}
}

// peekText is 'herald peek': one block per message.
func peekText(queue string, r client.PeekResponse) func(io.Writer) error {
	return func(w io.Writer) error {
		if len(r.Messages) == 0 {
			fmt.Fprintf(w, "(%s holds no messages)\n", queue)
			return nil
		}
		for i, m := range r.Messages {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%-13s %s\n", "message_id:", m.MessageID)
			fmt.Fprintf(w, "%-13s %s\n", "sent:", m.SentAt.Format("2006-01-02T15:04:05.000Z07:00"))
			fmt.Fprintf(w, "%-13s %d\n", "receives:", m.ReceiveCount)
			if m.VisibleAt.After(time.Now()) {
				fmt.Fprintf(w, "%-13s %s\n", "hidden until:", m.VisibleAt.Format("2006-01-02T15:04:05.000Z07:00"))
			}
			if m.GroupID != "" {
				fmt.Fprintf(w, "%-13s %s\n", "group:", m.GroupID)
			}
			writeBody(w, "body", m.Body, m.BodyEncoding)
		}
		return nil
	}
}
