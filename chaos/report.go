package chaos

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the outcome of a drill: one ScenarioReport per scenario run.
type Report struct {
	Started    time.Time        `json:"started"`
	Store      string           `json:"store"`
	Keyspace   string           `json:"keyspace,omitempty"`
	Faults     []FaultKind      `json:"faults"` // the kinds asked for (each scenario runs those that apply to it)
	FaultEvery float64          `json:"fault_every_seconds"`
	Machine    string           `json:"machine"`
	Scenarios  []ScenarioReport `json:"scenarios"`
	WorkDir    string           `json:"work_dir,omitempty"` // kept (with Herald's logs) when the drill failed
	Notes      []string         `json:"notes,omitempty"`
}

// ScenarioReport is the outcome of one scenario.
type ScenarioReport struct {
	Scenario    string `json:"scenario"`
	Subscribers int    `json:"subscribers"` // deliveries each message owes (SNS fan-out); counts are per (message, subscriber)
	Error       string `json:"error,omitempty"`
	counts
	LoadSeconds    float64 `json:"load_seconds"`
	Rate           float64 `json:"acknowledged_per_second"` // during the load
	DrainSeconds   float64 `json:"drain_seconds"`
	Rechecked      bool    `json:"rechecked"` // Herald was restarted (on an empty Redis) to tell stranded from lost
	RecheckSeconds float64 `json:"recheck_seconds,omitempty"`

	// Windows holds deliveries and duplicates per window: "steady",
	// each fault kind (from the fault's start until a visibility timeout
	// and 2 s after its end), "drain" and "recheck".
	Windows    map[string]dupStats         `json:"duplicate_windows"`
	Faults     []faultRecord               `json:"faults"`
	Recovery   map[FaultKind]recoveryStats `json:"recovery"`
	Skipped    []FaultKind                 `json:"skipped_faults,omitempty"` // asked for, not applicable to this scenario
	Errors     map[string]errorCount       `json:"errors,omitempty"`         // failed calls by operation
	Extra      map[string]int64            `json:"extra,omitempty"`          // scenario-specific figures (reordered FIFO deliveries, ...)
	HeraldLog  string                      `json:"herald_log,omitempty"`
	Notes      []string                    `json:"notes,omitempty"`
	extraOrder []string                    // Extra's keys in the order they were added
}

// dupStats counts deliveries and duplicates within one window.
type dupStats struct {
	Deliveries int64 `json:"deliveries"`
	Duplicates int64 `json:"duplicates"`
}

// rate is the share of duplicates among the window's deliveries.
func (d dupStats) rate() float64 {
	if d.Deliveries == 0 {
		return 0
	}
	return float64(d.Duplicates) / float64(d.Deliveries)
}

// errorCount counts the failed calls of one operation.
type errorCount struct {
	Count int64  `json:"count"`
	First string `json:"first"`
}

// faultRecord is one injected fault.
type faultRecord struct {
	Kind         FaultKind `json:"kind"`
	AtSeconds    float64   `json:"at_seconds"` // since the load started
	Seconds      float64   `json:"seconds"`    // from the fault's start to its end (heal, restart)
	Error        string    `json:"error,omitempty"`
	AckRecovery  float64   `json:"ack_recovery_seconds"`     // from the end to the first acknowledged operation started after it; -1: none seen
	RecvRecovery float64   `json:"receive_recovery_seconds"` // ... to the first delivery; -1: none seen
	// HealthRecovery is from the end to the first /healthz that reports
	// every component ok (on Cassandra: Redis no longer degraded); -1:
	// never within two minutes.
	HealthRecovery float64 `json:"health_recovery_seconds"`
	probe          *probe
}

// spread is the minimum, median and maximum of some durations, in
// seconds; Missing counts faults after which none was observed.
type spread struct {
	Min     float64 `json:"min"`
	Median  float64 `json:"median"`
	Max     float64 `json:"max"`
	Missing int     `json:"missing,omitempty"`
}

// recoveryStats summarises the recoveries after the faults of one kind.
type recoveryStats struct {
	Faults  int    `json:"faults"`
	Ack     spread `json:"ack"`
	Receive spread `json:"receive"`
	Health  spread `json:"health"`
}

// spreadOf summarises ds; a negative duration is a recovery not observed.
func spreadOf(ds []float64) spread {
	var s spread
	var seen []float64
	for _, d := range ds {
		if d < 0 {
			s.Missing++
			continue
		}
		seen = append(seen, d)
	}
	if len(seen) == 0 {
		return s
	}
	sort.Float64s(seen)
	s.Min, s.Max = seen[0], seen[len(seen)-1]
	if n := len(seen); n%2 == 1 {
		s.Median = seen[n/2]
	} else {
		s.Median = (seen[n/2-1] + seen[n/2]) / 2
	}
	return s
}

// summarise groups the fault records by kind.
func summarise(faults []faultRecord) map[FaultKind]recoveryStats {
	acks, recvs, health := map[FaultKind][]float64{}, map[FaultKind][]float64{}, map[FaultKind][]float64{}
	for _, f := range faults {
		if f.Error != "" {
			continue
		}
		acks[f.Kind] = append(acks[f.Kind], f.AckRecovery)
		recvs[f.Kind] = append(recvs[f.Kind], f.RecvRecovery)
		health[f.Kind] = append(health[f.Kind], f.HealthRecovery)
	}
	out := map[FaultKind]recoveryStats{}
	for k := range acks {
		out[k] = recoveryStats{Faults: len(acks[k]), Ack: spreadOf(acks[k]), Receive: spreadOf(recvs[k]), Health: spreadOf(health[k])}
	}
	return out
}

// Failed reports whether the scenario lost, stranded or corrupted
// anything acknowledged, or could not run to its end.
func (s *ScenarioReport) Failed() bool {
	return s.Error != "" || s.Lost > 0 || s.Stranded > 0 || s.Corrupt > 0 || s.faultErrors() > 0
}

func (s *ScenarioReport) faultErrors() int {
	n := 0
	for _, f := range s.Faults {
		if f.Error != "" {
			n++
		}
	}
	return n
}

// Failed reports whether any scenario failed.
func (r *Report) Failed() bool {
	for i := range r.Scenarios {
		if r.Scenarios[i].Failed() {
			return true
		}
	}
	return false
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people: one line per scenario, then
// each scenario's duplicates, faults and recovery times.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "herald chaos: store %s", r.Store)
	if r.Keyspace != "" {
		fmt.Fprintf(w, " (keyspace %s)", r.Keyspace)
	}
	kinds := make([]string, len(r.Faults))
	for i, k := range r.Faults {
		kinds[i] = string(k)
	}
	fmt.Fprintf(w, ", faults %s every %s, %s\n\n", orNone(strings.Join(kinds, ",")), seconds(r.FaultEvery), r.Machine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tsent\tacknowledged\treceived\tlost\tstranded\tduplicates\tcorrupt\tmsgs/s\tload\tresult\t")
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		result := "ok"
		if s.Failed() {
			result = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f\t%s\t%s\t\n", s.Scenario, s.Sent, s.Acknowledged, s.Received,
			s.Lost, s.Stranded, s.Duplicates, s.Corrupt, s.Rate, seconds(s.LoadSeconds), result)
	}
	tw.Flush()
	for i := range r.Scenarios {
		fmt.Fprintln(w)
		r.Scenarios[i].writeDetails(w)
	}
	if r.WorkDir != "" {
		fmt.Fprintf(w, "\nHerald's logs and data are kept in %s\n", r.WorkDir)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func (s *ScenarioReport) writeDetails(w io.Writer) {
	fmt.Fprintf(w, "%s:", s.Scenario)
	if s.Subscribers > 1 {
		fmt.Fprintf(w, " (counts per message and subscriber, %d subscribers)", s.Subscribers)
	}
	fmt.Fprintln(w)
	if s.Error != "" {
		fmt.Fprintf(w, "  ERROR: %s\n", s.Error)
	}
	fmt.Fprintf(w, "  load %s, drain %s", seconds(s.LoadSeconds), seconds(s.DrainSeconds))
	if s.Rechecked {
		fmt.Fprintf(w, ", recheck after a restart of Herald %s", seconds(s.RecheckSeconds))
	}
	fmt.Fprintf(w, "; received without an acknowledged send: %d\n", s.ReceivedUnacked)
	fmt.Fprintf(w, "  duplicates: %s\n", s.duplicateLine())
	if len(s.Faults) == 0 {
		fmt.Fprintln(w, "  faults: none")
	}
	for _, f := range s.Faults {
		fmt.Fprintf(w, "  fault %-17s at %7s, lasted %6s", f.Kind, seconds(f.AtSeconds), seconds(f.Seconds))
		if f.Error != "" {
			fmt.Fprintf(w, "  FAILED: %s\n", f.Error)
			continue
		}
		fmt.Fprintf(w, "  recovered: ack %s, receive %s, healthy %s\n", recovered(f.AckRecovery), recovered(f.RecvRecovery), recovered(f.HealthRecovery))
	}
	if len(s.Recovery) > 0 {
		fmt.Fprintln(w, "  recovery after the fault ended, min/median/max (first acknowledged send, first delivery, /healthz all ok):")
		for _, k := range slices.Sorted(maps.Keys(s.Recovery)) {
			st := s.Recovery[k]
			fmt.Fprintf(w, "    %-17s ×%d  ack %s  receive %s  healthy %s\n", k, st.Faults, st.Ack, st.Receive, st.Health)
		}
	}
	if len(s.Skipped) > 0 {
		fmt.Fprintf(w, "  not applicable here: %v\n", s.Skipped)
	}
	for _, op := range slices.Sorted(maps.Keys(s.Errors)) {
		e := s.Errors[op]
		fmt.Fprintf(w, "  %s errors: %d (first: %s)\n", op, e.Count, e.First)
	}
	for _, k := range s.extraKeys() {
		fmt.Fprintf(w, "  %s: %d\n", k, s.Extra[k])
	}
	if s.Lost > 0 {
		fmt.Fprintf(w, "  LOST (acknowledged, never delivered): %d, e.g. %s\n", s.Lost, strings.Join(s.LostIDs, " "))
	}
	if s.Stranded > 0 {
		fmt.Fprintf(w, "  STRANDED (delivered only after a restart): %d, e.g. %s\n", s.Stranded, strings.Join(s.StrandedIDs, " "))
	}
	if s.Corrupt > 0 {
		fmt.Fprintf(w, "  CORRUPT: %d, e.g. %s\n", s.Corrupt, strings.Join(s.CorruptSample, "; "))
	}
	if s.Unsettled > 0 {
		fmt.Fprintf(w, "  unsettled (acknowledged, not delivered when the drill was interrupted): %d\n", s.Unsettled)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if s.HeraldLog != "" && s.Failed() {
		fmt.Fprintf(w, "  Herald's log: %s\n", s.HeraldLog)
	}
}

// duplicateLine lists the duplicate rate of each window: steady first,
// then the fault kinds, then drain and recheck.
func (s *ScenarioReport) duplicateLine() string {
	order := func(name string) int {
		switch name {
		case "steady":
			return 0
		case "drain":
			return 2
		case "recheck":
			return 3
		}
		return 1
	}
	names := slices.Sorted(maps.Keys(s.Windows))
	sort.SliceStable(names, func(i, j int) bool { return order(names[i]) < order(names[j]) })
	var parts []string
	for _, name := range names {
		d := s.Windows[name]
		if d.Deliveries == 0 && name != "steady" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d of %d (%.3f%%)", name, d.Duplicates, d.Deliveries, 100*d.rate()))
	}
	return strings.Join(parts, "; ")
}

func (s *ScenarioReport) setExtra(name string, v int64) {
	if s.Extra == nil {
		s.Extra = map[string]int64{}
	}
	if _, ok := s.Extra[name]; !ok {
		s.extraOrder = append(s.extraOrder, name)
	}
	s.Extra[name] = v
}

func (s *ScenarioReport) extraKeys() []string {
	if len(s.extraOrder) == len(s.Extra) {
		return s.extraOrder
	}
	return slices.Sorted(maps.Keys(s.Extra))
}

func (sp spread) String() string {
	if sp.Missing > 0 && sp.Max == 0 {
		return fmt.Sprintf("none seen (%d)", sp.Missing)
	}
	s := fmt.Sprintf("%s/%s/%s", seconds(sp.Min), seconds(sp.Median), seconds(sp.Max))
	if sp.Missing > 0 {
		s += fmt.Sprintf(" (%d not seen)", sp.Missing)
	}
	return s
}

func recovered(d float64) string {
	if d < 0 {
		return "not seen"
	}
	return seconds(d)
}

func seconds(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0fs", s)
	case s >= 10:
		return fmt.Sprintf("%.1fs", s)
	}
	return fmt.Sprintf("%.2fs", s)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
