package snshttp

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/heraldmq/herald/sns"
)

// Signer signs envelopes with an RSA key whose self-signed X.509
// certificate endpoints fetch from SigningCertURL.
//
// RSA signing costs about a millisecond, and the signed fields of a
// notification are the same for every http subscriber of a topic, so a
// Signer remembers recent signatures (keyed by version and a SHA-256 of
// the string to sign).
type Signer struct {
	key     *rsa.PrivateKey
	cert    *x509.Certificate
	certPEM []byte

	mu    sync.Mutex
	cache map[sigKey]string
}

type sigKey struct {
	version string
	sum     [sha256.Size]byte
}

const sigCacheSize = 4096

// Files of LoadOrCreateSigner.
const (
	KeyFile  = "sns-signing-key.pem"
	CertFile = "sns-signing-cert.pem"
)

// NewSigner returns a Signer of an RSA private key (PEM, PKCS #1 or
// PKCS #8) and its certificate (PEM).
func NewSigner(keyPEM, certPEM []byte) (*Signer, error) {
	kb, _ := pem.Decode(keyPEM)
	if kb == nil {
		return nil, errors.New("snshttp: no PEM block in the signing key")
	}
	var key *rsa.PrivateKey
	switch kb.Type {
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(kb.Bytes)
		if err != nil {
			return nil, fmt.Errorf("snshttp: signing key: %w", err)
		}
		key = k
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
		if err != nil {
			return nil, fmt.Errorf("snshttp: signing key: %w", err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, errors.New("snshttp: the signing key is not an RSA key")
		}
		key = rk
	default:
		return nil, fmt.Errorf("snshttp: signing key PEM block is %q", kb.Type)
	}
	cb, _ := pem.Decode(certPEM)
	if cb == nil || cb.Type != "CERTIFICATE" {
		return nil, errors.New("snshttp: no CERTIFICATE PEM block in the signing certificate")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("snshttp: signing certificate: %w", err)
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok || !pub.Equal(&key.PublicKey) {
		return nil, errors.New("snshttp: the signing certificate is not of the signing key")
	}
	return &Signer{key: key, cert: cert, certPEM: pem.EncodeToMemory(cb), cache: make(map[sigKey]string)}, nil
}

// GenerateSigner returns a Signer of a new 2048-bit RSA key and a
// self-signed certificate valid for ten years.
func GenerateSigner() (*Signer, error) {
	keyPEM, certPEM, err := generate()
	if err != nil {
		return nil, err
	}
	return NewSigner(keyPEM, certPEM)
}

func generate() (keyPEM, certPEM []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "Herald SNS message signing", Organization: []string{"Herald"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		SignatureAlgorithm:    x509.SHA256WithRSA,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return keyPEM, certPEM, nil
}

// LoadOrCreateSigner loads the Signer kept in dir (KeyFile, CertFile), or
// generates one and writes it there (the key readable by the owner only),
// so that the embedded server keeps its certificate across restarts. One
// of the two files without the other is an error, not overwritten.
func LoadOrCreateSigner(dir string) (*Signer, error) {
	keyPath, certPath := filepath.Join(dir, KeyFile), filepath.Join(dir, CertFile)
	keyPEM, kerr := os.ReadFile(keyPath)
	certPEM, cerr := os.ReadFile(certPath)
	switch {
	case kerr == nil && cerr == nil:
		return NewSigner(keyPEM, certPEM)
	case errors.Is(kerr, os.ErrNotExist) && errors.Is(cerr, os.ErrNotExist):
	case kerr != nil && !errors.Is(kerr, os.ErrNotExist):
		return nil, kerr
	case cerr != nil && !errors.Is(cerr, os.ErrNotExist):
		return nil, cerr
	default:
		return nil, fmt.Errorf("snshttp: %s holds only one of %s and %s", dir, KeyFile, CertFile)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	keyPEM, certPEM, err := generate()
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(certPath, certPEM, 0o644); err != nil {
		return nil, err
	}
	return NewSigner(keyPEM, certPEM)
}

func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// CertPEM is the signing certificate in PEM, as served at SigningCertURL.
func (s *Signer) CertPEM() []byte { return s.certPEM }

// Certificate is the parsed signing certificate.
func (s *Signer) Certificate() *x509.Certificate { return s.cert }

// CertHandler serves the PEM certificate to GET and HEAD requests.
func (s *Signer) CertHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/x-pem-file")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("Content-Length", fmt.Sprint(len(s.certPEM)))
		if r.Method == http.MethodGet {
			w.Write(s.certPEM)
		}
	})
}

// Sign returns the base64 signature of stringToSign: SHA1withRSA for
// version "1", SHA256withRSA for "2".
func (s *Signer) Sign(version, stringToSign string) (string, error) {
	var (
		h      crypto.Hash
		digest []byte
	)
	switch version {
	case "1":
		d := sha1.Sum([]byte(stringToSign))
		h, digest = crypto.SHA1, d[:]
	case "2":
		d := sha256.Sum256([]byte(stringToSign))
		h, digest = crypto.SHA256, d[:]
	default:
		return "", fmt.Errorf("snshttp: unknown SignatureVersion %q", version)
	}
	sig, err := rsa.SignPKCS1v15(nil, s.key, h, digest)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// signCached is Sign with the cache. PKCS #1 v1.5 signatures are
// deterministic, so a cached signature equals a fresh one.
func (s *Signer) signCached(version, stringToSign string) (string, error) {
	k := sigKey{version: version, sum: sha256.Sum256([]byte(stringToSign))}
	s.mu.Lock()
	sig, ok := s.cache[k]
	s.mu.Unlock()
	if ok {
		return sig, nil
	}
	sig, err := s.Sign(version, stringToSign)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	if len(s.cache) >= sigCacheSize {
		clear(s.cache)
	}
	s.cache[k] = sig
	s.mu.Unlock()
	return sig, nil
}

// notificationStringToSign is AWS's string to sign of a Notification:
// "Key\nvalue\n" for Message, MessageId, Subject (when present),
// Timestamp, TopicArn and Type, in that order.
func notificationStringToSign(n *sns.Notification, timestamp string) string {
	var b strings.Builder
	b.Grow(128 + len(n.Message) + len(n.Subject))
	kv(&b, "Message", n.Message)
	kv(&b, "MessageId", n.MessageID)
	if n.Subject != "" {
		kv(&b, "Subject", n.Subject)
	}
	kv(&b, "Timestamp", timestamp)
	kv(&b, "TopicArn", n.TopicARN)
	kv(&b, "Type", TypeNotification)
	return b.String()
}

// confirmationStringToSign is AWS's string to sign of the two
// confirmations: Message, MessageId, SubscribeURL, Timestamp, Token,
// TopicArn, Type.
func confirmationStringToSign(typ string, c *Confirmation, timestamp string) string {
	var b strings.Builder
	kv(&b, "Message", c.Message)
	kv(&b, "MessageId", c.MessageID)
	kv(&b, "SubscribeURL", c.SubscribeURL)
	kv(&b, "Timestamp", timestamp)
	kv(&b, "Token", c.Token)
	kv(&b, "TopicArn", c.TopicARN)
	kv(&b, "Type", typ)
	return b.String()
}

// kv writes one pair; values are made valid UTF-8 the way the envelope
// writes them, so the signature covers what the endpoint receives.
func kv(b *strings.Builder, key, value string) {
	if !utf8.ValidString(value) {
		value = strings.ToValidUTF8(value, "\uFFFD")
	}
	b.WriteString(key)
	b.WriteByte('\n')
	b.WriteString(value)
	b.WriteByte('\n')
}
