package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
)

// tlsFlags is --tls-cert and --tls-key: with both set, the listener serves
// HTTPS (HTTP/1.1 and HTTP/2, TLS 1.2 or later) with that certificate,
// read again when the files change (certreload.go).
type tlsFlags struct {
	certFile, keyFile string
}

func (c *tlsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.certFile, "tls-cert", "", "PEM certificate (leaf first, then intermediates): serve HTTPS instead of HTTP, with --tls-key; a renewed file is picked up without a restart")
	fs.StringVar(&c.keyFile, "tls-key", "", "PEM private key of --tls-cert")
}

func (c tlsFlags) validate() error {
	switch {
	case c.certFile != "" && c.keyFile == "":
		return errors.New("--tls-cert needs --tls-key (the certificate's private key)")
	case c.keyFile != "" && c.certFile == "":
		return errors.New("--tls-key needs --tls-cert (the certificate)")
	}
	return nil
}

// scheme is the URL scheme the listener serves: https or http.
func (c tlsFlags) scheme() string {
	if c.certFile != "" {
		return "https"
	}
	return "http"
}

// serverConfig is the listener's TLS configuration, nil when TLS is off.
// The certificate is loaded now, so that a bad pair fails the start.
func (c tlsFlags) serverConfig(log *slog.Logger) (*tls.Config, error) {
	if c.certFile == "" {
		return nil, nil
	}
	r, err := newCertReloader(c.certFile, c.keyFile, log)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: r.getCertificate}, nil
}

// serveHTTP serves srv on ln: HTTPS when srv has a TLS configuration
// (ServeTLS offers HTTP/2 and HTTP/1.1 by ALPN; WebSocket upgrades use
// HTTP/1.1 connections), else plain HTTP.
func serveHTTP(srv *http.Server, ln net.Listener) error {
	if srv.TLSConfig != nil {
		return srv.ServeTLS(ln, "", "")
	}
	return srv.Serve(ln)
}
