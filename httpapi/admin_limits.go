package httpapi

import (
	"net/http"

	"github.com/heraldmq/herald/limits"
)

// limitsBody is the admin API's rate limits: rules as limits.ParseRule
// reads them ("[ACCOUNT/]DOOR[.bytes]=RATE/s[:BURST]" or "...=off").
type limitsBody struct {
	Rules []string `json:"rules"`
}

// SetLimits serves GET and PUT /v1/admin/limits over ctl: the rules in
// force, and their replacement (the operator account only; ctl decides).
func (s *Server) SetLimits(ctl *limits.Control) {
	s.route("/v1/admin/limits", methods{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
			rules, err := ctl.Rules(r.Context())
			if err != nil {
				writeError(w, r, s.log, err)
				return
			}
			writeJSON(w, http.StatusOK, limitsBody{Rules: nonNil(rules)})
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
			writeJSON(w, http.StatusOK, limitsBody{Rules: nonNil(rules)})
		},
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
