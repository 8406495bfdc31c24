package filter

import (
	"net/netip"
	"strings"
)

// matchValues reports whether the values of one key (none when the key is
// absent) satisfy at least one of conds.
func matchValues(conds []cond, vals []value) bool {
	for i := range conds {
		if conds[i].matchAll(vals) {
			return true
		}
	}
	return false
}

func (c *cond) matchAll(vals []value) bool {
	switch c.op {
	case opExists:
		return c.b == present(vals)
	case opAnyBut, opAnyButPrefix, opAnyButSuffix:
		if len(vals) == 0 {
			return false
		}
		for i := range vals {
			if c.excludes(&vals[i]) {
				return false
			}
		}
		return true
	}
	for i := range vals {
		if c.matchOne(&vals[i]) {
			return true
		}
	}
	return false
}

// present reports whether a key has a value for exists: a null or an empty
// array does not count.
func present(vals []value) bool {
	for i := range vals {
		if vals[i].kind != kNull {
			return true
		}
	}
	return false
}

// matchOne applies a positive condition to one value.
func (c *cond) matchOne(v *value) bool {
	switch c.op {
	case opString:
		return v.kind == kString && v.s == c.s
	case opNumber:
		return v.kind == kNumber && v.n == c.n
	case opBool:
		return v.kind == kBool && v.b == c.b
	case opNull:
		return v.kind == kNull
	case opPrefix:
		return v.kind == kString && strings.HasPrefix(v.s, c.s)
	case opSuffix:
		return v.kind == kString && strings.HasSuffix(v.s, c.s)
	case opIgnoreCase:
		return v.kind == kString && strings.EqualFold(v.s, c.s)
	case opRange:
		if v.kind != kNumber {
			return false
		}
		aboveLo := v.n > c.lo || (c.loIncl && v.n == c.lo)
		belowHi := v.n < c.hi || (c.hiIncl && v.n == c.hi)
		return aboveLo && belowHi
	case opCIDR:
		if v.kind != kString {
			return false
		}
		addr, err := netip.ParseAddr(v.s)
		if err != nil {
			return false
		}
		if c.pfx.Addr().Is4() {
			addr = addr.Unmap()
		}
		return c.pfx.Contains(addr)
	}
	return false
}

// excludes reports whether an anything-but condition rules a value out.
// Prefix and suffix forms apply to strings only, so they rule out every
// other kind of value.
func (c *cond) excludes(v *value) bool {
	switch c.op {
	case opAnyBut:
		switch v.kind {
		case kString:
			for _, s := range c.strs {
				if s == v.s {
					return true
				}
			}
		case kNumber:
			for _, n := range c.nums {
				if n == v.n {
					return true
				}
			}
		}
		return false
	case opAnyButPrefix:
		return v.kind != kString || strings.HasPrefix(v.s, c.s)
	case opAnyButSuffix:
		return v.kind != kString || strings.HasSuffix(v.s, c.s)
	}
	return false
}
