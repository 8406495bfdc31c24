package sns_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/sns"
)

// The filter index against a brute-force evaluation: a topic of devices
// with policies on state and zip (and some the index cannot serve), a run
// of alerts to one state, several states, a zip and the whole country,
// in small chunks so that walks page and hand over to continuations; every
// device gets exactly the alerts its policy lets through, once.

var alertStates = []string{"CA", "NY", "TX", "WA", "OR"}

// devicePolicy is the i-th device's filter policy: mostly on its state or
// its zip code (and nationwide alerts); some with no policy, some on a
// number, some by prefix.
func devicePolicy(i int) string {
	state, zip := alertStates[i%len(alertStates)], fmt.Sprintf("%05d", i%17)
	switch i % 10 {
	case 7:
		return "" // every alert
	case 8:
		return `{"severity": [{"numeric": [">=", 2]}]}`
	case 9:
		return fmt.Sprintf(`{"state": [{"prefix": %q}]}`, state[:1])
	}
	return fmt.Sprintf(`{"$or": [{"state": [%q]}, {"zip": [%q]}, {"scope": ["nationwide"]}]}`, state, zip)
}

func stateArray(states ...string) sns.MessageAttributeValue {
	text := "["
	for i, s := range states {
		if i > 0 {
			text += ","
		}
		text += fmt.Sprintf("%q", s)
	}
	return sns.MessageAttributeValue{DataType: "String.Array", StringValue: text + "]"}
}

func str(v string) sns.MessageAttributeValue {
	return sns.MessageAttributeValue{DataType: "String", StringValue: v}
}

func alertRun() []map[string]sns.MessageAttributeValue {
	return []map[string]sns.MessageAttributeValue{
		{"state": str("CA")},
		{"state": stateArray("NY", "TX"), "severity": {DataType: "Number", StringValue: "3"}},
		{"zip": str("00004"), "state": str("WA")}, // zip 00004 and state WA overlap
		{"scope": str("nationwide"), "severity": {DataType: "Number", StringValue: "1"}},
		{"state": stateArray(alertStates...), "zip": str("00001")}, // every state and a zip: one delivery each
		{"kind": str("test")},
		{},
	}
}

func testFilterIndexFanOut(t *testing.T, e *env, unindexed bool) {
	const devices = 240
	topic := e.createTopic(t, "alerts", nil)
	arn := func(i int) string { return fmt.Sprintf("dev.%d", i) }
	for i := range devices {
		var attrs map[string]string
		if p := devicePolicy(i); p != "" {
			attrs = map[string]string{"FilterPolicy": p}
		}
		e.subscribe(t, topic, "path", arn(i), attrs)
	}
	if unindexed {
		// A topic stored before the index: no mark. Its first publish
		// tests every subscription and indexes the topic meanwhile.
		recs, err := e.st.ListAccountRecords(e.ctx, "herald-sns", "filter-index", "", 100)
		if err != nil || len(recs) != 1 {
			t.Fatalf("filter-index marks = %v, %v; want the topic's", recs, err)
		}
		if err := e.st.DeleteAccountRecord(e.ctx, "herald-sns", "filter-index", recs[0].Key); err != nil {
			t.Fatal(err)
		}
		e.svc = e.newNode(t, e.cfg) // a node that never saw the mark
	}
	run(t, e.svc)
	want := map[string]int{}
	total := 0
	alerts := alertRun()
	for n, attrs := range alerts {
		e.publish(t, sns.PublishInput{TopicARN: topic, Message: fmt.Sprint("alert ", n), MessageAttributes: attrs})
		for i := range devices {
			m, err := sns.FilterPolicies(devicePolicy(i), sns.ScopeMessageAttributes)
			if devicePolicy(i) == "" || err == nil && m.Match(attrs, "") {
				want[arn(i)]++
				total++
			}
		}
	}
	eventually(t, 20*time.Second, fmt.Sprintf("%d deliveries", total), func() bool { return e.svc.Stats().Delivered.Load() >= int64(total) })
	for i := range devices {
		if got := len(e.paths.get(arn(i))); got != want[arn(i)] {
			t.Errorf("device %d (policy %s) got %d alerts, want %d", i, devicePolicy(i), got, want[arn(i)])
		}
	}
	tested := e.svc.Stats().Tested.Load()
	t.Logf("%d deliveries; %d subscriptions read for %d publishes to %d devices", total, tested, len(alerts), devices)
	if !unindexed && tested >= int64(len(alerts)*devices) {
		t.Errorf("the fan-outs read %d subscriptions, no fewer than all of them for every publish (%d)", tested, len(alerts)*devices)
	}
}

func TestFilterIndexFanOutEqualsABruteForce(t *testing.T) {
	for _, engine := range []string{"memory", "pebble"} {
		t.Run(engine, func(t *testing.T) {
			var st sns.Store
			if engine == "pebble" {
				db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				st = db.Topics()
			}
			e := newEnvOn(t, st, func(c *sns.Config) { c.ChunkSize = 7 })
			testFilterIndexFanOut(t, e, false)
		})
	}
}

func TestFilterIndexBuiltForATopicStoredBeforeIt(t *testing.T) {
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := newEnvOn(t, db.Topics(), func(c *sns.Config) { c.ChunkSize = 7 })
	testFilterIndexFanOut(t, e, true)
	// The topic is indexed and marked; the next publish walks the index.
	eventually(t, 10*time.Second, "the topic's mark", func() bool {
		recs, err := e.st.ListAccountRecords(e.ctx, "herald-sns", "filter-index", "", 10)
		return err == nil && len(recs) == 1
	})
}
