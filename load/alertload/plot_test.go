package alertload

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestPlotDrawsEachAlertsProgress(t *testing.T) {
	r := Report{Alerts: []AlertReport{
		{Name: "state", Matching: 20, Connected: 2, Progress: []ProgressPoint{{0.1, 5, 0}, {0.2, 20, 2}}},
		{Name: "zip", Matching: 1, Progress: []ProgressPoint{{0.1, 1, 0}}},
	}}
	dir := t.TempDir()
	png := filepath.Join(dir, "alert.png")
	if err := Plot(png, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("%s is not a PNG (%d bytes, %v)", png, len(b), err)
	}
	if err := Plot(filepath.Join(dir, "alert.jpg"), r); err == nil {
		t.Error("a .jpg file was accepted")
	}
	if err := Plot(filepath.Join(dir, "none.png"), Report{}); err == nil {
		t.Error("a report without progress was drawn")
	}
}
