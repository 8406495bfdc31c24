package e2e

import (
	"fmt"
	"testing"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
)

// The first hour of a new user (issue 16, item 5): small surprises, each
// checked against a real herald serve.

// TestBatchPutLastEntryIsLatest puts three versions of one path in one
// batch, several times, and reads the path's latest: always the last entry.
func TestBatchPutLastEntryIsLatest(t *testing.T) {
	eachEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c, ctx := s.client(), testContext(t)
		word := uniqueWord(t)
		for round := range 10 {
			path := fmt.Sprintf("%s.r%d", word, round)
			res, err := c.PutBatch(ctx, []api.PutRequest{
				{Metadata: meta(path), Body: []byte("first")},
				{Metadata: meta(path), Body: []byte("second")},
				{Metadata: meta(path), Body: []byte("third")},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 3 || res.Results[2].Status != 201 {
				t.Fatalf("round %d: batch answered %+v", round, res)
			}
			got, err := c.Latest(ctx, path, client.PageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Items) != 1 || got.Items[0].Message.MessageUUID != res.Results[2].MessageUUID || string(got.Items[0].Message.Body) != "third" {
				t.Fatalf("round %d: latest of %s = %+v, want the third entry %s", round, path, got.Items, res.Results[2].MessageUUID)
			}
		}
	})
}
