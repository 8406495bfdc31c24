package main

import (
	"log/slog"
	"net/http"
	"net/http/pprof"
)

// servePprof serves Go's profiler on its own listener, never on Herald's
// public one.
func servePprof(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Info("pprof listening", "addr", "http://"+addr+"/debug/pprof/")
	if err := http.ListenAndServe(addr, mux); err != nil {
		log.Error("pprof listener failed", "err", err)
	}
}
