package sns

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestPushARNs(t *testing.T) {
	id := uuid.MustParse("6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab")
	tests := []struct {
		arn      string
		app      bool
		endpoint bool
	}{
		{"arn:aws:sns:us-east-1:000000000000:app/GCM/android", true, false},
		{"arn:aws:sns:eu-west-1:123456789012:app/HERALD/set-top.boxes_1", true, false},
		{"arn:aws:sns:us-east-1:000000000000:endpoint/GCM/android/" + id.String(), false, true},
		{"arn:aws:sns:us-east-1:000000000000:app/GCM/android/x", false, false},
		{"arn:aws:sns:us-east-1:000000000000:app/PIGEON/android", false, false},
		{"arn:aws:sns:us-east-1:000000000000:endpoint/GCM/android/not-a-uuid", false, false},
		{"arn:aws:sns:us-east-1:000000000000:endpoint/GCM/android", false, false},
		{"arn:aws:sns:us-east-1:000000000000:android", false, false},
		{"arn:aws:sqs:us-east-1:000000000000:app/GCM/android", false, false},
	}
	for _, tc := range tests {
		_, _, _, _, err := ParseApplicationARN(tc.arn, "PlatformApplicationArn")
		if (err == nil) != tc.app {
			t.Errorf("ParseApplicationARN(%s): %v", tc.arn, err)
		}
		_, _, _, _, _, err = ParseEndpointARN(tc.arn, "EndpointArn")
		if (err == nil) != tc.endpoint {
			t.Errorf("ParseEndpointARN(%s): %v", tc.arn, err)
		}
	}
	if got := EndpointARN("us-east-1", "000000000000", "GCM", "android", id); got != tests[2].arn {
		t.Errorf("EndpointARN = %s", got)
	}
}

// FuzzPushARNs: whatever the parsers accept, the ARN builders write back
// exactly; what they refuse is an *Error.
func FuzzPushARNs(f *testing.F) {
	for _, s := range []string{
		"arn:aws:sns:us-east-1:000000000000:app/GCM/android",
		"arn:aws:sns:us-east-1:000000000000:endpoint/HERALD/boxes/6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab",
		"arn:aws:sns:us-east-1:000000000000:endpoint/HERALD/boxes/6F1C1A4E-1D2B-4C3A-9E8F-0123456789AB",
		"arn:aws:sns:::app//", "app/GCM/x", "", "arn:aws:sns:r:a:endpoint/GCM/a/{6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if region, account, platform, name, err := ParseApplicationARN(s, "P"); err == nil {
			if !strings.HasPrefix(s, "arn:") || strings.Contains(name, "/") {
				t.Fatalf("ParseApplicationARN(%q) accepted", s)
			}
			if back := ApplicationARN(region, account, platform, name); back != s && strings.TrimPrefix(back, "arn:aws:") != s[strings.Index(s[4:], ":")+5:] {
				t.Fatalf("ParseApplicationARN(%q) -> %q", s, back)
			}
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("ParseApplicationARN(%q): %T", s, err)
		}
		if region, account, platform, app, id, err := ParseEndpointARN(s, "E"); err == nil {
			back := EndpointARN(region, account, platform, app, id)
			if !strings.EqualFold(strings.TrimPrefix(back, "arn:aws:"), s[strings.Index(s[4:], ":")+5:]) {
				t.Fatalf("ParseEndpointARN(%q) -> %q", s, back)
			}
			if !isEndpointARN(s) {
				t.Fatalf("isEndpointARN(%q) = false for a parsed endpoint", s)
			}
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("ParseEndpointARN(%q): %T", s, err)
		}
	})
}
