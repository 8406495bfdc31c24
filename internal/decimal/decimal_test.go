package decimal

import "testing"

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-12.5e3": true, "+.5": true, "5.": true, "1E-9": true,
		"": false, "-": false, ".": false, "1e": false, "1e+": false, "0x1": false, "1 ": false, "١": false,
	} {
		if got := Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestValidAsSQSNumbers(t *testing.T) {
	tests := []struct {
		s  string
		ok bool
	}{
		{"0", true}, {"-1", true}, {"+2.50", true}, {".5", true}, {"5.", true}, {"1e10", true}, {"1.5E-3", true},
		{"", false}, {"-", false}, {".", false}, {"1e", false}, {"e5", false}, {"1.2.3", false}, {"0x10", false}, {" 1", false},
	}
	for _, tt := range tests {
		if got := Valid(tt.s); got != tt.ok {
			t.Errorf("Valid(%q) = %v", tt.s, got)
		}
	}
}
