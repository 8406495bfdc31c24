package web

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"testing"
)

// TestVendoredAssets: every vendored file is the one recorded, by digest,
// in static/vendor/README.md, and is served.
func TestVendoredAssets(t *testing.T) {
	readme, err := os.ReadFile("static/vendor/README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| `([0-9a-f]{64})` \\|$").FindAllStringSubmatch(string(readme), -1)
	if len(rows) == 0 {
		t.Fatal("no vendored file recorded")
	}
	for _, r := range rows {
		body, err := static.ReadFile("static/vendor/" + r[1])
		if err != nil {
			t.Fatalf("%s is recorded but not embedded: %v", r[1], err)
		}
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); got != r[2] {
			t.Errorf("%s has sha256 %s, recorded %s", r[1], got, r[2])
		}
		if _, ok := files["/vendor/"+r[1]]; !ok {
			t.Errorf("%s is not served", r[1])
		}
	}
}
