package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
)

// pageParams reads limit and cursor from the query string.
func pageParams(q url.Values) (limit int, cursor string, err error) {
	if text := q.Get("limit"); text != "" {
		if limit, err = strconv.Atoi(text); err != nil || limit < 1 {
			return 0, "", herald.Errorf(herald.EInvalid, "limit must be a positive whole number, not %q", text)
		}
	}
	return limit, q.Get("cursor"), nil
}

// withHashHint adds a hint to err, an error about the pattern parameter of
// q, when the pattern looks cut short at a bare '#': a URL's '#' starts its
// fragment, which clients never send, so "pattern=feeds.#" arrives as
// "feeds." and "pattern=#" as "".
func withHashHint(err error, q url.Values) error {
	var he *herald.Error
	if p := q.Get("pattern"); err == nil || !q.Has("pattern") || (p != "" && !strings.HasSuffix(p, ".")) || !errors.As(err, &he) || he.Code != herald.EInvalid {
		return err
	}
	return &herald.Error{Code: he.Code, Message: he.Message + "; a # in a URL starts its fragment and is not sent: write # as %23 (pattern=feeds.%23)", Err: he.Err}
}

func required(q url.Values, name string) (string, error) {
	v := q.Get(name)
	if v == "" {
		return "", herald.Errorf(herald.EInvalid, "query parameter %q is required", name)
	}
	return v, nil
}

func (s *Server) latest(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, cursor, err := pageParams(q)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	pattern, err := required(q, "pattern")
	if err != nil {
		writeError(w, r, s.log, withHashHint(err, q))
		return
	}
	items, page, err := s.cache.Latest(r.Context(), pattern, cursor, limit)
	if err != nil {
		writeError(w, r, s.log, withHashHint(err, q))
		return
	}
	resp := api.LatestResponse{Items: make([]api.LatestItem, len(items)), NextCursor: page.NextCursor}
	for i, it := range items {
		resp.Items[i] = api.LatestItem{Path: it.Path, Message: toWire(it.Message)}
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) all(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, cursor, err := pageParams(q)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	path, err := required(q, "path")
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	msgs, page, err := s.cache.All(r.Context(), path, cursor, limit)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, api.MessagesResponse{Messages: toWireList(msgs), NextCursor: page.NextCursor})
}

func (s *Server) journal(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, cursor, err := pageParams(q)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var bounds [2]time.Time
	for i, name := range []string{"from", "to"} {
		text, err := required(q, name)
		if err == nil {
			if bounds[i], err = parseTime(text); err != nil {
				err = herald.Errorf(herald.EInvalid, "%s must be an RFC 3339 time such as 2026-01-02T15:04:05Z, not %q", name, text)
			}
		}
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	msgs, page, err := s.cache.Journal(r.Context(), bounds[0], bounds[1], cursor, limit)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, api.MessagesResponse{Messages: toWireList(msgs), NextCursor: page.NextCursor})
}

func (s *Server) paths(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, cursor, err := pageParams(q)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	list, page, err := s.cache.Paths(r.Context(), q.Get("prefix"), cursor, limit)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if list == nil {
		list = []string{}
	}
	writeJSON(w, http.StatusOK, api.PathsResponse{Paths: list, NextCursor: page.NextCursor})
}
