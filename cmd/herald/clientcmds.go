package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// clientFlags are the flags every client command shares.
type clientFlags struct {
	server string
	token  string
	limit  int
	cursor string
	output string // text or json (registerOutput)
}

func newClientFlagSet(name, synopsis string, stderr io.Writer, paged bool) (*flag.FlagSet, *clientFlags) {
	cf := &clientFlags{}
	fs := newFlagSet(name, synopsis, stderr)
	limitEnv(fs, "server", "token")
	fs.StringVar(&cf.server, "server", "http://127.0.0.1:4566", "Herald server to talk to")
	fs.StringVar(&cf.token, "token", "", "bearer token (JWT) for a server that requires credentials (prefer the environment variable HERALD_TOKEN)")
	if paged {
		fs.IntVar(&cf.limit, "limit", 0, "page size (0 for the server's default)")
		fs.StringVar(&cf.cursor, "cursor", "", "next_cursor of the previous page")
	}
	return fs, cf
}

func (cf *clientFlags) client() *client.Client {
	if cf.token == "" {
		return client.New(cf.server, nil)
	}
	return client.New(cf.server, &http.Client{Transport: client.BearerTransport{Token: cf.token}})
}

func (cf *clientFlags) page() client.PageOptions {
	return client.PageOptions{Limit: cf.limit, Cursor: cf.cursor}
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// oneArg parses flags and returns the single positional argument.
func oneArg(fs *flag.FlagSet, args []string, what string) (string, error) {
	if err := parseFlags(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		return "", usageErrorf(fs, "needs exactly one %s, got %d arguments", what, fs.NArg())
	}
	return fs.Arg(0), nil
}

func runPut(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("put", "put --path PATH [--path PATH...] [--metadata JSON] [--body TEXT | --body-file FILE] [--ttl 1h] [flags]", stderr, false)
	cf.registerOutput(fs)
	var pathList stringList
	var metadata, body, bodyFile, messageUUID, replicaUUID string
	var ttl int64
	fs.Var(&pathList, "path", "a path the message is stored under (repeatable; added to the metadata's \"paths\")")
	fs.StringVar(&metadata, "metadata", "{}", "metadata as a JSON object")
	fs.StringVar(&body, "body", "", "body text")
	fs.StringVar(&bodyFile, "body-file", "", "read the body from this file ('-' for standard input)")
	fs.Var(ttlValue{&ttl}, "ttl", "time to live: seconds (3600) or a duration (1h, 30m); 0 for the server's default")
	fs.StringVar(&messageUUID, "message-uuid", "", "message_uuid to use (a version 1 UUID; assigned when empty)")
	fs.StringVar(&replicaUUID, "replica-uuid", "", "replica_uuid to use (a version 1 UUID; assigned when empty)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q (the body is --body TEXT or --body-file FILE)", fs.Arg(0))
	}
	if body != "" && bodyFile != "" {
		return usageErrorf(fs, "--body and --body-file: give one")
	}
	meta := map[string]any{}
	if err := json.Unmarshal([]byte(metadata), &meta); err != nil {
		return usageErrorf(fs, "--metadata must be a JSON object: %v", err)
	}
	if len(pathList) > 0 {
		meta["paths"] = []string(pathList)
	}
	if _, ok := meta["paths"]; !ok {
		return usageErrorf(fs, "a message needs a path: --path PATH (or \"paths\" in --metadata)")
	}
	rawMeta, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	req := api.PutRequest{MessageUUID: messageUUID, ReplicaUUID: replicaUUID, Metadata: rawMeta, Body: []byte(body)}
	if bodyFile != "" {
		if req.Body, err = readFileOrStdin(bodyFile); err != nil {
			return err
		}
	}
	if ttl != 0 {
		req.TTL = &ttl
	}
	resp, created, err := cf.client().Put(ctx, req)
	if err != nil {
		return err
	}
	return cf.show(stdout, struct {
		api.PutResponse
		Created bool `json:"created"`
	}{resp, created}, func(w io.Writer) error {
		verb := "stored"
		if !created {
			verb = "already stored"
		}
		_, err := fmt.Fprintf(w, "%s %s (replica %s)\n", verb, resp.MessageUUID, resp.ReplicaUUID)
		return err
	})
}

func readFileOrStdin(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

func runGet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("get", "get MESSAGE_UUID [flags]", stderr, false)
	cf.registerOutput(fs)
	id, err := oneArg(fs, args, "message_uuid")
	if err != nil {
		return err
	}
	m, err := cf.client().Get(ctx, id)
	if err != nil {
		return err
	}
	shown := showMessage(m)
	return cf.show(stdout, shown, func(w io.Writer) error { writeMessage(w, shown); return nil })
}

func runLatest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("latest", "latest PATTERN [flags]   (PATTERN may use the AMQP wildcards * and #)", stderr, true)
	cf.registerOutput(fs)
	pattern, err := oneArg(fs, args, "pattern")
	if err != nil {
		return err
	}
	resp, err := cf.client().Latest(ctx, pattern, cf.page())
	if err != nil {
		return err
	}
	shown := showLatest(resp)
	return cf.show(stdout, shown, shown.text)
}

func runAll(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("all", "all PATH [flags]", stderr, true)
	cf.registerOutput(fs)
	path, err := oneArg(fs, args, "path")
	if err != nil {
		return err
	}
	resp, err := cf.client().All(ctx, path, cf.page())
	if err != nil {
		return err
	}
	return showMessagesResponse(stdout, cf, resp)
}

func runJournal(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("journal", "journal [--from TIME] [--to TIME] [flags]   (TIME: RFC 3339, now, or relative to now such as -1h, -30m)", stderr, true)
	cf.registerOutput(fs)
	var fromText, toText string
	fs.StringVar(&fromText, "from", "-1h", "start of the range, inclusive: RFC 3339 (2026-01-02T15:04:05Z), now, or relative to now (-1h, -30m)")
	fs.StringVar(&toText, "to", "now", "end of the range, exclusive: RFC 3339, now, or relative to now (-5m)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	now := time.Now()
	from, err := parseTime(fromText, now)
	if err != nil {
		return usageErrorf(fs, "--from %v", err)
	}
	to, err := parseTime(toText, now)
	if err != nil {
		return usageErrorf(fs, "--to %v", err)
	}
	if !from.Before(to) {
		return usageErrorf(fs, "--from (%s) must come before --to (%s)", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	resp, err := cf.client().Journal(ctx, from, to, cf.page())
	if err != nil {
		return err
	}
	return showMessagesResponse(stdout, cf, resp)
}

func runPaths(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("paths", "paths [PREFIX] [flags]", stderr, true)
	cf.registerOutput(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageErrorf(fs, "takes at most one prefix, got %d", fs.NArg())
	}
	resp, err := cf.client().Paths(ctx, fs.Arg(0), cf.page())
	if err != nil {
		return err
	}
	return cf.show(stdout, resp, func(w io.Writer) error {
		for _, p := range resp.Paths {
			fmt.Fprintln(w, p)
		}
		if len(resp.Paths) == 0 {
			fmt.Fprintln(w, "(no paths)")
		}
		writeNext(w, resp.NextCursor)
		return nil
	})
}

// showMessagesResponse prints a page of messages (all, journal).
func showMessagesResponse(stdout io.Writer, cf *clientFlags, resp api.MessagesResponse) error {
	shown := struct {
		Messages   []shownMessage `json:"messages"`
		NextCursor string         `json:"next_cursor"`
	}{showMessages(resp.Messages), resp.NextCursor}
	return cf.show(stdout, shown, textMessages(shown.Messages, shown.NextCursor))
}
