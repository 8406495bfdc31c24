package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// openEmbedded opens the embedded engine: everything in one Pebble store in
// --data-dir, the SQS Index and long-poll wake-ups in process.
func openEmbedded(c storeConfig, log *slog.Logger) (*engine, error) {
	if c.rollupShards < 0 || c.rollupShards > rollup.MaxCommitShards {
		return nil, fmt.Errorf("--rollup-commit-shards %d: want 1 to %d", c.rollupShards, rollup.MaxCommitShards)
	}
	db, err := pebblestore.Open(c.dataDir, pebblestore.Options{ReapInterval: c.reapInterval, CacheBytes: c.cacheBytes, Logger: log})
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, fmt.Errorf("the data directory %s is locked by another Herald process; stop it or choose another --data-dir", c.dataDir)
	}
	if err != nil {
		return nil, fmt.Errorf("open the embedded store in %s: %w", c.dataDir, err)
	}
	secret, err := db.Secret("sqs-receipt-handles")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open the embedded store in %s: %w", c.dataDir, err)
	}
	return &engine{
		name:          "embedded",
		receiptSecret: secret,
		settings:      db,
		cache:         db,
		queues:        db.Queues(),
		index:         sqsmem.NewIndex(sqsmem.IndexOptions{}),
		notifier:      sqsmem.NewNotifier(),
		topics:        db.Topics(),
		rollups:       db.Rollups(),
		rollupShards:  cmp.Or(c.rollupShards, 1),
		diskUsage:     db.DiskUsage,
		collectors:    []prometheus.Collector{db.Collector()},
		backup: func(ctx context.Context, dir string) error {
			return backupStore(ctx, db, c.dataDir, dir)
		},
		close: func() { db.Close() },
	}, nil
}
