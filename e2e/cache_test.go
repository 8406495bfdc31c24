package e2e

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache/cachetest"
	"github.com/heraldmq/herald/client"
)

// uuidAt returns a version 1 UUID carrying time at with a random clock
// sequence and node.
func uuidAt(t *testing.T, at time.Time) uuid.UUID {
	t.Helper()
	return cachetest.UUIDAt(at)
}

// uniqueWord returns a path word no other test uses.
func uniqueWord(t *testing.T) string {
	t.Helper()
	return "t" + uuid.NewString()[:8]
}

func meta(paths ...string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"paths": paths, "source": "e2e"})
	return b
}

func ttl(seconds int64) *int64 { return &seconds }

// wantStatus checks that err is a server error with the given status and code.
func wantStatus(t *testing.T, err error, status int, code string) {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v, want a %d %s answer", err, status, code)
	}
	if e.Status != status || (code != "" && e.Code != code) {
		t.Fatalf("got %d %s (%s), want %d %s", e.Status, e.Code, e.Message, status, code)
	}
}

func TestPutGetRoundTripAndRepeat(t *testing.T) { eachEngine(t, testPutGetRoundTripAndRepeat) }

func testPutGetRoundTripAndRepeat(t *testing.T, e engine) {
	s := e.start(t, "")
	c, ctx := s.client(), testContext(t)
	path := uniqueWord(t) + ".breaking-news.12345"
	id := uuidAt(t, time.Now()).String()
	req := api.PutRequest{MessageUUID: id, Metadata: meta(path), Body: []byte("hello\x00world"), TTL: ttl(3600)}
	resp, created, err := c.Put(ctx, req)
	if err != nil || !created || resp.MessageUUID != id {
		t.Fatalf("first put: %+v created=%v err=%v, want 201 with %s", resp, created, err, id)
	}
	if v := uuid.MustParse(resp.ReplicaUUID).Version(); v != 1 {
		t.Fatalf("assigned replica_uuid %s has version %d, want 1", resp.ReplicaUUID, v)
	}
	got, err := c.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Body) != "hello\x00world" || got.MessageUUID != id || got.ReplicaUUID != resp.ReplicaUUID {
		t.Fatalf("get returned %+v", got)
	}
	received, _ := time.Parse(time.RFC3339Nano, got.ReceivedAt)
	expires, _ := time.Parse(time.RFC3339Nano, got.ExpiresAt)
	if d := expires.Sub(received); d != time.Hour {
		t.Fatalf("expires_at - received_at = %s, want the 1h ttl", d)
	}
	var m map[string]any
	if err := json.Unmarshal(got.Metadata, &m); err != nil || m["source"] != "e2e" {
		t.Fatalf("metadata %s did not round-trip", got.Metadata)
	}

	again := req
	again.Body = []byte("a different body")
	resp2, created, err := c.Put(ctx, again)
	if err != nil || created || resp2 != resp {
		t.Fatalf("repeat put: %+v created=%v err=%v, want 200 with %+v", resp2, created, err, resp)
	}
	if got, _ := c.Get(ctx, id); string(got.Body) != "hello\x00world" {
		t.Fatalf("repeat put replaced the body with %q", got.Body)
	}
	all, err := c.All(ctx, path, client.PageOptions{})
	if err != nil || len(all.Messages) != 1 {
		t.Fatalf("all(%s) = %d messages (err %v), want the message stored once", path, len(all.Messages), err)
	}
}

func TestGetMissingMessageIs404(t *testing.T) { eachEngine(t, testGetMissingMessageIs404) }

func testGetMissingMessageIs404(t *testing.T, e engine) {
	s := e.start(t, "")
	_, err := s.client().Get(testContext(t), uuidAt(t, time.Now()).String())
	wantStatus(t, err, 404, "not_found")
}

func TestLatestOverSubtreeWithWildcards(t *testing.T) {
	eachEngine(t, testLatestOverSubtreeWithWildcards)
}

func testLatestOverSubtreeWithWildcards(t *testing.T, e engine) {
	s := e.start(t, "")
	c, ctx := s.client(), testContext(t)
	root := uniqueWord(t)
	now := time.Now()
	put := func(path string, at time.Time) string {
		t.Helper()
		id := uuidAt(t, at).String()
		if _, _, err := c.Put(ctx, api.PutRequest{MessageUUID: id, Metadata: meta(path)}); err != nil {
			t.Fatalf("put %s: %v", path, err)
		}
		return id
	}
	newest := put(root+".feeds.a", now)
	put(root+".feeds.a", now.Add(-time.Minute)) // arrives late, is older: must not win
	b := put(root+".feeds.b", now)
	deep := put(root+".feeds.b.deep", now)
	other := put(root+".other.a", now)

	cases := []struct {
		pattern string
		want    map[string]string
	}{
		{root + ".feeds.#", map[string]string{root + ".feeds.a": newest, root + ".feeds.b": b, root + ".feeds.b.deep": deep}},
		{root + ".feeds.*", map[string]string{root + ".feeds.a": newest, root + ".feeds.b": b}},
		{root + ".*.a", map[string]string{root + ".feeds.a": newest, root + ".other.a": other}},
		{root + ".#.deep", map[string]string{root + ".feeds.b.deep": deep}},
		{root + ".feeds.a", map[string]string{root + ".feeds.a": newest}},
		{root + ".nothing.#", map[string]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.pattern, func(t *testing.T) {
			resp, err := c.Latest(ctx, tc.pattern, client.PageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			var order []string
			for _, it := range resp.Items {
				got[it.Path] = it.Message.MessageUUID
				order = append(order, it.Path)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("latest(%s) = %v, want %v", tc.pattern, got, tc.want)
			}
			if !slices.IsSorted(order) || resp.NextCursor != "" {
				t.Fatalf("items %v not in path order or next_cursor %q not empty", order, resp.NextCursor)
			}
		})
	}
}

func TestLatestPagesCoverEveryPathOnce(t *testing.T) {
	eachEngine(t, testLatestPagesCoverEveryPathOnce)
}

func testLatestPagesCoverEveryPathOnce(t *testing.T, e engine) {
	s := e.start(t, "")
	c, ctx := s.client(), testContext(t)
	root := uniqueWord(t)
	var want []string
	var batch []api.PutRequest
	for i := range 250 {
		p := fmt.Sprintf("%s.c%d.k%03d", root, i%3, i)
		want = append(want, p)
		batch = append(batch, api.PutRequest{Metadata: meta(p)})
		if len(batch) == 100 || i == 249 {
			if _, err := c.PutBatch(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = nil
		}
	}
	slices.Sort(want)
	var got []string
	page := client.PageOptions{Limit: 7}
	for pages := 0; ; pages++ {
		resp, err := c.Latest(ctx, root+".#", page)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range resp.Items {
			got = append(got, it.Path)
		}
		if resp.NextCursor == "" {
			if len(resp.Items) == 0 && pages > 0 {
				t.Fatalf("the last page is empty: next_cursor should have been empty one page earlier")
			}
			break
		}
		page.Cursor = resp.NextCursor
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged latest returned %d paths, want %d (first diff near %v)", len(got), len(want), firstDiff(got, want))
	}
	paths, err := c.Paths(ctx, root, client.PageOptions{Limit: 1000})
	if err != nil || !slices.Equal(paths.Paths, want) {
		t.Fatalf("paths(%s) = %d paths (err %v), want the same %d", root, len(paths.Paths), err, len(want))
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("index %d: %s vs %s", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
}

func TestAllNewestFirstWithPaging(t *testing.T) { eachEngine(t, testAllNewestFirstWithPaging) }

func testAllNewestFirstWithPaging(t *testing.T, e engine) {
	s := e.start(t, "")
	c, ctx := s.client(), testContext(t)
	path := uniqueWord(t) + ".scores.game-7"
	base := time.Now().Add(-time.Hour)
	var want []string
	for i := range 25 {
		id := uuidAt(t, base.Add(time.Duration(i)*time.Second)).String()
		want = append([]string{id}, want...)
		if _, _, err := c.Put(ctx, api.PutRequest{MessageUUID: id, Metadata: meta(path)}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	page := client.PageOptions{Limit: 10}
	for {
		resp, err := c.All(ctx, path, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range resp.Messages {
			got = append(got, m.MessageUUID)
		}
		if resp.NextCursor == "" {
			break
		}
		page.Cursor = resp.NextCursor
	}
	if !slices.Equal(got, want) {
		t.Fatalf("all(%s) = %v, want newest first %v", path, got, want)
	}
}

func TestJournalReturnsTimeRangeOldestFirst(t *testing.T) {
	eachEngine(t, testJournalReturnsTimeRangeOldestFirst)
}

func testJournalReturnsTimeRangeOldestFirst(t *testing.T, e engine) {
	s := e.start(t, "")
	c, ctx := s.client(), testContext(t)
	root := uniqueWord(t)
	from := time.Now().Add(-time.Second)
	var want []string
	for i := range 5 {
		resp, _, err := c.Put(ctx, api.PutRequest{Metadata: meta(fmt.Sprintf("%s.j.%d", root, i))})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, resp.MessageUUID)
		time.Sleep(2 * time.Millisecond)
	}
	to := time.Now().Add(time.Second)
	var got []string
	page := client.PageOptions{Limit: 2}
	for {
		resp, err := c.Journal(ctx, from, to, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range resp.Messages {
			// Servers on a shared store (Cassandra) see other tests' puts
			// in the same window: keep this test's own.
			if slices.Contains(want, m.MessageUUID) {
				got = append(got, m.MessageUUID)
			}
		}
		if resp.NextCursor == "" {
			break
		}
		page.Cursor = resp.NextCursor
	}
	if !slices.Equal(got, want) {
		t.Fatalf("journal = %v, want %v", got, want)
	}
	if e.name != embedded.name {
		return
	}
	empty, err := c.Journal(ctx, to, to.Add(time.Hour), client.PageOptions{})
	if err != nil || len(empty.Messages) != 0 {
		t.Fatalf("journal after the writes = %d messages (err %v), want none", len(empty.Messages), err)
	}
}

func TestBatchBadEntryDoesNotFailGoodOnes(t *testing.T) {
	eachEngine(t, testBatchBadEntryDoesNotFailGoodOnes)
}

func testBatchBadEntryDoesNotFailGoodOnes(t *testing.T, e engine) {
	s := e.start(t, "")
	c, ctx := s.client(), testContext(t)
	root := uniqueWord(t)
	resp, err := c.PutBatch(ctx, []api.PutRequest{
		{Metadata: meta(root + ".ok.1")},
		{Metadata: meta(root + ".bad..path")},
		{Metadata: meta(root + ".ok.2"), TTL: ttl(0)},
		{Metadata: meta(root + ".ok.3")},
	})
	if err != nil {
		t.Fatal(err)
	}
	statuses := []int{}
	for _, r := range resp.Results {
		statuses = append(statuses, r.Status)
	}
	if !slices.Equal(statuses, []int{201, 400, 400, 201}) {
		t.Fatalf("batch statuses %v, want [201 400 400 201]", statuses)
	}
	for _, i := range []int{0, 3} {
		if _, err := c.Get(ctx, resp.Results[i].MessageUUID); err != nil {
			t.Fatalf("good entry %d not stored: %v", i, err)
		}
	}
	if resp.Results[1].Error == nil || resp.Results[1].Error.Code != "invalid_argument" {
		t.Fatalf("bad entry result %+v lacks an invalid_argument error", resp.Results[1])
	}
}

func TestExpiredMessagesAreNotReturned(t *testing.T) {
	eachEngine(t, testExpiredMessagesAreNotReturned)
}

func testExpiredMessagesAreNotReturned(t *testing.T, e engine) {
	s := e.start(t, "", "--reap-interval", "500ms")
	c, ctx := s.client(), testContext(t)
	path := uniqueWord(t) + ".short.lived"
	resp, _, err := c.Put(ctx, api.PutRequest{Metadata: meta(path), TTL: ttl(1)})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	_, err = c.Get(ctx, resp.MessageUUID)
	wantStatus(t, err, 404, "not_found")
	latest, err := c.Latest(ctx, path, client.PageOptions{})
	if err != nil || len(latest.Items) != 0 {
		t.Fatalf("latest after expiry = %+v (err %v), want nothing", latest.Items, err)
	}
	all, err := c.All(ctx, path, client.PageOptions{})
	if err != nil || len(all.Messages) != 0 {
		t.Fatalf("all after expiry = %d messages (err %v), want none", len(all.Messages), err)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func pageAll() client.PageOptions { return client.PageOptions{Limit: 1000} }
