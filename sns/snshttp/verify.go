package snshttp

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
)

// Verify checks the signature of an SNS envelope (the body of a
// Notification, SubscriptionConfirmation or UnsubscribeConfirmation) with
// the signing certificate, as AWS tells subscribers to: rebuild the string
// to sign from the envelope's fields, then check the base64 Signature with
// the certificate's RSA public key, SHA1 for SignatureVersion 1 and SHA256
// for 2. It does not fetch SigningCertURL or judge the certificate; the
// caller chooses certPEM.
//
// Verify shares no code with the signing side on purpose.
func Verify(envelopeJSON []byte, certPEM []byte) error {
	var env map[string]any
	if err := json.Unmarshal(envelopeJSON, &env); err != nil {
		return fmt.Errorf("snshttp: verify: envelope: %w", err)
	}
	get := func(name string) (string, bool, error) {
		v, ok := env[name]
		if !ok {
			return "", false, nil
		}
		s, isStr := v.(string)
		if !isStr {
			return "", true, fmt.Errorf("snshttp: verify: %s is not a string", name)
		}
		return s, true, nil
	}

	typ, _, err := get("Type")
	if err != nil {
		return err
	}
	var names []string
	switch typ {
	case "Notification":
		names = []string{"Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"}
	case "SubscriptionConfirmation", "UnsubscribeConfirmation":
		names = []string{"Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"}
	default:
		return fmt.Errorf("snshttp: verify: unknown Type %q", typ)
	}
	var toSign []byte
	for _, name := range names {
		v, present, err := get(name)
		if err != nil {
			return err
		}
		if !present {
			if name == "Subject" {
				continue
			}
			return fmt.Errorf("snshttp: verify: %s is missing", name)
		}
		toSign = append(toSign, name...)
		toSign = append(toSign, '\n')
		toSign = append(toSign, v...)
		toSign = append(toSign, '\n')
	}

	version, _, err := get("SignatureVersion")
	if err != nil {
		return err
	}
	var hashed []byte
	var alg crypto.Hash
	switch version {
	case "1":
		sum := sha1.Sum(toSign)
		hashed, alg = sum[:], crypto.SHA1
	case "2":
		sum := sha256.Sum256(toSign)
		hashed, alg = sum[:], crypto.SHA256
	default:
		return fmt.Errorf("snshttp: verify: unsupported SignatureVersion %q", version)
	}

	sigText, present, err := get("Signature")
	if err != nil {
		return err
	}
	if !present {
		return errors.New("snshttp: verify: Signature is missing")
	}
	sig, err := base64.StdEncoding.DecodeString(sigText)
	if err != nil {
		return fmt.Errorf("snshttp: verify: Signature: %w", err)
	}

	block, _ := pem.Decode(certPEM)
	if block == nil {
		return errors.New("snshttp: verify: no PEM certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return fmt.Errorf("snshttp: verify: certificate: %w", err)
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return errors.New("snshttp: verify: the certificate's key is not RSA")
	}
	if err := rsa.VerifyPKCS1v15(pub, alg, hashed, sig); err != nil {
		return fmt.Errorf("snshttp: verify: bad signature: %w", err)
	}
	return nil
}
