package rollup

import (
	"encoding/json"
	"testing"
)

// videoJSON is a LoopLogic-shaped definition, as a client would PUT it.
const videoJSON = `{
  "name": "video",
  "event": {"id": "id", "time": "time"},
  "scopes": [["channel"], ["channel", "video"]],
  "metrics": ["plays", "viewers"],
  "dimensions": ["country", "city", "site"],
  "drilldowns": [["city", "site"]],
  "periods": [{"unit": "hour"}, {"unit": "day", "retention": "400d"}, {"unit": "all"}]
}`

// parseDef decodes and normalizes a definition, failing the test on error.
func parseDef(t testing.TB, text string) *Definition {
	t.Helper()
	var d Definition
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		t.Fatalf("decode definition: %v", err)
	}
	if err := d.Normalize(); err != nil {
		t.Fatalf("Normalize: %v", err)
	}
	return &d
}

// parseOne reads one well-formed event, failing the test otherwise.
func parseOne(t testing.TB, d *Definition, body string) Event {
	t.Helper()
	events, bad, err := d.ParseEvents([]byte(body))
	if err != nil || len(bad) > 0 || len(events) != 1 {
		t.Fatalf("ParseEvents(%s) = %d events, bad %v, err %v", body, len(events), bad, err)
	}
	return events[0]
}
