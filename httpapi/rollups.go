package httpapi

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/rollup"
)

// Limits on rollup request bodies.
const (
	maxRollupDefinitionBytes = 64 << 10
	maxRollupEventsBytes     = 4 << 20
)

// SetRollups serves the rollup API (docs/rollups.md) over svc.
func (s *Server) SetRollups(svc *rollup.Service) {
	s.rollups = svc
	s.route("/v1/rollups", methods{http.MethodGet: s.listRollups})
	s.route("/v1/rollups/{name}", methods{http.MethodPut: s.putRollup, http.MethodGet: s.getRollup, http.MethodDelete: s.deleteRollup})
	s.route("/v1/rollups/{name}/events", methods{http.MethodPost: s.postRollupEvents})
	s.route("/v1/rollups/{name}/backfill", methods{http.MethodPost: s.postRollupBackfill})
	s.route("/v1/rollups/{name}/series", methods{http.MethodGet: s.rollupSeries})
	s.route("/v1/rollups/{name}/totals", methods{http.MethodGet: s.rollupTotals})
	s.route("/v1/rollups/{name}/top", methods{http.MethodGet: s.rollupTop})
	s.route("/v1/rollups/{name}/triggers/{id}", methods{http.MethodPut: s.putTrigger, http.MethodDelete: s.deleteTrigger})
}

// readBody reads a request body of at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

func (s *Server) putRollup(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxRollupDefinitionBytes)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	d, created, err := s.rollups.Put(r.Context(), r.PathValue("name"), body)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.writeRollup(w, r, status, d)
}

// writeRollup answers definition d with the last firing of each of its
// triggers (rollup.View).
func (s *Server) writeRollup(w http.ResponseWriter, r *http.Request, status int, d *rollup.Definition) {
	v, err := s.rollups.View(r.Context(), d)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, status, v)
}

func (s *Server) putTrigger(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxRollupDefinitionBytes)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	t, err := rollup.DecodeTrigger(body)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	switch id := r.PathValue("id"); {
	case t.ID == "":
		t.ID = id
	case t.ID != id:
		writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "id: %q differs from the trigger's id in the path", herald.Clip(t.ID)))
		return
	}
	d, err := s.rollups.PutTrigger(r.Context(), r.PathValue("name"), t)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.writeRollup(w, r, http.StatusOK, d)
}

func (s *Server) deleteTrigger(w http.ResponseWriter, r *http.Request) {
	if err := s.rollups.DeleteTrigger(r.Context(), r.PathValue("name"), r.PathValue("id")); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getRollup(w http.ResponseWriter, r *http.Request) {
	d, err := s.rollups.Get(r.Context(), r.PathValue("name"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.writeRollup(w, r, http.StatusOK, d)
}

func (s *Server) deleteRollup(w http.ResponseWriter, r *http.Request) {
	if err := s.rollups.Delete(r.Context(), r.PathValue("name")); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// rollupList is the answer of GET /v1/rollups.
type rollupList struct {
	Rollups []*rollup.View `json:"rollups"`
	Next    string         `json:"next,omitempty"` // pass as after for the next page
}

func (s *Server) listRollups(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "limit: %q is not a number", herald.Clip(v)))
			return
		}
		limit = n
	}
	list, err := s.rollups.List(r.Context(), q.Get("after"), limit)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	views, err := s.rollups.Views(r.Context(), list)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := rollupList{Rollups: views}
	if len(list) == limit {
		out.Next = list[len(list)-1].Name
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) postRollupEvents(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxRollupEventsBytes)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	res, err := s.rollups.Ingest(r.Context(), r.PathValue("name"), body)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) postRollupBackfill(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxRollupDefinitionBytes)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	req, err := rollup.DecodeBackfill(body)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	res, err := s.rollups.Backfill(r.Context(), r.PathValue("name"), req.From, req.To, req.Start)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// rollupQuery reads the parameters every rollup query shares:
// scope.MEMBER=value (one per member of a scope), dimension, value,
// within.MEMBER=value (the outer value of a drill-down), unit, from, to
// (RFC 3339; not for unit=all) and metrics (comma-separated).
func rollupQuery(q url.Values) (rollup.Selector, rollup.Range, []string, error) {
	sel := rollup.Selector{Scope: map[string]string{}, Dim: q.Get("dimension"), Value: q.Get("value")}
	for k, vs := range q {
		switch {
		case strings.HasPrefix(k, "scope."):
			sel.Scope[strings.TrimPrefix(k, "scope.")] = vs[0]
		case strings.HasPrefix(k, "within."):
			if sel.WithinDim != "" {
				return sel, rollup.Range{}, nil, herald.Errorf(herald.EInvalid, "within: one within.DIMENSION at most")
			}
			sel.WithinDim, sel.WithinValue = strings.TrimPrefix(k, "within."), vs[0]
		}
	}
	if len(sel.Scope) == 0 {
		return sel, rollup.Range{}, nil, herald.Errorf(herald.EInvalid, "scope: name the scope's values as scope.MEMBER=value, such as scope.channel=c1")
	}
	rg := rollup.Range{Unit: rollup.Unit(q.Get("unit"))}
	if rg.Unit == "" {
		return sel, rg, nil, herald.Errorf(herald.EInvalid, "unit: one of the rollup's periods, such as unit=day")
	}
	if rg.Unit != rollup.All {
		for _, p := range []struct {
			name string
			dst  *time.Time
		}{{"from", &rg.From}, {"to", &rg.To}} {
			v := q.Get(p.name)
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return sel, rg, nil, herald.Errorf(herald.EInvalid, "%s: %q is not an RFC 3339 time", p.name, herald.Clip(v))
			}
			*p.dst = t
		}
	}
	var metrics []string
	if v := q.Get("metrics"); v != "" {
		metrics = strings.Split(v, ",")
	}
	return sel, rg, metrics, nil
}

func (s *Server) rollupSeries(w http.ResponseWriter, r *http.Request) {
	sel, rg, metrics, err := rollupQuery(r.URL.Query())
	if err == nil {
		var out rollup.Series
		if out, err = s.rollups.Series(r.Context(), r.PathValue("name"), sel, rg, metrics); err == nil {
			writeJSON(w, http.StatusOK, out)
			return
		}
	}
	writeError(w, r, s.log, err)
}

func (s *Server) rollupTotals(w http.ResponseWriter, r *http.Request) {
	sel, rg, metrics, err := rollupQuery(r.URL.Query())
	if err == nil {
		var out rollup.Totals
		if out, err = s.rollups.Totals(r.Context(), r.PathValue("name"), sel, rg, metrics); err == nil {
			writeJSON(w, http.StatusOK, out)
			return
		}
	}
	writeError(w, r, s.log, err)
}

func (s *Server) rollupTop(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sel, rg, _, err := rollupQuery(q)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	tq := rollup.TopQuery{Selector: sel, Range: rg, OrderBy: q.Get("order_by"), Ascending: q.Get("order") == "asc"}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"n", &tq.N}, {"offset", &tq.Offset}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "%s: %q is not a number", p.name, herald.Clip(v)))
				return
			}
			*p.dst = n
		}
	}
	if o := q.Get("order"); o != "" && o != "asc" && o != "desc" {
		writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "order: asc or desc, not %q", herald.Clip(o)))
		return
	}
	out, err := s.rollups.Top(r.Context(), r.PathValue("name"), tq)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// HandleUnimplemented answers every request under patterns with 501 and
// why, in Herald's error shape.
func (s *Server) HandleUnimplemented(why string, patterns ...string) {
	for _, p := range patterns {
		s.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotImplemented, api.ErrorResponse{Error: api.ErrorBody{Code: "not_implemented", Message: why}})
		})
	}
}
