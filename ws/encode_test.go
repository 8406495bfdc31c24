package ws

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/cache"
)

// TestLiveFrameMatchesEncodingJSON checks the hand-built live frame against
// encoding/json's rendering of the same frame.
func TestLiveFrameMatchesEncodingJSON(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	m := &cache.Message{ID: uuid.Must(uuid.NewUUID()), ReplicaID: uuid.Must(uuid.NewUUID()),
		Metadata: []byte(`{"paths":["feeds.a.1"],"title":"<é & \"x\">"}`), Body: []byte("\x00\xffbody"),
		ReceivedAt: now, ExpiresAt: now.Add(time.Hour)}
	var enc messageEncoder
	got, err := enc.liveFrame("feeds.*.#", "feeds.a.1", m)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := enc.liveFrame("feeds.*.#", "feeds.a.1", m)
	if &again[0] != &got[0] {
		t.Error("the same frame was built twice for one event and pattern")
	}
	other, _ := enc.liveFrame("feeds.#", "feeds.a.1", m)
	if string(other) == string(got) || !json.Valid(other) {
		t.Errorf("frame for another pattern: %s", other)
	}
	// As the writer sends it: with the subscription's offset and the epoch.
	got = appendPosition(append([]byte(nil), got[:len(got)-1]...), 18446744073709551615, "0123456789abcdef")
	if n := len(got) - len(again); n > positionSize {
		t.Errorf("the position added %d bytes, more than positionSize %d", n, positionSize)
	}
	want, _ := json.Marshal(messageFrame{Type: "message", Subscription: "feeds.*.#", Path: "feeds.a.1", Message: toWire(m), Source: sourceLive,
		Offset: 18446744073709551615, Epoch: "0123456789abcdef"})
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("live frame is not JSON: %v\n%s", err, got)
	}
	json.Unmarshal(want, &w)
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("live frame\n%s\nwant\n%s", gb, wb)
	}
}
