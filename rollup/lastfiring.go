package rollup

import (
	"cmp"
	"slices"
	"time"
)

// LastFiring is a trigger's most recent firing and what became of its
// notification: what the API shows as the trigger's last_firing. Stores
// keep one per trigger (Store.LastFirings).
type LastFiring struct {
	FiringID string    `json:"firing_id"`
	Scope    []string  `json:"scope"`  // the row's scope values
	Bucket   time.Time `json:"bucket"` // the bucket crossed; with a window, its last bucket
	Total    int64     `json:"total"`  // the value that crossed the threshold (with a window, the window's sum)
	At       time.Time `json:"at"`     // when the crossing was committed
	// Published is true once SNS took the notification, at PublishedAt.
	Published   bool      `json:"published"`
	PublishedAt time.Time `json:"published_at,omitzero"`
	// Error is why the last attempt to publish it failed, at ErrorAt,
	// while it is retried (cleared once published).
	Error   string    `json:"error,omitempty"`
	ErrorAt time.Time `json:"error_at,omitzero"`
}

// Last returns the record of f as its trigger's last firing, not yet
// published.
func (f Firing) Last() LastFiring {
	return LastFiring{FiringID: f.ID, Scope: f.Scope, Bucket: f.Bucket, Total: f.Total, At: f.At}
}

// SetPublished records that firing id was published at at, if l is that
// firing; it reports whether l changed.
func (l *LastFiring) SetPublished(id string, at time.Time) bool {
	if l.FiringID != id || l.Published {
		return false
	}
	l.Published, l.PublishedAt, l.Error, l.ErrorAt = true, at.UTC(), "", time.Time{}
	return true
}

// SetFailed records that publishing firing id failed at at for reason,
// if l is that firing and it was not published (by another attempt); it
// reports whether l changed.
func (l *LastFiring) SetFailed(id string, at time.Time, reason string) bool {
	if l.FiringID != id || l.Published {
		return false
	}
	l.Error, l.ErrorAt = reason, at.UTC()
	return true
}

// LastOfEach returns, of the firings of one commit, the last of each
// trigger: the one of the latest bucket (the greatest ID among equals, so
// that every engine and every replay picks the same).
func LastOfEach(firings []Firing) []Firing {
	last := map[string]int{}
	for i, f := range firings {
		j, ok := last[f.Trigger]
		if !ok || cmp.Or(f.Bucket.Compare(firings[j].Bucket), cmp.Compare(f.ID, firings[j].ID)) > 0 {
			last[f.Trigger] = i
		}
	}
	out := make([]Firing, 0, len(last))
	for _, i := range last {
		out = append(out, firings[i])
	}
	slices.SortFunc(out, func(a, b Firing) int { return cmp.Compare(a.Trigger, b.Trigger) })
	return out
}

// HasTrigger reports whether d has a trigger of that ID.
func (d *Definition) HasTrigger(id string) bool {
	return slices.ContainsFunc(d.Triggers, func(t Trigger) bool { return t.ID == id })
}
