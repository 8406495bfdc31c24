// Package buildinfo says which Herald this binary is: its version, the
// commit it was built from and the Go toolchain that built it.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the release this binary is, set at link time:
//
//	go build -ldflags "-X github.com/heraldmq/herald/internal/buildinfo.Version=v1.2.3" ./cmd/herald
//
// When empty, Get uses the module version Go recorded (set by `go install
// module@version`), else "devel".
var Version = ""

// Commit is the VCS revision, settable at link time like Version for
// builds without the repository's history (a container build); Go's own
// record (vcs.revision) wins when present.
var Commit = ""

// Info describes this binary.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`     // VCS revision; "unknown" when not recorded
	Modified  bool   `json:"modified"`   // built from a working tree with uncommitted changes
	GoVersion string `json:"go_version"` // e.g. go1.26.8
}

// Get reads Version and the build information Go embeds in the binary.
func Get() Info {
	info := Info{Version: Version, Commit: Commit, GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	if info.Commit == "" {
		info.Commit = "unknown"
	}
	return info
}

// String is the one line `herald version` prints.
func (i Info) String() string {
	commit := i.Commit
	if i.Modified {
		commit += " (modified)"
	}
	return fmt.Sprintf("herald %s (commit %s, %s, %s/%s)", i.Version, commit, i.GoVersion, runtime.GOOS, runtime.GOARCH)
}
