package ws

import (
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// rollupQuery serves the rollup queries of a query frame, with the same
// members as the HTTP API's parameters (docs/rollups.md): rollup, scope
// (an object of member values), unit, from, to, dimension, value, within
// (one member: the outer value of a drill-down), metrics, and for
// rollup_top order_by, n and offset. The answer is a result frame whose
// "rollup" member is the HTTP API's answer.
func (c *conn) rollupQuery(f *inFrame) error {
	svc := c.h.cfg.Rollups
	if svc == nil {
		c.sendErr(f.ID, herald.Errorf(herald.EUnavailable, "rollups are not served here"))
		return nil
	}
	if f.Rollup == "" {
		return malformed("member \"rollup\" is required for query %s", f.Query)
	}
	if len(f.Within) > 1 {
		return malformed("member \"within\" names one dimension")
	}
	sel := rollup.Selector{Scope: f.Scope, Dim: f.Dimension, Value: f.Value}
	for d, v := range f.Within {
		sel.WithinDim, sel.WithinValue = d, v
	}
	rg := rollup.Range{Unit: rollup.Unit(f.Unit)}
	if rg.Unit != rollup.All {
		var err1, err2 error
		rg.From, err1 = time.Parse(time.RFC3339Nano, f.From)
		rg.To, err2 = time.Parse(time.RFC3339Nano, f.To)
		if err1 != nil || err2 != nil {
			return malformed("members \"from\" and \"to\" are RFC 3339 times (not needed for unit all)")
		}
	}
	var answer any
	var err error
	switch f.Query {
	case "rollup_series":
		answer, err = svc.Series(c.ctx, f.Rollup, sel, rg, f.Metrics)
	case "rollup_totals":
		answer, err = svc.Totals(c.ctx, f.Rollup, sel, rg, f.Metrics)
	default:
		answer, err = svc.Top(c.ctx, f.Rollup, rollup.TopQuery{Selector: sel, Range: rg, OrderBy: f.OrderBy, N: f.N, Offset: f.Offset})
	}
	if err != nil {
		c.sendErr(f.ID, err)
		return nil
	}
	c.send(reply("result", f.ID, map[string]any{"rollup": answer}))
	return nil
}
