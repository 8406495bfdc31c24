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
			return 0, fmt.Errorf("%q is not a whole number of days", s)
		}
		return Duration(time.Duration(n) * 24 * time.Hour), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as \"90m\", \"96h\" or \"400d\"", s)
	}
	return Duration(d), nil
}

// String writes whole days as "Nd", anything else in Go's form.
func (d Duration) String() string {
	day := 24 * time.Hour
	if td := time.Duration(d); td > 0 && td%day == 0 {
		return strconv.FormatInt(int64(td/day), 10) + "d"
	}
	return time.Duration(d).String()
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
