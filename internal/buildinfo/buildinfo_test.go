package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	tests := []struct {
		name            string
		version, commit string
		wantVersion     string
	}{
		{"set at link time", "v1.2.3", "abc123", "v1.2.3"},
		{"not set", "", "", ""}, // devel, or the module version go install recorded
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldV, oldC := Version, Commit
			t.Cleanup(func() { Version, Commit = oldV, oldC })
			Version, Commit = tt.version, tt.commit
			info := Get()
			if tt.wantVersion != "" && info.Version != tt.wantVersion {
				t.Errorf("Version %q, want %q", info.Version, tt.wantVersion)
			}
			if info.Version == "" || info.Commit == "" {
				t.Errorf("empty fields in %+v", info)
			}
			if info.GoVersion != runtime.Version() {
				t.Errorf("GoVersion %q, want %q", info.GoVersion, runtime.Version())
			}
			if s := info.String(); !strings.HasPrefix(s, "herald "+info.Version+" (commit ") || !strings.Contains(s, info.GoVersion) {
				t.Errorf("String() = %q", s)
			}
		})
	}
}
