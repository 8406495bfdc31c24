package filter

import "net/netip"

// node is one object of a compiled policy: every field must match, and for
// every $or group at least one alternative must match.
type node struct {
	fields []field
	ors    [][]*node
}

// field is one key of a policy object: either a leaf (a list of conditions,
// ORed) or, in the MessageBody scope, a nested object.
type field struct {
	key   string
	leaf  []cond
	child *node
}

type op uint8

const (
	opString       op = iota // exact string s
	opNumber                 // numeric equality n
	opBool                   // exact boolean b
	opNull                   // JSON null
	opPrefix                 // string starting with s
	opSuffix                 // string ending with s
	opIgnoreCase             // string equal to s ignoring case
	opRange                  // number within lo/hi
	opCIDR                   // IP address string within pfx
	opExists                 // key present (b) or absent (!b)
	opAnyBut                 // no value in strs or nums
	opAnyButPrefix           // no string value starting with s
	opAnyButSuffix           // no string value ending with s
)

// cond is one compiled condition. Numbers are canonical (see canonical).
type cond struct {
	op     op
	s      string
	n      float64
	b      bool
	lo, hi float64
	loIncl bool
	hiIncl bool
	strs   []string
	nums   []float64
	pfx    netip.Prefix
}
