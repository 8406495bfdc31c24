package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/metrics"
)

// newServer returns the bare *httpapi.Server over an embedded store, for
// tests that configure it.
func newServer(t *testing.T) *httpapi.Server {
	t.Helper()
	m := metrics.New()
	svc := cache.NewService(metrics.InstrumentCacheStore(openStore(t), m), cache.DefaultConfig())
	return httpapi.New(svc, m, quietLog)
}

func TestLivez(t *testing.T) {
	s := newServer(t)
	// Liveness does not depend on the store or any other component.
	s.SetReadinessCheck(func(context.Context) error { return herald.Unavailable("store", errors.New("down")) })
	rec := serve(s, http.MethodGet, "/livez", "")
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != `{"status":"ok"}` {
		t.Fatalf("GET /livez: %d %s", rec.Code, rec.Body)
	}
}

func TestReadyz(t *testing.T) {
	storeDown := func(context.Context) error { return herald.Unavailable("cassandra", errors.New("no hosts")) }
	tests := []struct {
		name       string
		ready      func(context.Context) error
		components map[string]string
		wantCode   int
		want       httpapi.Readiness
	}{
		{
			name: "embedded, nothing else", wantCode: http.StatusOK,
			want: httpapi.Readiness{Status: "ok", Components: map[string]httpapi.ComponentHealth{"store": {Status: "ok", Detail: "embedded"}}},
		},
		{
			name: "redis degraded", components: map[string]string{"redis": "degraded", "rabbitmq": "ok"}, wantCode: http.StatusOK,
			want: httpapi.Readiness{Status: "degraded", Components: map[string]httpapi.ComponentHealth{
				"store": {Status: "ok", Detail: "embedded"}, "redis": {Status: "degraded"}, "rabbitmq": {Status: "ok"}}},
		},
		{
			name: "rabbitmq reconnecting", components: map[string]string{"rabbitmq": "reconnecting (events publisher, ingest consumer)"}, wantCode: http.StatusOK,
			want: httpapi.Readiness{Status: "degraded", Components: map[string]httpapi.ComponentHealth{
				"store":    {Status: "ok", Detail: "embedded"},
				"rabbitmq": {Status: "reconnecting", Detail: "events publisher, ingest consumer"}}},
		},
		{
			name: "store unavailable", ready: storeDown, components: map[string]string{"redis": "ok"}, wantCode: http.StatusServiceUnavailable,
			want: httpapi.Readiness{Status: "unavailable", Components: map[string]httpapi.ComponentHealth{
				"store": {Status: "unavailable", Detail: "cassandra: storage unavailable"}, "redis": {Status: "ok"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			s.SetStoreName("embedded")
			if tt.ready != nil {
				s.SetReadinessCheck(tt.ready)
			}
			if tt.components != nil {
				s.AddComponents(func() map[string]string { return tt.components })
			}
			rec := serve(s, http.MethodGet, "/readyz", "")
			if rec.Code != tt.wantCode {
				t.Fatalf("GET /readyz: %d %s, want %d", rec.Code, rec.Body, tt.wantCode)
			}
			var got httpapi.Readiness
			if err := decodeStrict(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("body %s: %v", rec.Body, err)
			}
			if got.Status != tt.want.Status || len(got.Components) != len(tt.want.Components) {
				t.Fatalf("readiness %+v, want %+v", got, tt.want)
			}
			for name, c := range tt.want.Components {
				if got.Components[name] != c {
					t.Errorf("component %s: %+v, want %+v", name, got.Components[name], c)
				}
			}
			// /healthz keeps its own answer.
			if rec := serve(s, http.MethodGet, "/healthz", ""); rec.Code != tt.wantCode {
				t.Errorf("GET /healthz: %d, want %d like /readyz", rec.Code, tt.wantCode)
			}
		})
	}
}

func TestAccessLog(t *testing.T) {
	s := newServer(t)
	var buf bytes.Buffer
	s.SetAccessLog(slog.New(slog.NewTextHandler(&buf, nil)))
	serve(s, http.MethodGet, "/v1/messages/not-a-uuid", "")
	line := buf.String()
	for _, want := range []string{"msg=access", "method=GET", "path=/v1/messages/not-a-uuid", "route=/v1/messages/{uuid}", "status=400"} {
		if !strings.Contains(line, want) {
			t.Errorf("access log %q lacks %s", line, want)
		}
	}
	if strings.Count(line, "\n") != 1 {
		t.Errorf("access log has %d lines, want 1: %q", strings.Count(line, "\n"), line)
	}
}
