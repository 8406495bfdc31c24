package main

import (
	"crypto/tls"
	"log/slog"
	"os"
	"sync"
	"time"
)

// certReloader hands each TLS handshake the certificate of a cert and key
// file pair, loading the pair again when either file's modification time or
// size has changed since: a renewal (certbot, cert-manager) needs no
// restart, and the check costs two stat calls a handshake. A pair that does
// not load (a renewal that has replaced one file but not yet the other, a
// file briefly missing) leaves the previous certificate in use; it is
// logged once and tried again when the files change.
type certReloader struct {
	certFile, keyFile string
	log               *slog.Logger

	mu      sync.Mutex
	cert    *tls.Certificate
	loaded  pairStamp // of the files cert was read from
	failed  pairStamp // of the files that last failed to load
	lastErr string    // the failure last logged, "" since a load
}

// pairStamp is what tells that the files changed.
type pairStamp struct {
	certMod, keyMod   int64 // modification times, Unix nanoseconds
	certSize, keySize int64
}

// newCertReloader loads the pair, failing when it does not load.
func newCertReloader(certFile, keyFile string, log *slog.Logger) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, log: log}
	st, err := r.stamp()
	if err == nil {
		err = r.load(st)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// getCertificate is the tls.Config.GetCertificate of the listener.
func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, err := r.stamp()
	if err == nil {
		if st == r.loaded || st == r.failed {
			return r.cert, nil
		}
		if err = r.load(st); err == nil {
			r.log.Info("TLS certificate reloaded", "cert", r.certFile, "not_after", notAfter(r.cert))
			return r.cert, nil
		}
		r.failed = st
	}
	if msg := err.Error(); msg != r.lastErr {
		r.lastErr = msg
		r.log.Warn("TLS certificate not reloaded: serving the previous one", "cert", r.certFile, "key", r.keyFile, "err", err)
	}
	return r.cert, nil
}

// notAfter is when cert expires, "" if unknown.
func notAfter(cert *tls.Certificate) string {
	if cert.Leaf == nil {
		return ""
	}
	return cert.Leaf.NotAfter.UTC().Format(time.RFC3339)
}

// stamp reads the files' modification times and sizes.
func (r *certReloader) stamp() (pairStamp, error) {
	c, err := os.Stat(r.certFile)
	if err != nil {
		return pairStamp{}, err
	}
	k, err := os.Stat(r.keyFile)
	if err != nil {
		return pairStamp{}, err
	}
	return pairStamp{c.ModTime().UnixNano(), k.ModTime().UnixNano(), c.Size(), k.Size()}, nil
}

// load reads the pair, whose files had stamp st, as the certificate served.
func (r *certReloader) load(st pairStamp) error {
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return err
	}
	r.cert, r.loaded, r.lastErr = &cert, st, ""
	return nil
}
