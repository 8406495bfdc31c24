package metrics_test

import (
	"strings"
	"testing"

	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
	"github.com/heraldmq/herald/sqs/sqstest"
)

// The decorators pass every call through unchanged: the shared contract
// suites of sqs.Store and sqs.Index pass through them (over the in-memory
// engines), and every operation they saw is in the histograms.

func TestQueueStoreDecoratorConformance(t *testing.T) {
	m := metrics.New()
	t.Run("suite", func(t *testing.T) { // returns once its parallel subtests are done
		sqstest.RunStore(t, func(t *testing.T) sqs.Store { return metrics.InstrumentQueueStore(sqsmem.NewStore(), m) })
	})
	checkObserved(t, m, "herald_store_operation_duration_seconds", `op="queue_put_messages"`, `op="queue_get_messages"`, `op="queue_create_queue"`)
}

func TestIndexDecoratorConformance(t *testing.T) {
	m := metrics.New()
	t.Run("suite", func(t *testing.T) {
		sqstest.RunIndex(t, func(t *testing.T) sqs.Index {
			return metrics.InstrumentIndex(sqsmem.NewIndex(sqsmem.IndexOptions{}), m)
		})
	})
	checkObserved(t, m, "herald_sqs_index_operation_duration_seconds", `op="add"`, `op="receive"`, `op="remove"`, `op="counts"`)
}

// checkObserved checks that the histogram name has samples for each label
// selector in ops.
func checkObserved(t *testing.T, m *metrics.Metrics, name string, ops ...string) {
	t.Helper()
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, mt := range mf.GetMetric() {
			if mt.GetHistogram().GetSampleCount() == 0 {
				continue
			}
			for _, l := range mt.GetLabel() {
				text.WriteString(l.GetName() + "=\"" + l.GetValue() + "\" ")
			}
			text.WriteString("\n")
		}
	}
	if text.Len() == 0 {
		t.Fatalf("%s has no samples", name)
	}
	for _, op := range ops {
		if !strings.Contains(text.String(), op) {
			t.Errorf("%s has no samples for %s; series with samples:\n%s", name, op, text.String())
		}
	}
}
