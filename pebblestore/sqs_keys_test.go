package pebblestore

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestSQSMessageKeysSortByIDTime(t *testing.T) {
	q := uuid.New()
	var ids []uuid.UUID
	for i := range 50 {
		// Times chosen so that the low time bytes wrap: a byte order of the
		// raw UUID would not be time order.
		ids = append(ids, v1(t0.Add(time.Duration(i*i)*time.Hour+time.Duration(i)*time.Microsecond)))
	}
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = sqsMsgKey(q, 3, id)
	}
	shuffled := slices.Clone(keys)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, bytes.Compare)
	for i := range keys {
		if !bytes.Equal(keys[i], shuffled[i]) {
			t.Fatalf("key %d out of time order", i)
		}
	}
}

func TestSQSMessageKeyParsing(t *testing.T) {
	q, id := uuid.New(), v1(t0)
	tests := []struct {
		name      string
		key       []byte
		wantState bool
		wantOK    bool
	}{
		{"record", sqsMsgKey(q, 7, id), false, true},
		{"state", sqsStateKey(q, 7, id), true, true},
		{"short", sqsMsgKey(q, 7, id)[:sqsMsgKeyLen-1], false, false},
		{"bad suffix", append(sqsMsgKey(q, 7, id), 0x09), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shard, gotID, state, ok := parseSQSMsgKey(tt.key)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if shard != 7 || gotID != id || state != tt.wantState {
				t.Errorf("= shard %d, id %s, state %v; want 7, %s, %v", shard, gotID, state, id, tt.wantState)
			}
		})
	}
}

func TestSQSStateKeySortsBetweenItsRecordAndTheNext(t *testing.T) {
	q := uuid.New()
	a, b := v1(t0), v1(t0.Add(100*time.Nanosecond))
	order := [][]byte{
		sqsMsgKey(q, 0, a),
		sqsStateKey(q, 0, a),
		append(sqsMsgKey(q, 0, a), sqsAfterSuffix), // ScanMessages' resume point
		sqsMsgKey(q, 0, b),
		sqsMsgKey(q, 1, a), // next shard
	}
	for i := 1; i < len(order); i++ {
		if bytes.Compare(order[i-1], order[i]) >= 0 {
			t.Errorf("key %d does not sort before key %d", i-1, i)
		}
	}
	if !bytes.HasPrefix(sqsMsgKey(q, 1, a), sqsQueuePrefix(q)) {
		t.Error("message key outside its queue's prefix")
	}
}

func TestQueueKeysSeparateAccounts(t *testing.T) {
	// Without the account length, account "a" with queue "bc" and account
	// "ab" with queue "c" would share a key.
	if bytes.Equal(queueKey("a", "bc"), queueKey("ab", "c")) {
		t.Fatal("keys of different accounts collide")
	}
	acct := queueAccountPrefix("a", 0)
	if bytes.HasPrefix(queueKey("ab", "c"), acct) {
		t.Error("queue of account ab falls in the range of account a")
	}
	if got := nameFromQueueKey(queueKey("a", "bc"), acct); got != "bc" {
		t.Errorf("name = %q, want bc", got)
	}
}

func TestSQSExpiryBuckets(t *testing.T) {
	q := uuid.New()
	const b = expiryBucketMs
	tests := []struct {
		name      string
		expiresMs int64
		wantEnd   int64
	}{
		{"on a boundary", 10 * b, 10 * b},
		{"just after", 10*b + 1, 11 * b},
		{"just before", 10*b - 1, 10 * b},
		{"negative", -b - 1, -b},
		{"negative boundary", -2 * b, -2 * b},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := v1(t0)
			e := sqsExpiryOf(q, 2, id, tt.expiresMs)
			if e.endMs != tt.wantEnd {
				t.Errorf("end = %d, want %d", e.endMs, tt.wantEnd)
			}
			back, ok := parseSQSExpiryKey(e.key())
			if !ok || back != e {
				t.Errorf("key round trip = %+v, %v; want %+v", back, ok, e)
			}
			lo, hi := e.span()
			k := sqsMsgKey(q, 2, id)
			if bytes.Compare(lo, k) > 0 || bytes.Compare(k, hi) >= 0 {
				t.Error("the entry's span does not cover its message")
			}
			if other := sqsMsgKey(q, 2, v1(t0.Add(2*time.Minute))); bytes.Compare(other, hi) < 0 {
				t.Error("the span covers a message sent two minutes later")
			}
		})
	}
}

func TestSQSExpiryKeysOrderByTime(t *testing.T) {
	q := uuid.New()
	early := sqsExpiryOf(q, 0, v1(t0), t0.UnixMilli())
	late := sqsExpiryOf(uuid.Nil, 0, v1(t0), t0.Add(time.Hour).UnixMilli())
	if bytes.Compare(early.key(), late.key()) >= 0 {
		t.Error("an earlier expiry does not sort first")
	}
	if bytes.Compare(late.key(), timeBound(prefixSQSExpiry, late.endMs+1)) >= 0 {
		t.Error("a due entry sorts past the reaper's bound")
	}
}
