package httpapi

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/heraldmq/herald"
)

// BackupFunc writes a copy of the node's embedded store into dir, an
// absolute path that does not exist yet.
type BackupFunc func(ctx context.Context, dir string) error

// BackupRequest is the body of POST /v1/admin/backup.
type BackupRequest struct {
	// Dir is where the server writes the copy: an absolute path on the
	// server's machine that does not exist yet.
	Dir string `json:"dir"`
	// DataDir, when set, must be the server's data directory: the caller
	// says which store it means to copy, and a server on another one
	// refuses.
	DataDir string `json:"data_dir,omitempty"`
}

// SetBackup serves POST /v1/admin/backup (docs/operations.md): the server
// copies its embedded store, whose data directory is dataDir, with backup.
// Only clients on the server's own machine (a loopback address) may ask,
// since the request names a path of that machine; the request is
// identified like every /v1/ route.
func (s *Server) SetBackup(backup BackupFunc, dataDir string) {
	s.route("/v1/admin/backup", methods{http.MethodPost: func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			writeError(w, r, s.log, herald.Errorf(herald.EForbidden, "backups are taken only at the request of a client on the server's machine (a loopback address)"))
			return
		}
		var in BackupRequest
		body, err := readBody(w, r, 64<<10)
		if err == nil {
			err = json.Unmarshal(body, &in)
		}
		if err != nil {
			writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "want a JSON object {\"dir\": \"/absolute/new/directory\"}"))
			return
		}
		if !filepath.IsAbs(in.Dir) {
			writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "dir %q: want an absolute path on the server's machine", herald.Clip(in.Dir)))
			return
		}
		if _, err := os.Lstat(in.Dir); err == nil {
			writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "dir %s already exists: a backup goes into a new directory", herald.Clip(in.Dir)))
			return
		}
		if in.DataDir != "" && !sameDir(in.DataDir, dataDir) {
			writeError(w, r, s.log, herald.Errorf(herald.EInvalid, "this server's data directory is %s, not %s", dataDir, herald.Clip(in.DataDir)))
			return
		}
		start := time.Now()
		if err := backup(r.Context(), filepath.Clean(in.Dir)); err != nil {
			writeError(w, r, s.log, err)
			return
		}
		s.log.Info("backup written", "dir", in.Dir, "duration", time.Since(start))
		writeJSON(w, http.StatusOK, map[string]any{"dir": in.Dir, "data_dir": dataDir, "duration_ms": time.Since(start).Milliseconds()})
	}})
}

// sameDir reports whether a and b name one directory.
func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
