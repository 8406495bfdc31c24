package rollup

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration written in JSON as a string: Go's form
// ("90m", "96h") or a whole number of days ("400d").
type Duration time.Duration

// ParseDuration reads "400d" or any time.ParseDuration string.
func ParseDuration(s string) (Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 32)
		if err != nil || n < 0 {
			return 0, &durationError{value: s, want: "a whole number of days"}
		}
		return Duration(time.Duration(n) * 24 * time.Hour), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, &durationError{value: s, want: `a duration such as "90m", "96h" or "400d"`}
	}
	return Duration(d), nil
}

// durationError is a string that is no Duration. Decoding a definition
// names the member that holds it (decodeStrict).
type durationError struct{ value, want string }

func (e *durationError) Error() string { return fmt.Sprintf("%q is not %s", e.value, e.want) }

// String writes whole days as "Nd" and anything else in Go's form
// without its zero parts ("5m", "1h30m", "90s"), so that a duration
// reads back as it was written.
func (d Duration) String() string {
	td := time.Duration(d)
	day := 24 * time.Hour
	if td > 0 && td%day == 0 {
		return strconv.FormatInt(int64(td/day), 10) + "d"
	}
	s := td.String()
	if td%time.Minute == 0 {
		s = strings.TrimSuffix(s, "0s")
		if td%time.Hour == 0 {
			s = strings.TrimSuffix(s, "0m")
		}
	}
	return s
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"96h\" or \"400d\"")
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}
