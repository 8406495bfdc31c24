package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestServerErrorLogLevels(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"http: TLS handshake error from 127.0.0.1:5555: EOF", "level=DEBUG"},
		{"http: panic serving 127.0.0.1:5555: boom", "level=WARN"},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		l := serverErrorLog(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
		l.Print(tc.line)
		if got := buf.String(); !strings.Contains(got, tc.want) || !strings.Contains(got, strings.TrimPrefix(tc.line, "http: ")) {
			t.Errorf("%q logged as %q, want %s", tc.line, got, tc.want)
		}
	}
}
