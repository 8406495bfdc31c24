package limits

import (
	"fmt"
	"sync"

	"github.com/heraldmq/herald"
)

// OverQuota is the refusal of something account may not hold more of.
func OverQuota(account, name string, n int) error {
	return &herald.Error{Code: herald.EOverQuota, Message: fmt.Sprintf("account %s holds its quota of %d %s", herald.Clip(account), n, name)}
}

// Holdings counts what accounts hold open on this node (WebSockets), for
// a quota the node checks alone.
type Holdings struct {
	mu sync.Mutex
	n  map[string]int
}

// Take holds one more for account if it holds fewer than quota (quota < 0:
// no bound), and returns the release; or refuses with OverQuota.
func (h *Holdings) Take(account, name string, quota int) (release func(), err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == nil {
		h.n = map[string]int{}
	}
	if quota >= 0 && h.n[account] >= quota {
		return nil, OverQuota(account, name, quota)
	}
	h.n[account]++
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			if h.n[account]--; h.n[account] <= 0 {
				delete(h.n, account)
			}
			h.mu.Unlock()
		})
	}, nil
}
