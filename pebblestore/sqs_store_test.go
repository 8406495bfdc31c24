package pebblestore

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

func TestQueueCreateGetUpdateDelete(t *testing.T) {
	ctx := context.Background()
	s := openDB(t, nil, Options{}).Queues()
	q := testQueue("orders", 1)
	q.Tags = map[string]string{"k": "v"}
	if _, err := s.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}

	again := testQueue("orders", 1)
	existing, err := s.CreateQueue(ctx, again)
	if herald.ErrorCode(err) != herald.EConflict || existing == nil || existing.ID != q.ID {
		t.Fatalf("second CreateQueue = %v, %v; want the first queue and EConflict", existing, err)
	}

	got, err := s.GetQueue(ctx, testAccount, "orders")
	if err != nil || !reflect.DeepEqual(got, q) {
		t.Fatalf("GetQueue = %+v, %v; want %+v", got, err, q)
	}
	if _, err := s.GetQueue(ctx, "111111111111", "orders"); herald.ErrorCode(err) != herald.ENotFound {
		t.Errorf("GetQueue of another account: err = %v, want ENotFound", err)
	}

	q.Attributes.VisibilityTimeout = 99
	if err := s.UpdateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetQueue(ctx, testAccount, "orders"); got.Attributes.VisibilityTimeout != 99 {
		t.Errorf("VisibilityTimeout after update = %d", got.Attributes.VisibilityTimeout)
	}
	if err := s.UpdateQueue(ctx, again); herald.ErrorCode(err) != herald.ENotFound {
		t.Errorf("UpdateQueue with another ID: err = %v, want ENotFound", err)
	}
	if err := s.DeleteQueue(ctx, again); herald.ErrorCode(err) != herald.ENotFound {
		t.Errorf("DeleteQueue with another ID: err = %v, want ENotFound", err)
	}

	if err := s.DeleteQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetQueue(ctx, testAccount, "orders"); herald.ErrorCode(err) != herald.ENotFound {
		t.Errorf("GetQueue after delete: err = %v, want ENotFound", err)
	}
	if err := s.DeleteQueue(ctx, q); herald.ErrorCode(err) != herald.ENotFound {
		t.Errorf("second DeleteQueue: err = %v, want ENotFound", err)
	}
	if err := s.UpdateQueue(ctx, q); herald.ErrorCode(err) != herald.ENotFound {
		t.Errorf("UpdateQueue after delete: err = %v, want ENotFound", err)
	}
}

func TestCreateQueueRejectsBadShards(t *testing.T) {
	s := openDB(t, nil, Options{}).Queues()
	for _, n := range []int{-1, sqs.MaxShards + 1} {
		if _, err := s.CreateQueue(context.Background(), testQueue("q", n)); herald.ErrorCode(err) != herald.EInvalid {
			t.Errorf("%d shards: err = %v, want EInvalid", n, err)
		}
	}
}

func TestCreateQueueRaceHasOneWinner(t *testing.T) {
	s := openDB(t, nil, Options{}).Queues()
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := 0
	for range 16 {
		wg.Go(func() {
			_, err := s.CreateQueue(context.Background(), testQueue("contested", 1))
			if err == nil {
				mu.Lock()
				winners++
				mu.Unlock()
			} else if herald.ErrorCode(err) != herald.EConflict {
				t.Errorf("CreateQueue: %v", err)
			}
		})
	}
	wg.Wait()
	if winners != 1 {
		t.Errorf("%d creations succeeded, want 1", winners)
	}
}

func TestListQueues(t *testing.T) {
	ctx := context.Background()
	s := openDB(t, nil, Options{}).Queues()
	names := []string{"a", "a-1", "a-2", "ab", "b", "b-1"}
	for _, n := range names {
		createQueue(t, s, n, 1)
	}
	other := testQueue("a-3", 1)
	other.Account = testAccount + "0" // a longer account id sharing the prefix
	if _, err := s.CreateQueue(ctx, other); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		prefix, after string
		limit         int
		want          []string
	}{
		{"", "", 0, names},
		{"", "", 2, []string{"a", "a-1"}},
		{"", "a-1", 2, []string{"a-2", "ab"}},
		{"a-", "", 0, []string{"a-1", "a-2"}},
		{"a-", "a-1", 0, []string{"a-2"}},
		{"a-", "0", 0, []string{"a-1", "a-2"}}, // after sorts before the prefix
		{"a-", "zz", 0, nil},                   // after sorts past the prefix
		{"c", "", 0, nil},
		{"b", "b", 0, []string{"b-1"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q after %q limit %d", tt.prefix, tt.after, tt.limit), func(t *testing.T) {
			qs, err := s.ListQueues(ctx, testAccount, tt.prefix, tt.after, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range qs {
				if q.Account != testAccount {
					t.Errorf("queue %s of account %s listed", q.Name, q.Account)
				}
				got = append(got, q.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnindexedMarks(t *testing.T) {
	ctx := context.Background()
	s := openDB(t, nil, Options{}).Queues()
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{a, b, c, a} {
		if err := s.MarkUnindexed(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	first, err := s.TakeUnindexed(ctx, 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("TakeUnindexed(2) = %v, %v", first, err)
	}
	rest, err := s.TakeUnindexed(ctx, 10)
	if err != nil || len(rest) != 1 {
		t.Fatalf("second TakeUnindexed = %v, %v; want the one left", rest, err)
	}
	got := append(first, rest...)
	slices.SortFunc(got, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	want := []uuid.UUID{a, b, c}
	slices.SortFunc(want, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	if !sameIDs(got, want) {
		t.Errorf("took %v, want each of %v once", got, want)
	}
	if none, err := s.TakeUnindexed(ctx, 10); err != nil || len(none) != 0 {
		t.Errorf("TakeUnindexed when empty = %v, %v", none, err)
	}
}

func TestQueueStoreAfterClose(t *testing.T) {
	db := openDB(t, nil, Options{})
	s := db.Queues()
	q := createQueue(t, s, "q", 1)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetQueue(context.Background(), testAccount, "q"); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("GetQueue after Close: err = %v, want EUnavailable", err)
	}
	if err := s.PutMessages(context.Background(), q, []*sqs.Message{sqsMsg(t0, 0, 0)}); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("PutMessages after Close: err = %v, want EUnavailable", err)
	}
}
