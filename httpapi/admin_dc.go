package httpapi

import (
	"context"
	"net/http"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/sqs"
)

// adminDC shows the data centers (GET /v1/admin/dc) or, with move, fences
// or unfences the one the body names (POST /v1/admin/dc/fence and
// /unfence; docs/operations.md). The queue service decides who may.
func (s *Server) adminDC(a *admin, move func(context.Context, sqs.Caller, string) (sqs.DCStatus, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var (
			st  sqs.DCStatus
			err error
		)
		if move == nil {
			st, err = a.queues.DCStatus(r.Context(), adminCaller(r))
		} else {
			var req api.DataCenter
			if err := s.decodeJSON(w, r, &req, false); err != nil {
				writeError(w, r, s.log, err)
				return
			}
			st, err = move(r.Context(), adminCaller(r), req.DC)
		}
		if err != nil {
			writeError(w, r, s.log, adminError(err))
			return
		}
		fenced := st.Fenced
		if fenced == nil {
			fenced = map[string]string{}
		}
		writeJSON(w, http.StatusOK, api.DataCenters{Local: st.Local, LegacyHome: st.LegacyHome, Fenced: fenced})
	}
}
