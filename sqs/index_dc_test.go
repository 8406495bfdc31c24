package sqs_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// TestDCIndexRoutesByDataCenter: each call goes to the Index of the data
// center its IndexQueue names ("" is the local one); a data center the
// node has no Index of is unavailable; a Drop for AllDCs reaches every
// Index and fails if one fails.
func TestDCIndexRoutesByDataCenter(t *testing.T) {
	ctx := context.Background()
	local := &flakyIndex{Index: sqsmem.NewIndex(sqsmem.IndexOptions{})}
	peer := &flakyIndex{Index: sqsmem.NewIndex(sqsmem.IndexOptions{})}
	ix := sqs.NewDCIndex("dc1", map[string]sqs.Index{"dc1": local, "dc2": peer})
	q := sqs.IndexQueue{ID: uuid.New()}
	for _, tc := range []struct {
		dc   string
		want *flakyIndex
	}{{"", local}, {"dc1", local}, {"dc2", peer}} {
		q.DC = tc.dc
		before := [2]int64{local.receives.Load(), peer.receives.Load()}
		_, _ = ix.Receive(ctx, q, sqs.ReceiveRequest{Max: 1})
		after := [2]int64{local.receives.Load(), peer.receives.Load()}
		gotLocal, gotPeer := after[0]-before[0], after[1]-before[1]
		if (tc.want == local) != (gotLocal == 1 && gotPeer == 0) || (tc.want == peer) != (gotPeer == 1 && gotLocal == 0) {
			t.Errorf("DC %q: receives local %d, peer %d", tc.dc, gotLocal, gotPeer)
		}
	}
	q.DC = "dc3"
	if _, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Max: 1}); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("a data center without an Index: %v, want unavailable", err)
	}
	q.DC = sqs.AllDCs
	if err := ix.Drop(ctx, q); err != nil || local.drops.Load() != 1 || peer.drops.Load() != 1 {
		t.Errorf("Drop for every DC: %v; drops local %d, peer %d", err, local.drops.Load(), peer.drops.Load())
	}
	peer.down.Store(true)
	if err := ix.Drop(ctx, q); herald.ErrorCode(err) != herald.EUnavailable || local.drops.Load() != 2 {
		t.Errorf("Drop for every DC with one down: %v, local drops %d; want unavailable after dropping the local one", err, local.drops.Load())
	}
}
