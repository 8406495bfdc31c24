package redisindex

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/sqs"
)

// TestMarkerWithoutEpoch: a queue marked built before index epochs existed
// (b = "2" and no e) is built under epoch 0: a node of epoch 0 serves it
// as before, and a node of a later epoch forgets every key of it (FIFO
// group zsets included) and rebuilds it.
func TestMarkerWithoutEpoch(t *testing.T) {
	tests := []struct {
		name      string
		epoch     uint64
		wantErr   error
		wantGone  bool
		wantClaim bool
	}{
		{name: "epoch 0 serves it", epoch: 0, wantClaim: true},
		{name: "a later epoch forgets it", epoch: 1, wantErr: sqs.ErrNotBuilt, wantGone: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := newIndex(t, Options{})
			ctx := context.Background()
			q := fifoQueue()
			k := keysOf(ix.prefix, q.ID)
			id := newIDs(1)[0]
			m := "000000000001" + string(id[:])
			// The state as the release before epochs wrote it.
			_, err := ix.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, k.base+"m", "b", "2", "s", 1)
				p.HSet(ctx, k.base+"d", string(id[:]), "000000000001:0:0:a")
				p.ZAdd(ctx, k.base+"v", redis.Z{Score: float64(at(0).UnixMilli()), Member: m})
				p.ZAdd(ctx, k.base+"gs", redis.Z{Score: 1, Member: "a"})
				p.ZAdd(ctx, k.groupPrefix+"a", redis.Z{Score: 0, Member: orderKey(id) + m})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			q.Epoch = tc.epoch
			res, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Now: at(1), Max: 10, Until: at(100)})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Receive under epoch %d: %v, want %v", tc.epoch, err, tc.wantErr)
			}
			if tc.wantClaim && (len(res.Claims) != 1 || res.Claims[0].ID != id) {
				t.Fatalf("Receive under epoch %d = %+v, want the message", tc.epoch, res.Claims)
			}
			keys, err := keysMatching(ctx, ix.client, k.base+"*")
			if err != nil {
				t.Fatal(err)
			}
			if gone := len(keys) == 0; gone != tc.wantGone {
				t.Fatalf("keys left: %q; want gone %v", keys, tc.wantGone)
			}
		})
	}
}

// orderKey is order_key of lua/common.lua: where id goes in its group.
func orderKey(id uuid.UUID) string {
	return fmt.Sprintf("%x%02x%02x%02x%02x%02x%02x%02x%02x%02x",
		id[6]%16, id[7], id[4], id[5], id[0], id[1], id[2], id[3], id[8]%64, id[9])
}

// TestMarkBuiltStoresTheEpoch: the marker carries the epoch it was built
// under, in field e beside b (which stays "2", so that nodes of the
// release before epochs go on reading it).
func TestMarkBuiltStoresTheEpoch(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := sqs.IndexQueue{ID: uuid.New(), Epoch: 1_712_345_678_901}
	if err := ix.MarkBuilt(ctx, q); err != nil {
		t.Fatal(err)
	}
	got, err := ix.client.HMGet(ctx, keysOf(ix.prefix, q.ID).state[0], "b", "e").Result()
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != "2" || got[1] != "1712345678901" {
		t.Fatalf("meta b, e = %v, want [2 1712345678901]", got)
	}
	if _, err := ix.Counts(ctx, q, at(0)); err != nil {
		t.Fatalf("Counts under the same epoch: %v", err)
	}
}
