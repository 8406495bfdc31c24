package pebblestore

import (
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// Account records of the topic store (sns.Store): an account's SMS
// attributes, opted-out phone numbers and sandbox numbers. The key holds
// account, kind and key (sns_keys.go); the value is a version byte and the
// record's bytes. Writes are synced like the other SNS records.

const accountRecordVersion = 1

func accountRecordNotFound(account, kind, key string) error {
	return herald.Errorf(herald.ENotFound, "%s record %s of account %s does not exist", kind, key, account)
}

func decodeAccountRecord(v []byte) ([]byte, error) {
	if len(v) == 0 || v[0] != accountRecordVersion {
		return nil, fmt.Errorf("%w: account record", errCorruptSNS)
	}
	return append([]byte(nil), v[1:]...), nil
}

// PutAccountRecord stores value under (account, kind, key).
func (s *TopicStore) PutAccountRecord(ctx context.Context, account, kind, key string, value []byte) error {
	const op = "put account record"
	if kind == "" || key == "" {
		return herald.Errorf(herald.EInvalid, "an account record needs a kind and a key")
	}
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	v := append([]byte{accountRecordVersion}, value...)
	if err := s.db.pdb.Set(accountRecordKey(account, kind, key), v, pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// GetAccountRecord returns the value under (account, kind, key) (ENotFound).
func (s *TopicStore) GetAccountRecord(ctx context.Context, account, kind, key string) ([]byte, error) {
	const op = "get account record"
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	v, found, err := get(s.db, accountRecordKey(account, kind, key), decodeAccountRecord)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	if !found {
		return nil, accountRecordNotFound(account, kind, key)
	}
	return v, nil
}

// DeleteAccountRecord removes the record under (account, kind, key)
// (ENotFound if absent), holding its key's lock from the read to the
// synced delete.
func (s *TopicStore) DeleteAccountRecord(ctx context.Context, account, kind, key string) error {
	const op = "delete account record"
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	k := accountRecordKey(account, kind, key)
	defer s.locks.lock(k)()
	_, found, err := get(s.db, k, func([]byte) (struct{}, error) { return struct{}{}, nil })
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if !found {
		return accountRecordNotFound(account, kind, key)
	}
	if err := s.db.pdb.Delete(k, pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// ListAccountRecords returns up to limit records of account and kind (no
// limit if limit <= 0) whose keys sort after `after`: one range scan.
func (s *TopicStore) ListAccountRecords(ctx context.Context, account, kind, after string, limit int) ([]sns.AccountRecord, error) {
	const op = "list account records"
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	prefix := accountKindPrefix(account, kind, 0)
	lo, hi := prefix, prefixEnd(prefix)
	if after != "" {
		lo = successor(accountRecordKey(account, kind, after))
	}
	return scanRecords(ctx, s.db, op, lo, hi, limit, func(k, v []byte) (sns.AccountRecord, error) {
		value, err := decodeAccountRecord(v)
		return sns.AccountRecord{Key: string(k[len(prefix):]), Value: value}, err
	})
}
