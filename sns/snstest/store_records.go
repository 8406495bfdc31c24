package snstest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"

	herald "github.com/heraldmq/herald"
)

// The account records of sns.Store: SMS attributes, opted-out phone
// numbers and SMS sandbox numbers are kinds of them.

// getRecord reads one record, failing the test on any error.
func (e *env) getRecord(account, kind, key string) []byte {
	e.t.Helper()
	v, err := e.store.GetAccountRecord(e.ctx, account, kind, key)
	if err != nil {
		e.t.Fatalf("GetAccountRecord(%s, %s, %s): %v", account, kind, key, err)
	}
	return v
}

func (e *env) putRecord(account, kind, key string, value []byte) {
	e.t.Helper()
	if err := e.store.PutAccountRecord(e.ctx, account, kind, key, value); err != nil {
		e.t.Fatalf("PutAccountRecord(%s, %s, %s): %v", account, kind, key, err)
	}
}

func testRecordPutGetReplace(e *env) {
	value := []byte{0, 1, 2, 0xff, 'x'}
	e.putRecord(e.account, "sms-attr", "DefaultSMSType", value)
	if got := e.getRecord(e.account, "sms-attr", "DefaultSMSType"); !bytes.Equal(got, value) {
		e.t.Errorf("GetAccountRecord = %q, want %q", got, value)
	}
	e.putRecord(e.account, "sms-attr", "DefaultSMSType", []byte("Transactional"))
	if got := e.getRecord(e.account, "sms-attr", "DefaultSMSType"); string(got) != "Transactional" {
		e.t.Errorf("after a second put GetAccountRecord = %q, want the new value", got)
	}
	e.putRecord(e.account, "sms-opt-out", "+15555550100", nil)
	if got := e.getRecord(e.account, "sms-opt-out", "+15555550100"); len(got) != 0 {
		e.t.Errorf("an empty value came back as %q", got)
	}
}

func testRecordMissing(e *env) {
	_, err := e.store.GetAccountRecord(e.ctx, e.account, "sms-attr", "nothing")
	wantCode(e.t, "GetAccountRecord of a missing record", err, herald.ENotFound)
	err = e.store.DeleteAccountRecord(e.ctx, e.account, "sms-attr", "nothing")
	wantCode(e.t, "DeleteAccountRecord of a missing record", err, herald.ENotFound)
}

func testRecordDelete(e *env) {
	e.putRecord(e.account, "sms-opt-out", "+15555550100", []byte("x"))
	e.putRecord(e.account, "sms-opt-out", "+15555550101", []byte("y"))
	if err := e.store.DeleteAccountRecord(e.ctx, e.account, "sms-opt-out", "+15555550100"); err != nil {
		e.t.Fatalf("DeleteAccountRecord: %v", err)
	}
	_, err := e.store.GetAccountRecord(e.ctx, e.account, "sms-opt-out", "+15555550100")
	wantCode(e.t, "GetAccountRecord after its delete", err, herald.ENotFound)
	if got := e.getRecord(e.account, "sms-opt-out", "+15555550101"); string(got) != "y" {
		e.t.Errorf("the other record = %q after a delete, want %q", got, "y")
	}
}

// testRecordsApart puts the same key under neighbouring accounts and
// kinds (one a prefix of the other), which must not see each other.
func testRecordsApart(e *env) {
	other := e.account + "1"
	e.putRecord(e.account, "k", "a", []byte("1"))
	e.putRecord(e.account, "k1", "a", []byte("2"))
	e.putRecord(other, "k", "a", []byte("3"))
	e.putRecord(e.account, "kk", "b", []byte("4"))
	for _, c := range []struct{ account, kind, want string }{
		{e.account, "k", "1"}, {e.account, "k1", "2"}, {other, "k", "3"},
	} {
		if got := e.getRecord(c.account, c.kind, "a"); string(got) != c.want {
			e.t.Errorf("record (%s, %s, a) = %q, want %q", c.account, c.kind, got, c.want)
		}
		recs, err := e.store.ListAccountRecords(e.ctx, c.account, c.kind, "", 10)
		if err != nil {
			e.t.Fatalf("ListAccountRecords: %v", err)
		}
		if len(recs) != 1 || recs[0].Key != "a" || string(recs[0].Value) != c.want {
			e.t.Errorf("ListAccountRecords(%s, %s) = %v, want only a=%s", c.account, c.kind, recs, c.want)
		}
	}
}

// testRecordsPage lists records put in random order, in pages, and
// checks byte order of keys, `after` and the limit.
func testRecordsPage(e *env) {
	var keys []string
	for i := range 23 {
		keys = append(keys, fmt.Sprintf("+%d", i*7)) // "+0", "+105", "+14", ...: byte order is not numeric order
	}
	for _, i := range rand.Perm(len(keys)) {
		e.putRecord(e.account, "sms-sandbox", keys[i], []byte("v"+keys[i]))
	}
	slices.Sort(keys)
	var got []string
	after := ""
	for range 100 {
		recs, err := e.store.ListAccountRecords(e.ctx, e.account, "sms-sandbox", after, 5)
		if err != nil {
			e.t.Fatalf("ListAccountRecords: %v", err)
		}
		if len(recs) > 5 {
			e.t.Fatalf("ListAccountRecords returned %d records, more than the limit 5", len(recs))
		}
		for _, r := range recs {
			if r.Key <= after {
				e.t.Fatalf("ListAccountRecords(after %q) returned %q, not after it", after, r.Key)
			}
			if string(r.Value) != "v"+r.Key {
				e.t.Errorf("record %s = %q, want %q", r.Key, r.Value, "v"+r.Key)
			}
			after = r.Key
			got = append(got, r.Key)
		}
		if len(recs) < 5 {
			break
		}
	}
	if !slices.Equal(got, keys) {
		e.t.Errorf("paged keys = %v, want %v", got, keys)
	}
	if recs, err := e.store.ListAccountRecords(e.ctx, e.account, "sms-sandbox", keys[len(keys)-1], 5); err != nil || len(recs) != 0 {
		e.t.Errorf("ListAccountRecords after the last key = %v, %v; want none", recs, err)
	}
	if recs, err := e.store.ListAccountRecords(e.ctx, NewAccount(), "sms-sandbox", "", 5); err != nil || len(recs) != 0 {
		e.t.Errorf("ListAccountRecords of an account without records = %v, %v; want none", recs, err)
	}
}
