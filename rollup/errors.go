package rollup

import (
	"fmt"

	"github.com/heraldmq/herald"
)

// invalid is the error for a bad member of a definition, an event or a
// query: its message names the member first, as "scopes[1][0]: ...".
func invalid(member, format string, args ...any) *herald.Error {
	return herald.Errorf(herald.EInvalid, "%s: %s", member, fmt.Sprintf(format, args...))
}
