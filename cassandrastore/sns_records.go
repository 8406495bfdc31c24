package cassandrastore

import (
	"context"
	"errors"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// Account records (sns_account_records) are written with plain upserts, as
// subscriptions are: each is only ever written by its account's own calls.

func recordNotFound(account, kind, key string) error {
	return herald.Errorf(herald.ENotFound, "%s record %s of account %s does not exist", kind, key, account)
}

// PutAccountRecord upserts the record (account, kind, key).
func (ts *topicStore) PutAccountRecord(ctx context.Context, account, kind, key string, value []byte) error {
	const op = "put account record"
	if kind == "" || key == "" {
		return herald.Errorf(herald.EInvalid, "an account record needs a kind and a key")
	}
	c, err := ts.enter(ctx, op)
	if err != nil {
		return err
	}
	if value == nil {
		value = []byte{} // an empty cell, not a null one
	}
	if err := c.write(ts.q.putRecord, accountKey(account), kind, []byte(key), value).WithContext(ctx).Exec(); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// GetAccountRecord reads the value of (account, kind, key).
func (ts *topicStore) GetAccountRecord(ctx context.Context, account, kind, key string) ([]byte, error) {
	const op = "get account record"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	var value []byte
	err = c.s.Query(ts.q.getRecord, accountKey(account), kind, []byte(key)).WithContext(ctx).Scan(&value)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, recordNotFound(account, kind, key)
	}
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return value, nil
}

// DeleteAccountRecord reads the record, to answer ENotFound when it is
// absent, then deletes its row (two concurrent deletes may both succeed).
func (ts *topicStore) DeleteAccountRecord(ctx context.Context, account, kind, key string) error {
	const op = "delete account record"
	if _, err := ts.GetAccountRecord(ctx, account, kind, key); err != nil {
		return err
	}
	c, err := ts.enter(ctx, op)
	if err != nil {
		return err
	}
	if err := c.write(ts.q.deleteRecord, accountKey(account), kind, []byte(key)).WithContext(ctx).Exec(); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// ListAccountRecords reads up to limit rows of the (account, kind)
// partition after `after`: one clustered range. limit <= 0 returns
// nothing, as the other lists of this engine.
func (ts *topicStore) ListAccountRecords(ctx context.Context, account, kind, after string, limit int) ([]sns.AccountRecord, error) {
	const op = "list account records"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	q := c.s.Query(ts.q.listRecords, accountKey(account), kind, limit)
	if after != "" {
		q = c.s.Query(ts.q.listRecordsAfter, accountKey(account), kind, []byte(after), limit)
	}
	iter := q.WithContext(ctx).Iter()
	var (
		out        []sns.AccountRecord
		key, value []byte
	)
	for iter.Scan(&key, &value) {
		out = append(out, sns.AccountRecord{Key: string(key), Value: append([]byte(nil), value...)})
	}
	if err := iter.Close(); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}
