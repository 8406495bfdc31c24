package jsonscan

import (
	"math"
	"testing"
)

func TestInt(t *testing.T) {
	tests := []struct {
		input string
		want  int64
		err   wantErr
	}{
		{"0", 0, wantErr{}},
		{"-0", 0, wantErr{}},
		{" 42 ", 42, wantErr{}},
		{"-17", -17, wantErr{}},
		{"9223372036854775807", math.MaxInt64, wantErr{}},
		{"-9223372036854775808", math.MinInt64, wantErr{}},

		{"9223372036854775808", 0, wantErr{0, "integer out of range"}},
		{"-9223372036854775809", 0, wantErr{0, "integer out of range"}},
		{"99999999999999999999999", 0, wantErr{0, "integer out of range"}},
		{"1.0", 0, wantErr{0, "not an integer"}},
		{"1e2", 0, wantErr{0, "not an integer"}},
		{"-", 0, wantErr{1, "expected digit"}},
		{"-a", 0, wantErr{1, "expected digit"}},
		{"01", 0, wantErr{1, "unexpected number after top-level value"}},
		{"1.", 0, wantErr{2, "expected digit after decimal point"}},
		{"1e", 0, wantErr{2, "expected digit in exponent"}},
		{"+1", 0, wantErr{0, "expected number, found character '+'"}},
		{`"1"`, 0, wantErr{0, "expected number, found string"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			var got int64
			err := readAll(tt.input, func(r *Reader) (err error) {
				got, err = r.Int()
				return err
			})
			checkErr(t, err, tt.err)
			if got != tt.want {
				t.Fatalf("Int() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestFloat(t *testing.T) {
	tests := []struct {
		input string
		want  float64
		err   wantErr
	}{
		{"0", 0, wantErr{}},
		{"-1.5", -1.5, wantErr{}},
		{"1e3", 1000, wantErr{}},
		{"2.5E-1", 0.25, wantErr{}},
		{"1E+2", 100, wantErr{}},
		{"1e400", 0, wantErr{0, "out of range"}},
		{"-1e400", 0, wantErr{0, "out of range"}},
		{".5", 0, wantErr{0, "expected number, found character '.'"}},
		{"1.e5", 0, wantErr{2, "expected digit after decimal point"}},
		{"1e+", 0, wantErr{3, "expected digit in exponent"}},
		{"NaN", 0, wantErr{0, "expected number"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			var got float64
			err := readAll(tt.input, func(r *Reader) (err error) {
				got, err = r.Float()
				return err
			})
			checkErr(t, err, tt.err)
			if got != tt.want {
				t.Fatalf("Float() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNumberReturnsText(t *testing.T) {
	var got []byte
	err := readAll(" -12.50e+3 ", func(r *Reader) (err error) {
		got, err = r.Number()
		return err
	})
	if err != nil || string(got) != "-12.50e+3" {
		t.Fatalf("Number() = %q, %v; want %q", got, err, "-12.50e+3")
	}
}
