package main

import (
	"bytes"
	"context"
	"log"
	"log/slog"
)

// serverErrorLog is the http.Server's ErrorLog: its lines go to logger at
// warn, except failed TLS handshakes (a TCP health check or a scanner
// connecting and leaving, a client refusing the certificate), which are
// routine on a public port and go to debug.
func serverErrorLog(logger *slog.Logger) *log.Logger {
	return log.New(serverLogWriter{logger}, "", 0)
}

type serverLogWriter struct{ l *slog.Logger }

func (w serverLogWriter) Write(p []byte) (int, error) {
	msg := string(bytes.TrimRight(p, "\n"))
	level := slog.LevelWarn
	if bytes.Contains(p, []byte("TLS handshake error")) {
		level = slog.LevelDebug
	}
	w.l.Log(context.Background(), level, msg, "component", "http server")
	return len(p), nil
}
