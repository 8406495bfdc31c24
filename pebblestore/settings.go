package pebblestore

import (
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"github.com/heraldmq/herald"
)

// maxSettingLen bounds a setting's value.
const maxSettingLen = 1 << 20

func settingKey(name string) []byte {
	return append(append([]byte{prefixMeta}, "setting/"...), name...)
}

// Setting returns the value of the setting name (metadata key
// "setting/<name>"), kept across restarts and backups: the rate limits
// set at run time (limits.Store).
func (db *DB) Setting(_ context.Context, name string) (string, bool, error) {
	const op = "read setting"
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return "", false, herald.Unavailable(op, errors.New("pebblestore: closed"))
	}
	v, closer, err := db.pdb.Get(settingKey(name))
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		return "", false, nil
	case err != nil:
		return "", false, herald.Unavailable(op, err)
	}
	defer closer.Close()
	return string(v), true, nil
}

// SetSetting sets the setting name to value, synced before it returns;
// "" deletes it.
func (db *DB) SetSetting(_ context.Context, name, value string) error {
	const op = "write setting"
	if len(value) > maxSettingLen {
		return herald.Errorf(herald.ETooLarge, "setting %s: %d bytes, at most %d", herald.Clip(name), len(value), maxSettingLen)
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return herald.Unavailable(op, errors.New("pebblestore: closed"))
	}
	var err error
	if value == "" {
		err = db.pdb.Delete(settingKey(name), pebble.Sync)
	} else {
		err = db.pdb.Set(settingKey(name), []byte(value), pebble.Sync)
	}
	if err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}
