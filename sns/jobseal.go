package sns

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// Sealed jobs. Every job Herald puts on its internal queues carries an
// HMAC-SHA256 of its body under a key only Herald knows, and a worker
// checks it before acting on a job: a job that did not come from Herald's
// own Publish, fan-out or retry (one forged by anything that could write
// to the internal queues, or to the Store or Redis below them) never
// causes a delivery. The internal accounts are already out of every
// client's reach (sqs.IsInternalAccount); the seal is the second wall.
//
// A sealed body is "hj1." + base64url(MAC[:18]) + "." + the JSON job.
//
// The key is created once per deployment, atomically with the internal
// publish queue, as that queue's tag jobKeyTag (so every node of a
// cluster reads the same key from the shared Store, and clients, who
// cannot reach the internal account, never see it). Jobs sent before the
// key existed (by an older Herald) are accepted unsealed when their
// SentTimestamp is older than the key.

const (
	sealPrefix   = "hj1."
	sealMACBytes = 18
	jobKeyTag    = "herald:job-key"   // hex of 32 random bytes
	jobKeySince  = "herald:job-since" // Unix ms the key was made
)

// errForgedJob is a job whose seal does not verify.
var errForgedJob = errors.New("sns: internal job with a missing or wrong seal")

// jobKey returns the deployment's job key, loading (or, on first use,
// creating) it.
func (s *Service) jobKey(ctx context.Context) ([]byte, time.Time, error) {
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if s.key != nil {
		return s.key, s.keySince, nil
	}
	url, e := s.ensureQueue(ctx, s.cfg.PublishQueue)
	if e != nil {
		return nil, time.Time{}, e
	}
	tags, err := s.q.ListQueueTags(ctx, s.internalCaller(), url)
	if err != nil {
		return nil, time.Time{}, err
	}
	if tags[jobKeyTag] == "" {
		// A publish queue made before jobs were sealed: add a key. Two
		// nodes doing so at once is settled by reading the tags again
		// after a pause; a job sealed under the losing key is refused
		// and runs again after its visibility timeout, then under the
		// winner (see open).
		if err := s.q.TagQueue(ctx, s.internalCaller(), sqs.TagQueueInput{QueueURL: url, Tags: newJobKeyTags(s.now())}); err != nil {
			return nil, time.Time{}, err
		}
		if !s.sleep(ctx, 200*time.Millisecond) {
			return nil, time.Time{}, ctx.Err()
		}
		if tags, err = s.q.ListQueueTags(ctx, s.internalCaller(), url); err != nil {
			return nil, time.Time{}, err
		}
	}
	key, kerr := hex.DecodeString(tags[jobKeyTag])
	ms, terr := strconv.ParseInt(tags[jobKeySince], 10, 64)
	if kerr != nil || terr != nil || len(key) < 16 {
		return nil, time.Time{}, errors.New("sns: the internal publish queue's job key is malformed")
	}
	s.key, s.keySince = key, time.UnixMilli(ms)
	return s.key, s.keySince, nil
}

// forgetJobKey drops the cached key so that the next use reads it again.
func (s *Service) forgetJobKey() {
	s.keyMu.Lock()
	s.key = nil
	s.keyMu.Unlock()
}

// newJobKeyTags makes a fresh key as the publish queue's tags.
func newJobKeyTags(now time.Time) map[string]string {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return map[string]string{jobKeyTag: hex.EncodeToString(key), jobKeySince: strconv.FormatInt(now.UnixMilli(), 10)}
}

func jobMAC(key []byte, body string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:sealMACBytes])
}

// seal returns body sealed under the job key.
func (s *Service) seal(ctx context.Context, body []byte) (string, error) {
	key, _, err := s.jobKey(ctx)
	if err != nil {
		return "", err
	}
	return sealPrefix + jobMAC(key, string(body)) + "." + string(body), nil
}

// open checks a received job's seal and returns its JSON body.
func (s *Service) open(ctx context.Context, m sqs.ReceivedMessage) ([]byte, error) {
	key, since, err := s.jobKey(ctx)
	if err != nil {
		return nil, err
	}
	rest, sealed := strings.CutPrefix(m.Body, sealPrefix)
	if !sealed {
		sent, perr := strconv.ParseInt(m.Attributes[sqs.SysAttrSentTimestamp], 10, 64)
		if perr == nil && sent < since.UnixMilli() {
			return []byte(m.Body), nil // sent before jobs were sealed
		}
		return nil, errForgedJob
	}
	mac, body, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, errForgedJob
	}
	if !hmac.Equal([]byte(mac), []byte(jobMAC(key, body))) {
		// The key may have been replaced by another node's at upgrade:
		// read it again before refusing.
		s.forgetJobKey()
		if key2, _, err := s.jobKey(ctx); err != nil || !hmac.Equal([]byte(mac), []byte(jobMAC(key2, body))) {
			return nil, errForgedJob
		}
	}
	return []byte(body), nil
}
