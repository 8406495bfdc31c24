package limits

import (
	"fmt"
	"sync"
	"time"

	"github.com/heraldmq/herald"
)

// Admission shares a saturated node between accounts. It counts the
// requests each account has in flight; while the node holds fewer than
// MaxInFlight in all, every request enters. Past that the node is
// saturated, and a request enters only if its account holds less than its
// fair share, MaxInFlight divided by the accounts with requests in flight:
// an account flooding the node is refused (throttled, at once and cheaply)
// while the others still get their share, and no queue of waiting
// requests grows. The total in flight stays below MaxInFlight plus one
// request per account.
type Admission struct {
	// MaxInFlight is the node's capacity in concurrent requests; 0 admits
	// everything (the default).
	MaxInFlight int

	mu       sync.Mutex
	total    int
	inFlight map[string]int
	refused  map[string]uint64 // by account, since start (bounded by refusedMax)
}

// refusedMax bounds the accounts whose refusals are counted by name.
const refusedMax = 10000

// retryAfterSaturated is what a refused request is told to wait: about the
// time a request in flight takes to leave.
const retryAfterSaturated = 50 * time.Millisecond

// Enter admits one request of account, or refuses it with a throttling
// error. An admitted request must call the returned leave when done.
func (a *Admission) Enter(account string) (leave func(), err error) {
	if a == nil || a.MaxInFlight <= 0 {
		return func() {}, nil
	}
	a.mu.Lock()
	if a.inFlight == nil {
		a.inFlight = map[string]int{}
		a.refused = map[string]uint64{}
	}
	mine := a.inFlight[account]
	if a.total >= a.MaxInFlight {
		active := len(a.inFlight)
		if mine == 0 {
			active++
		}
		if share := max(1, a.MaxInFlight/active); mine >= share {
			if _, ok := a.refused[account]; ok || len(a.refused) < refusedMax {
				a.refused[account]++
			}
			a.mu.Unlock()
			return nil, &herald.Error{
				Code:       herald.EThrottled,
				Message:    fmt.Sprintf("the node is saturated and account %s holds its share of it (%d requests in flight); retry after %s", herald.Clip(account), mine, retryAfterSaturated),
				RetryAfter: retryAfterSaturated,
			}
		}
	}
	a.inFlight[account] = mine + 1
	a.total++
	a.mu.Unlock()
	return func() { a.leave(account) }, nil
}

func (a *Admission) leave(account string) {
	a.mu.Lock()
	a.total--
	if n := a.inFlight[account] - 1; n > 0 {
		a.inFlight[account] = n
	} else {
		delete(a.inFlight, account)
	}
	a.mu.Unlock()
}

// Refused returns how many requests of each account were refused since
// start.
func (a *Admission) Refused() map[string]uint64 {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]uint64, len(a.refused))
	for k, v := range a.refused {
		out[k] = v
	}
	return out
}
