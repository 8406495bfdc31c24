package sqsload

import (
	"cmp"
	"slices"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
)

// Tally counts every API call of a run per action. Each worker writes only
// its own slot, so recording takes no lock; Results merges the slots once
// the run is over.
type Tally struct {
	workers []workerTally
}

type workerTally struct {
	actions map[string]*actionTally
}

type actionTally struct {
	latencies  []time.Duration // of successful calls
	items      int             // messages the successful calls handled
	errors     int
	firstError string
}

// NewTally returns a tally for workers workers.
func NewTally(workers int) *Tally {
	t := &Tally{workers: make([]workerTally, workers)}
	for i := range t.workers {
		t.workers[i].actions = make(map[string]*actionTally, 4)
	}
	return t
}

// Record counts one call of action by worker: its latency and the messages
// it handled when err is nil, an error otherwise.
func (t *Tally) Record(worker int, action string, d time.Duration, items int, err error) {
	w := &t.workers[worker]
	a := w.actions[action]
	if a == nil {
		a = &actionTally{latencies: make([]time.Duration, 0, 1024)}
		w.actions[action] = a
	}
	if err != nil {
		a.errors++
		if a.firstError == "" {
			a.firstError = err.Error()
		}
		return
	}
	a.latencies = append(a.latencies, d)
	a.items += items
}

// Results returns one result per action, in the order of actionOrder and
// then by name, and one named "all" over every call. Items of "all" counts
// the messages every action handled (a message sent, received and deleted
// counts three times).
func (t *Tally) Results(elapsed time.Duration, concurrency int) (perAction []loadgen.Result, all loadgen.Result) {
	merged := map[string]*actionTally{}
	for _, w := range t.workers {
		for name, a := range w.actions {
			m := merged[name]
			if m == nil {
				m = &actionTally{}
				merged[name] = m
			}
			m.latencies = append(m.latencies, a.latencies...)
			m.items += a.items
			m.errors += a.errors
			if m.firstError == "" {
				m.firstError = a.firstError
			}
		}
	}
	names := make([]string, 0, len(merged))
	for name := range merged {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := actionRank(a) - actionRank(b); d != 0 {
			return d
		}
		return cmp.Compare(a, b)
	})
	var every []time.Duration
	all = loadgen.Result{Name: "all", Concurrency: concurrency, Elapsed: elapsed}
	for _, name := range names {
		m := merged[name]
		every = append(every, m.latencies...)
		all.Items += m.items
		all.Errors += m.errors
		if all.FirstError == "" {
			all.FirstError = m.firstError
		}
		perAction = append(perAction, loadgen.Summarize(loadgen.Result{Name: name, Concurrency: concurrency,
			Items: m.items, Errors: m.errors, FirstError: m.firstError, Elapsed: elapsed}, m.latencies))
	}
	return perAction, loadgen.Summarize(all, every)
}

// actionOrder is the order actions are reported in: a message's life.
var actionOrder = []string{ActionCreateQueue, ActionSendMessage, ActionSendMessageBatch, ActionReceiveMessage,
	ActionDeleteMessage, ActionDeleteMessageBatch, ActionDeleteQueue}

func actionRank(name string) int {
	if i := slices.Index(actionOrder, name); i >= 0 {
		return i
	}
	return len(actionOrder)
}
