package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/load/alertload"
	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/snsload"
	"github.com/heraldmq/herald/load/sqsload"
)

// alertDevices is the size of the device fleets below: 50,000 and 30,000
// (the CI forms of `herald bench alert`, sized so that the end-to-end
// suite stays within CI's time), or HERALD_ALERT_DEVICES.
func alertDevices(t *testing.T, def int) int {
	if v := os.Getenv("HERALD_ALERT_DEVICES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 {
			t.Fatalf("HERALD_ALERT_DEVICES=%q: want a number of at least 100", v)
		}
		return n
	}
	return def
}

// TestAlertReachesEveryDeviceQueue is the CI form of `herald bench alert`:
// a fleet of device queues subscribed with filter policies on their state
// and zip code, 1% of them on WebSockets; an alert to one state, one zip
// code and the country reaches every matching queue and connected device
// once, the devices that connect afterwards get theirs, and no other
// device gets any. The state and zip alerts read only their own devices'
// subscriptions (the filter index).
func TestAlertReachesEveryDeviceQueue(t *testing.T) {
	devices := alertDevices(t, 50_000)
	srv := startServer(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := alertload.Run(ctx, alertload.Config{Server: srv.URL, Devices: devices, Connected: -1, Late: -1, Timeout: 2 * time.Minute})
	t.Logf("\n%s", r)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lost != 0 || r.Duplicates != 0 || r.Unexpected != 0 || r.OtherFrames != 0 || r.ClosedEarly != 0 {
		t.Fatalf("lost %d, duplicates %d, unexpected %d, other frames %d, connections closed %d (first: %s)",
			r.Lost, r.Duplicates, r.Unexpected, r.OtherFrames, r.ClosedEarly, r.FirstError)
	}
	if r.LateGot != r.Late || r.Late == 0 {
		t.Errorf("%d of %d late devices got all their alerts", r.LateGot, r.Late)
	}
	for _, a := range r.Alerts {
		if n := len(a.Progress); n == 0 || a.Progress[n-1].Enqueued != a.Matching {
			t.Errorf("alert %s: progress %v does not end with the %d matching queues", a.Name, a.Progress, a.Matching)
		}
		if a.EnqueuedAllS == nil || a.ConnectedGot != a.Connected {
			t.Errorf("alert %s: enqueued %v, %d of %d connected devices", a.Name, a.EnqueuedAllS, a.ConnectedGot, a.Connected)
		}
		if a.SubscriptionsRead == nil || *a.SubscriptionsRead < float64(a.Matching) {
			t.Errorf("alert %s: the server read %v subscriptions for %d matching", a.Name, a.SubscriptionsRead, a.Matching)
		} else if a.Name != "nationwide" && *a.SubscriptionsRead > 2*float64(a.Matching) {
			t.Errorf("alert %s: the server read %.0f subscriptions for %d matching devices of %d: the filter index was not used", a.Name, *a.SubscriptionsRead, a.Matching, devices)
		}
	}
	if r.Listed != devices {
		t.Errorf("ListQueues by prefix listed %d of %d queues", r.Listed, devices)
	}
}

// TestAlertFanOutSurvivesSIGKILL kills the server with SIGKILL while a
// nationwide alert is being fanned out to a fleet of device queues,
// restarts it on the same data directory, and reads every queue: each
// holds the alert (duplicates, from the chunks being delivered at the
// kill, are counted and allowed; none is lost).
func TestAlertFanOutSurvivesSIGKILL(t *testing.T) {
	devices := alertDevices(t, 30_000)
	dir := t.TempDir()
	srv := startServer(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	client := func(url string) (*snsload.Client, *sqsload.Client) {
		return snsload.NewClient(url, 64, time.Minute, "", "", ""), sqsload.NewClient(url, sqsload.Options{Connections: 64})
	}
	sns, sqs := client(srv.URL)
	topic, err := sns.CreateTopic(ctx, "alerts")
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, devices)
	var next atomic.Int64
	setup := func(op func(ctx context.Context, i int) error) {
		t.Helper()
		next.Store(0)
		r := loadgen.Run(ctx, "setup", loadgen.Config{Concurrency: 64, Requests: devices}, func(ctx context.Context, _, _ int) (int, error) {
			return 1, op(ctx, int(next.Add(1)-1))
		})
		if r.Errors > 0 {
			t.Fatalf("%d of %d setup calls failed, first: %s", r.Errors, devices, r.FirstError)
		}
	}
	setup(func(ctx context.Context, i int) error {
		names[i] = fmt.Sprintf("box-%06d", i)
		_, err := sqs.CreateQueue(ctx, names[i], nil)
		return err
	})
	first, err := sns.QueueARN(ctx, srv.URL+"/000000000000/"+names[0])
	if err != nil {
		t.Fatal(err)
	}
	arnPrefix := strings.TrimSuffix(first, names[0])
	setup(func(ctx context.Context, i int) error {
		_, err := sns.SubscribeWith(ctx, topic, "sqs", arnPrefix+names[i], map[string]string{"RawMessageDelivery": "true",
			"FilterPolicy": fmt.Sprintf(`{"$or":[{"state":["S%02d"]},{"scope":["nationwide"]}]}`, i%50)})
		return err
	})

	base, _, err := sns.Delivered(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sns.PublishWith(ctx, topic, "evacuate", map[string]string{"scope": "nationwide"}); err != nil {
		t.Fatal(err)
	}
	var atKill float64
	for {
		n, _, err := sns.Delivered(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n > base {
			atKill = n - base
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the fan-out never began")
		}
	}
	srv.kill(t)
	if atKill >= float64(devices) {
		t.Fatalf("the fan-out had delivered all %d before the kill: nothing to test", devices)
	}
	t.Logf("killed after %.0f of %d deliveries", atKill, devices)

	srv = startServer(t, dir)
	_, sqs = client(srv.URL)
	copies := make([]int, devices)
	deadline := time.Now().Add(2 * time.Minute)
	for missing := devices; missing > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d queues never got the alert after the restart", missing, devices)
		}
		setup(func(ctx context.Context, i int) error {
			if copies[i] > 0 {
				return nil
			}
			for {
				got, err := sqs.Receive(ctx, sqs.ReceiveRequest(srv.URL+"/000000000000/"+names[i], 10, 0, 900), nil)
				if err != nil || len(got) == 0 {
					return err
				}
				for _, m := range got {
					if m.Body != "evacuate" {
						return fmt.Errorf("queue %s holds %q", names[i], m.Body)
					}
				}
				copies[i] += len(got)
			}
		})
		missing = 0
		for _, c := range copies {
			if c == 0 {
				missing++
			}
		}
	}
	dups := 0
	for _, c := range copies {
		dups += c - 1
	}
	t.Logf("every one of %d queues has the alert; %d duplicates (the chunks in flight at the kill)", devices, dups)
}
