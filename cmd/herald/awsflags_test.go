package main

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/heraldmq/herald/sqs"
)

func TestParseAccessKeys(t *testing.T) {
	cases := []struct {
		text    string
		want    []accessKey
		wantErr bool
	}{
		{"", nil, false},
		{"AK1:s1", []accessKey{{id: "AK1", secret: "s1"}}, false},
		{"AK1:s1:123456789012, AK2:s2", []accessKey{{"AK1", "s1", "123456789012"}, {"AK2", "s2", ""}}, false},
		{"AK1", nil, true},
		{"AK1:", nil, true},
		{"AK1:s1:12345", nil, true},
		{"AK1:s1:1234567890ab", nil, true},
		{"a:b:c:d", nil, true},
	}
	for _, tc := range cases {
		got, err := parseAccessKeys(tc.text)
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: error %v, want error %v", tc.text, err, tc.wantErr)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.text, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: key %d = %+v, want %+v", tc.text, i, got[i], tc.want[i])
			}
		}
	}
}

func TestSQSLimitFlagOverridesOneLimit(t *testing.T) {
	var c awsConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.register(fs)
	t.Setenv("HERALD_SQS_LIMIT", "MaxReceiveMessages=100")
	if err := parseFlags(fs, []string{"--sqs-limit", "MaxMaximumMessageSize=2097152"}); err != nil {
		t.Fatal(err)
	}
	want := sqs.DefaultLimits()
	want.MaxReceiveMessages = 100
	want.MaxMaximumMessageSize = 2097152
	if c.limits.Limits != want {
		t.Errorf("limits = %+v, want %+v", c.limits.Limits, want)
	}
	for _, bad := range []string{"NoSuchLimit=1", "MaxReceiveMessages", "MaxReceiveMessages=-1", "MaxReceiveMessages=ten"} {
		if err := c.limits.Set(bad); err == nil {
			t.Errorf("--sqs-limit %s was accepted", bad)
		}
	}
}

func TestAWSRegionsFlag(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		env     string // HERALD_AWS_REGIONS; "" leaves it unset
		want    []string
		wantErr bool
	}{
		{name: "default is --aws-region's default", want: []string{"us-east-1"}},
		{name: "default follows --aws-region", args: []string{"--aws-region", "eu-west-3"}, want: []string{"eu-west-3"}},
		{name: "list", args: []string{"--aws-regions", "us-east-1, eu-west-1,,us-east-1"}, want: []string{"us-east-1", "eu-west-1"}},
		{name: "list replaces --aws-region", args: []string{"--aws-region", "eu-west-3", "--aws-regions", "ap-south-1"}, want: []string{"ap-south-1"}},
		{name: "any region", args: []string{"--aws-regions", "*"}, want: nil},
		{name: "from the environment", env: "us-west-2,eu-central-1", want: []string{"us-west-2", "eu-central-1"}},
		{name: "only commas", args: []string{"--aws-regions", " , "}, want: []string{"us-east-1"}},
		{name: "not a region", args: []string{"--aws-regions", "us-east-1,US_EAST"}, wantErr: true},
		{name: "star among regions", args: []string{"--aws-regions", "us-east-1,*"}, wantErr: true},
		{name: "trailing hyphen", args: []string{"--aws-regions", "eu-"}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c awsConfig
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.register(fs)
			if tc.env != "" {
				t.Setenv("HERALD_AWS_REGIONS", tc.env)
			}
			if err := parseFlags(fs, tc.args); err != nil {
				t.Fatal(err)
			}
			got, err := c.servedRegions()
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Fatalf("regions %q, want %q", got, tc.want)
			}
		})
	}
}
