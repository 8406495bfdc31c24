package wsauth

import "github.com/heraldmq/herald/access"

// Grants is what a token allows (see package access).
type Grants = access.Grants

// AllowAll returns Grants that allow everything, for anonymous access in
// development.
func AllowAll() Grants { return access.AllowAll() }
