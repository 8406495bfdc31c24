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
		fs.Usage()
		return "", fmt.Errorf("%s needs exactly one %s", fs.Name(), what)
	}
	return fs.Arg(0), nil
}

func runPut(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("put", "put --path PATH [--path PATH...] [--metadata JSON] [--body TEXT | --body-file FILE] [--ttl SECONDS] [flags]", stderr, false)
	var pathList stringList
	var metadata, body, bodyFile, messageUUID, replicaUUID string
	var ttl int64
	fs.Var(&pathList, "path", "a path the message is stored under (repeatable; added to the metadata's \"paths\")")
	fs.StringVar(&metadata, "metadata", "{}", "metadata as a JSON object")
	fs.StringVar(&body, "body", "", "body text")
	fs.StringVar(&bodyFile, "body-file", "", "read the body from this file ('-' for standard input)")
	fs.Int64Var(&ttl, "ttl", 0, "time to live in seconds (0 for the server's default)")
	fs.StringVar(&messageUUID, "message-uuid", "", "message_uuid to use (a version 1 UUID; assigned when empty)")
	fs.StringVar(&replicaUUID, "replica-uuid", "", "replica_uuid to use (a version 1 UUID; assigned when empty)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	meta := map[string]any{}
	if err := json.Unmarshal([]byte(metadata), &meta); err != nil {
		return fmt.Errorf("--metadata must be a JSON object: %v", err)
	}
	if len(pathList) > 0 {
		meta["paths"] = []string(pathList)
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
	return printJSON(stdout, struct {
		api.PutResponse
		Created bool `json:"created"`
	}{resp, created})
}

func readFileOrStdin(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

func runGet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("get", "get MESSAGE_UUID [flags]", stderr, false)
	id, err := oneArg(fs, args, "message_uuid")
	if err != nil {
		return err
	}
	m, err := cf.client().Get(ctx, id)
	if err != nil {
		return err
	}
	return printJSON(stdout, m)
}

func runLatest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("latest", "latest PATTERN [flags]   (PATTERN may use the AMQP wildcards * and #)", stderr, true)
	pattern, err := oneArg(fs, args, "pattern")
	if err != nil {
		return err
	}
	resp, err := cf.client().Latest(ctx, pattern, cf.page())
	if err != nil {
		return err
	}
	return printJSON(stdout, resp)
}

func runAll(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("all", "all PATH [flags]", stderr, true)
	path, err := oneArg(fs, args, "path")
	if err != nil {
		return err
	}
	resp, err := cf.client().All(ctx, path, cf.page())
	if err != nil {
		return err
	}
	return printJSON(stdout, resp)
}

func runJournal(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("journal", "journal [--from TIME] [--to TIME] [flags]   (RFC 3339 times)", stderr, true)
	var fromText, toText string
	fs.StringVar(&fromText, "from", "", "start of the range, inclusive (default: an hour ago)")
	fs.StringVar(&toText, "to", "", "end of the range, exclusive (default: now)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	to, from := time.Now(), time.Now().Add(-time.Hour)
	var err error
	if toText != "" {
		if to, err = time.Parse(time.RFC3339Nano, toText); err != nil {
			return fmt.Errorf("--to: %v", err)
		}
	}
	if fromText != "" {
		if from, err = time.Parse(time.RFC3339Nano, fromText); err != nil {
			return fmt.Errorf("--from: %v", err)
		}
	}
	resp, err := cf.client().Journal(ctx, from, to, cf.page())
	if err != nil {
		return err
	}
	return printJSON(stdout, resp)
}

func runPaths(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newClientFlagSet("paths", "paths [PREFIX] [flags]", stderr, true)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("paths takes at most one prefix")
	}
	resp, err := cf.client().Paths(ctx, fs.Arg(0), cf.page())
	if err != nil {
		return err
	}
	return printJSON(stdout, resp)
}
