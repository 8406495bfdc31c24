package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
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
		{name: "default is any region", want: nil},
		{name: "default is any region whatever --aws-region", args: []string{"--aws-region", "eu-west-3"}, want: nil},
		{name: "list", args: []string{"--aws-regions", "us-east-1, eu-west-1,,us-east-1"}, want: []string{"us-east-1", "eu-west-1"}},
		{name: "list replaces --aws-region", args: []string{"--aws-region", "eu-west-3", "--aws-regions", "ap-south-1"}, want: []string{"ap-south-1"}},
		{name: "any region", args: []string{"--aws-regions", "*"}, want: nil},
		{name: "from the environment", env: "us-west-2,eu-central-1", want: []string{"us-west-2", "eu-central-1"}},
		{name: "only commas", args: []string{"--aws-regions", " , "}, want: nil},
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

// TestSQSShardsFlag: --sqs-shards, HERALD_SQS_SHARDS or sqs-shards in the
// file sets the shard count of the queue service's new queues (0: the
// engine's default, 1 in memory); a value outside 0..256 stops the start
// naming where it came from and the range.
func TestSQSShardsFlag(t *testing.T) {
	cases := []struct {
		name    string
		file    string
		args    []string
		env     string // HERALD_SQS_SHARDS; "" leaves it unset
		want    int
		wantErr string // in the error, with the range
	}{
		{name: "default is the engine's", want: 0},
		{name: "flag", args: []string{"--sqs-shards", "16"}, want: 16},
		{name: "the most", args: []string{"--sqs-shards=256"}, want: 256},
		{name: "zero", args: []string{"--sqs-shards", "0"}, want: 0},
		{name: "environment", env: "8", want: 8},
		{name: "file", file: "sqs-shards: 32\n", want: 32},
		{name: "file, nested", file: "sqs:\n  shards: 12\n", want: 12},
		{name: "flag over environment", env: "8", args: []string{"--sqs-shards", "2"}, want: 2},
		{name: "above the most", args: []string{"--sqs-shards", "257"}, wantErr: "--sqs-shards"},
		{name: "negative", args: []string{"--sqs-shards", "-1"}, wantErr: "--sqs-shards"},
		{name: "not a number", args: []string{"--sqs-shards", "many"}, wantErr: "--sqs-shards"},
		{name: "environment above the most", env: "300", wantErr: "HERALD_SQS_SHARDS"},
		{name: "file above the most", file: "sqs-shards: 1000\n", wantErr: "sqs-shards"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("HERALD_SQS_SHARDS", tc.env)
			}
			c, err := loadServe(t, tc.file, tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "1 to 256") {
					t.Fatalf("error %v, want one naming %s and the range 1 to 256", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if int(c.aws.shards) != tc.want {
				t.Fatalf("shards %d, want %d", c.aws.shards, tc.want)
			}
			store := sqsmem.NewStore()
			e := &engine{queues: store, index: sqsmem.NewIndex(sqsmem.IndexOptions{}), notifier: sqsmem.NewNotifier()}
			q, err := openQueues(e, c.aws, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer q.closer()
			ctx := context.Background()
			caller := sqs.Caller{Account: testAccount, Scheme: "http", Host: "127.0.0.1:4566"}
			if _, err := q.svc.CreateQueue(ctx, caller, sqs.CreateQueueInput{QueueName: "q"}); err != nil {
				t.Fatal(err)
			}
			rec, err := store.GetQueue(ctx, testAccount, "q")
			if err != nil {
				t.Fatal(err)
			}
			if want := max(tc.want, store.DefaultShards()); rec.Shards != want {
				t.Errorf("a new queue has %d shards, want %d", rec.Shards, want)
			}
		})
	}
}
