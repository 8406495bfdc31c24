// Package testcert makes self-signed TLS certificates for tests: a pair of
// PEM files written where a server reads them, and a pool that trusts it.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Pair is a self-signed certificate for 127.0.0.1, ::1 and localhost.
type Pair struct {
	Cert            *x509.Certificate
	CertPEM, KeyPEM []byte
}

// New returns a fresh pair whose serial number is serial, so that a test
// can tell which certificate a server presented.
func New(t testing.TB, serial int64) Pair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: "herald test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return Pair{
		Cert:    cert,
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
}

// Pool is a certificate pool trusting the pairs given.
func Pool(pairs ...Pair) *x509.CertPool {
	pool := x509.NewCertPool()
	for _, p := range pairs {
		pool.AddCert(p.Cert)
	}
	return pool
}

// Replace writes data to path as a renewal does: into a new file renamed
// over the old one, modified at mtime (tests pass distinct times so that a
// change is seen whatever the file system's timestamp granularity).
func Replace(t testing.TB, path string, data []byte, mtime time.Time) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".new")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Write writes p as cert.pem and key.pem in dir, modified at mtime, and
// returns their paths.
func (p Pair) Write(t testing.TB, dir string, mtime time.Time) (certFile, keyFile string) {
	t.Helper()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	Replace(t, certFile, p.CertPEM, mtime)
	Replace(t, keyFile, p.KeyPEM, mtime)
	return certFile, keyFile
}
