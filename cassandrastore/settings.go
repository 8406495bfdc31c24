package cassandrastore

import (
	"context"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
)

// maxSettingLen bounds a setting's value.
const maxSettingLen = 1 << 20

// Setting returns the value of the setting name (the settings table),
// read at the configured read consistency: the rate limits set at run time
// (limits.Store).
func (st *Store) Setting(ctx context.Context, name string) (string, bool, error) {
	const op = "read setting"
	c, err := st.enter(ctx, op)
	if err != nil {
		return "", false, err
	}
	var v string
	err = c.s.Query(`SELECT value FROM `+st.opts.Keyspace+`.settings WHERE name = ?`, name).WithContext(ctx).Scan(&v)
	switch {
	case err == gocql.ErrNotFound:
		return "", false, nil
	case err != nil:
		return "", false, herald.Unavailable(op, err)
	}
	return v, v != "", nil
}

// SetSetting sets the setting name to value at the write consistency; ""
// deletes it.
func (st *Store) SetSetting(ctx context.Context, name, value string) error {
	const op = "write setting"
	if len(value) > maxSettingLen {
		return herald.Errorf(herald.ETooLarge, "setting %s: %d bytes, at most %d", herald.Clip(name), len(value), maxSettingLen)
	}
	c, err := st.enter(ctx, op)
	if err != nil {
		return err
	}
	var q *gocql.Query
	if value == "" {
		q = c.write(`DELETE FROM `+st.opts.Keyspace+`.settings WHERE name = ?`, name)
	} else {
		q = c.write(`INSERT INTO `+st.opts.Keyspace+`.settings (name, value, changed_ms) VALUES (?, ?, ?)`,
			name, value, st.opts.Now().UnixMilli())
	}
	if err := q.WithContext(ctx).Exec(); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}
