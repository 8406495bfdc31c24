package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/sns/snshttp"
)

// backupStore copies the embedded store db, whose data directory is
// dataDir, into the new directory to: a Pebble checkpoint, plus the SNS
// signing key and certificate Herald keeps there. The copy is a data
// directory 'herald serve --data-dir' starts on (docs/operations.md).
func backupStore(ctx context.Context, db *pebblestore.DB, dataDir, to string) error {
	if err := db.Checkpoint(ctx, to); err != nil {
		return err
	}
	for _, name := range []string{snshttp.KeyFile, snshttp.CertFile} {
		data, err := os.ReadFile(filepath.Join(dataDir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(to, name), data, 0o600)
		}
		if err != nil {
			return fmt.Errorf("backup: copy %s: %w", name, err)
		}
	}
	return nil
}

// runBackup is 'herald backup': it copies an embedded store into a new
// directory, by opening the data directory when no Herald holds it, or by
// asking the running server (POST /v1/admin/backup) when one does.
func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backup", "backup --to DIR [--data-dir DIR | --server URL]", stderr)
	limitEnv(fs, "server", "token")
	to := fs.String("to", "", "new directory to write the backup into (it must not exist); a data directory 'herald serve --data-dir' starts on")
	dataDir := fs.String("data-dir", "", "data directory of the embedded store to back up; when a running Herald holds it, that server is asked (at --server) to write the backup")
	server := fs.String("server", "http://127.0.0.1:4566", "running Herald to ask for the backup when --data-dir is in use or not given (it must run on this machine)")
	token := fs.String("token", "", "bearer token (JWT) for a server that requires credentials (prefer the environment variable HERALD_TOKEN)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("backup takes no arguments, got %q", fs.Args())
	}
	if *to == "" {
		return errors.New("backup: --to DIR is required")
	}
	target, err := filepath.Abs(*to)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(target); err == nil {
		return fmt.Errorf("backup: %s already exists: a backup goes into a new directory", target)
	}
	start := time.Now()
	if *dataDir != "" {
		if _, err := os.Stat(*dataDir); err != nil {
			return fmt.Errorf("backup: --data-dir: %w", err)
		}
		db, err := pebblestore.Open(*dataDir, pebblestore.Options{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		switch {
		case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK):
			fmt.Fprintf(stderr, "herald: %s is in use by a running Herald: asking it (%s) to write the backup\n", *dataDir, *server)
		case err != nil:
			return fmt.Errorf("backup: open %s: %w", *dataDir, err)
		default:
			err := backupStore(ctx, db, *dataDir, target)
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "backup of %s written to %s in %s\n", *dataDir, target, time.Since(start).Round(time.Millisecond))
			return nil
		}
	}
	in := httpapi.BackupRequest{Dir: target}
	if *dataDir != "" {
		if in.DataDir, err = filepath.Abs(*dataDir); err != nil {
			return err
		}
	}
	if err := requestBackup(ctx, *server, *token, in); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup written by %s to %s in %s\n", *server, target, time.Since(start).Round(time.Millisecond))
	return nil
}

// requestBackup asks the server at base to write a backup.
func requestBackup(ctx context.Context, base, token string, in httpapi.BackupRequest) error {
	body, _ := json.Marshal(in)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+"/v1/admin/backup", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("backup: ask the server: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		return fmt.Errorf("backup: the server refused (%s): %s", resp.Status, e.Error.Message)
	}
	return fmt.Errorf("backup: the server answered %s", resp.Status)
}
