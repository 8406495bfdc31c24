package httpapi

import (
	"net/http"

	"github.com/heraldmq/herald/limits"
)

// limitsBody is the admin API's rate limits: rules as limits.ParseRule
// reads them ("[ACCOUNT/]DOOR[.bytes][:NAME]=RATE/s[:BURST]" or "...=off").
type limitsBody struct {
	Rules []string `json:"rules"`
	// Source says where the rules in force come from: "admin" (set at run
	// time, kept in the store for every node) or "configuration".
	Source string `json:"source,omitempty"`
}

// writerView is one of the busiest writers: an account at a door, or a
// path, with its writes per second over the last limits.Window.
type writerView struct {
	Account   string  `json:"account,omitempty"`
	Door      string  `json:"door,omitempty"`
	Path      string  `json:"path,omitempty"`
	PerSecond float64 `json:"per_second"`
}

// topWritersShown is how many writers of each kind the admin API lists.
const topWritersShown = 10

// SetLimits serves GET, PUT and DELETE /v1/admin/limits over ctl: the
// rules in force, their replacement (kept for every node), and the return
// to the configuration's; and GET /v1/admin/writers, the busiest
// accounts and paths (the operator account only; ctl decides).
func (s *Server) SetLimits(ctl *limits.Control) {
	s.route("/v1/admin/writers", methods{http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
		top, err := ctl.Writers(r.Context(), topWritersShown)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		out := struct {
			WindowSeconds int          `json:"window_seconds"`
			Accounts      []writerView `json:"accounts"`
			Paths         []writerView `json:"paths"`
		}{WindowSeconds: int(limits.Window.Seconds()), Accounts: []writerView{}, Paths: []writerView{}}
		for _, wr := range top.Accounts {
			account, door := wr.AccountDoor()
			out.Accounts = append(out.Accounts, writerView{Account: account, Door: door, PerSecond: wr.PerSecond()})
		}
		for _, wr := range top.Paths {
			out.Paths = append(out.Paths, writerView{Path: wr.Key, PerSecond: wr.PerSecond()})
		}
		writeJSON(w, http.StatusOK, out)
	}})
	s.route("/v1/admin/limits", methods{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
			rules, err := ctl.Rules(r.Context())
			if err != nil {
				writeError(w, r, s.log, err)
				return
			}
			writeJSON(w, http.StatusOK, limitsBody{Rules: nonNil(rules), Source: ctl.Source()})
		},
		http.MethodPut: func(w http.ResponseWriter, r *http.Request) {
			body, err := readBody(w, r, adminMaxBodySize)
			if err != nil {
				writeError(w, r, s.log, err)
				return
			}
			var in limitsBody
			if err := decodeAdmin(body, &in); err != nil {
				writeError(w, r, s.log, err)
				return
			}
			rules, err := ctl.SetRules(r.Context(), in.Rules)
			if err != nil {
				writeError(w, r, s.log, err)
				return
			}
			s.log.Info("rate limits replaced", "rules", rules)
			writeJSON(w, http.StatusOK, limitsBody{Rules: nonNil(rules), Source: ctl.Source()})
		},
		http.MethodDelete: func(w http.ResponseWriter, r *http.Request) {
			rules, err := ctl.ResetRules(r.Context())
			if err != nil {
				writeError(w, r, s.log, err)
				return
			}
			s.log.Info("rate limits set at run time forgotten: the configuration's are in force", "rules", rules)
			writeJSON(w, http.StatusOK, limitsBody{Rules: nonNil(rules), Source: ctl.Source()})
		},
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
