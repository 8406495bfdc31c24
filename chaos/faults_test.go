package chaos

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestScheduleOrder(t *testing.T) {
	kinds := []FaultKind{HeraldKill, RedisCut}
	for _, tc := range []struct {
		name  string
		s     schedule
		total int
		first []FaultKind // the first faults, in order
	}{
		{"no faults", schedule{rounds: 3}, 0, nil},
		{"one round", schedule{kinds: kinds, rounds: 1}, 2, []FaultKind{HeraldKill, RedisCut}},
		{"two rounds", schedule{kinds: kinds, rounds: 2}, 4, []FaultKind{HeraldKill, RedisCut, HeraldKill, RedisCut}},
		{"a kind repeated", schedule{kinds: []FaultKind{HeraldKill, HeraldKill}, rounds: 1}, 2, []FaultKind{HeraldKill, HeraldKill}},
		{"until the load ends", schedule{kinds: kinds}, -1, []FaultKind{HeraldKill, RedisCut, HeraldKill, RedisCut, HeraldKill}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.total(); got != tc.total {
				t.Errorf("total() = %d, want %d", got, tc.total)
			}
			var got []FaultKind
			for i := 0; i < len(tc.first); i++ {
				k, ok := tc.s.at(i)
				if !ok {
					t.Fatalf("at(%d): no fault", i)
				}
				got = append(got, k)
			}
			if !slices.Equal(got, tc.first) {
				t.Errorf("faults %v, want %v", got, tc.first)
			}
			if tc.total >= 0 {
				if k, ok := tc.s.at(tc.total); ok {
					t.Errorf("at(%d) = %s past the end", tc.total, k)
				}
			}
		})
	}
}

func TestParseFaults(t *testing.T) {
	for _, tc := range []struct {
		text    string
		want    []FaultKind
		wantErr bool
	}{
		{"", nil, false},
		{"herald-kill", []FaultKind{HeraldKill}, false},
		{" herald-kill , redis-cut,herald-kill", []FaultKind{HeraldKill, RedisCut, HeraldKill}, false},
		{"cassandra-restart", []FaultKind{CassandraRestart}, false},
		{"herald-kil", nil, true},
	} {
		got, err := ParseFaults(tc.text)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("ParseFaults(%q) = %v, %v; want %v (error: %v)", tc.text, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestDefaultFaults(t *testing.T) {
	for _, tc := range []struct {
		store string
		want  []FaultKind
	}{
		{StoreEmbedded, []FaultKind{HeraldKill, AMQPCut}},
		{StoreCassandra, []FaultKind{HeraldKill, RedisRestart, RedisCut, CassandraCut, AMQPCut}},
	} {
		got := DefaultFaults(tc.store)
		if !slices.Equal(got, tc.want) {
			t.Errorf("DefaultFaults(%s) = %v, want %v", tc.store, got, tc.want)
		}
		for _, k := range got {
			if k == CassandraRestart || k == RabbitMQRestart {
				t.Errorf("DefaultFaults(%s) holds %s, which disturbs the shared services", tc.store, k)
			}
		}
	}
	if err := checkFaults([]FaultKind{RedisCut}, StoreEmbedded); err == nil {
		t.Error("checkFaults accepted redis-cut on the embedded store")
	}
}

func TestForScenario(t *testing.T) {
	all := []FaultKind{HeraldKill, RedisRestart, RedisCut, CassandraCut, AMQPCut}
	for _, tc := range []struct {
		name           string
		u              uses
		apply, skipped []FaultKind
	}{
		{"sqs", uses{sqs: true}, []FaultKind{HeraldKill, RedisRestart, RedisCut, CassandraCut}, []FaultKind{AMQPCut}},
		{"cache", uses{}, []FaultKind{HeraldKill, CassandraCut}, []FaultKind{RedisRestart, RedisCut, AMQPCut}},
		{"amqp", uses{amqp: true}, []FaultKind{HeraldKill, CassandraCut, AMQPCut}, []FaultKind{RedisRestart, RedisCut}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apply, skipped := forScenario(all, StoreCassandra, tc.u)
			if !slices.Equal(apply, tc.apply) || !slices.Equal(skipped, tc.skipped) {
				t.Errorf("forScenario = %v, %v; want %v, %v", apply, skipped, tc.apply, tc.skipped)
			}
		})
	}
}

// fakeInjector records the faults it is asked for; kinds in fail fail.
type fakeInjector struct {
	mu     sync.Mutex
	kinds  []FaultKind
	fail   FaultKind
	tally  *tally
	window []string // the window current while each fault ran
}

func (f *fakeInjector) inject(ctx context.Context, k FaultKind) (time.Time, error) {
	f.mu.Lock()
	f.kinds = append(f.kinds, k)
	f.window = append(f.window, f.tally.current.Load().name)
	f.mu.Unlock()
	time.Sleep(5 * time.Millisecond)
	if k == f.fail {
		return time.Now(), errors.New("injected failure")
	}
	return time.Now(), nil
}

func (f *fakeInjector) healthy(context.Context) bool { return true }

func TestFaultRunnerRunsTheSchedule(t *testing.T) {
	tl := newTally(1)
	inj := &fakeInjector{tally: tl, fail: RedisCut}
	// Faults 200 ms apart: each kill's recovery is seen when the load below
	// acknowledges once before the next fault, which a machine busy with
	// other tests still does (10 ms apart, CI once saw none).
	r := newFaultRunner(schedule{kinds: []FaultKind{HeraldKill, RedisCut}, every: 200 * time.Millisecond, rounds: 2},
		inj, tl, time.Millisecond, 2*time.Second, func(string, ...any) {})
	r.start = time.Now()
	// A load that acknowledges and delivers all the time, so every fault
	// is seen to recover.
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			id := newID()
			tl.sentMsg(id)
			tl.ack(id, time.Now())
			tl.deliver(id, 0, time.Now())
			time.Sleep(time.Millisecond)
		}
	}()
	go r.run(context.Background())
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the runner did not finish its two rounds")
	}
	recs := r.finish()
	want := []FaultKind{HeraldKill, RedisCut, HeraldKill, RedisCut}
	if !slices.Equal(inj.kinds, want) {
		t.Fatalf("injected %v, want %v", inj.kinds, want)
	}
	if !reflect.DeepEqual(inj.window, []string{"herald-kill", "redis-cut", "herald-kill", "redis-cut"}) {
		t.Errorf("windows during the faults: %v", inj.window)
	}
	for i, rec := range recs {
		switch {
		case rec.Kind == RedisCut && rec.Error == "":
			t.Errorf("fault %d: the failed injection has no error", i)
		case rec.Kind == HeraldKill && (rec.AckRecovery < 0 || rec.RecvRecovery < 0 || rec.HealthRecovery < 0):
			t.Errorf("fault %d: recovery not measured: %+v", i, rec)
		}
	}
	if st := summarise(recs)[HeraldKill]; st.Faults != 2 || st.Ack.Missing != 0 {
		t.Errorf("summary of herald-kill: %+v", st)
	}
	if _, ok := summarise(recs)[RedisCut]; ok {
		t.Error("failed injections are summarised as recoveries")
	}
	if tl.current.Load() != tl.steady {
		t.Errorf("after the schedule the window is %q, want steady", tl.current.Load().name)
	}
}

func TestFaultRunnerStopsBetweenFaults(t *testing.T) {
	tl := newTally(1)
	inj := &fakeInjector{tally: tl}
	r := newFaultRunner(schedule{kinds: []FaultKind{HeraldKill}, every: time.Hour}, inj, tl, time.Second, time.Millisecond, func(string, ...any) {})
	go r.run(context.Background())
	done := make(chan []faultRecord)
	go func() { done <- r.finish() }()
	select {
	case recs := <-done:
		if len(recs) != 0 || len(inj.kinds) != 0 {
			t.Errorf("stopped before the first fault, yet %d faults ran", len(recs))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("finish did not stop a runner waiting for its next fault")
	}
}

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want spread
	}{
		{nil, spread{}},
		{[]float64{-1}, spread{Missing: 1}},
		{[]float64{3, 1, 2}, spread{Min: 1, Median: 2, Max: 3}},
		{[]float64{4, 1, -1, 2, 3}, spread{Min: 1, Median: 2.5, Max: 4, Missing: 1}},
	} {
		if got := spreadOf(tc.in); got != tc.want {
			t.Errorf("spreadOf(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
