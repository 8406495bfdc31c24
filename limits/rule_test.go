package limits

import (
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rule
		err  string
	}{
		{in: "sqs=100/s", want: Rule{Door: "sqs", PerSecond: 100}},
		{in: " 123456789012/sns=2.5/s:10 ", want: Rule{Account: "123456789012", Door: "sns", PerSecond: 2.5, Burst: 10}},
		{in: "cache.bytes=10MiB/s", want: Rule{Door: "cache", Bytes: true, PerSecond: 10 << 20}},
		{in: "acct-1/ws.bytes=1KB/s:2KB", want: Rule{Account: "acct-1", Door: "ws", Bytes: true, PerSecond: 1000, Burst: 2000}},
		{in: "123456789012/rollup=off", want: Rule{Account: "123456789012", Door: "rollup", Off: true}},
		{in: "path=10/s", want: Rule{Door: "path", PerSecond: 10}},
		{in: "path.bytes=10/s", err: "counts writes, not bytes"},
		{in: "sqs", err: "want [ACCOUNT/]DOOR"},
		{in: "smtp=1/s", err: "\"smtp\" is not a door"},
		{in: "websockets=100", want: Rule{Door: "websockets", Count: 100}},
		{in: "a/queues=0", want: Rule{Account: "a", Door: "queues", Count: 0}},
		{in: "topics=off", want: Rule{Door: "topics", Off: true}},
		{in: "queues=1.5", err: "not a whole number"},
		{in: "queues.bytes=1", err: "not bytes"},
		{in: "sqs.size=1/s", err: "not a kind of limit"},
		{in: "sqs=100", err: "must end in /s"},
		{in: "sqs=0/s", err: "not a number between"},
		{in: "sqs=-1/s", err: "not a number between"},
		{in: "sqs=NaN/s", err: "not a number between"},
		{in: "sqs=1e10/s", err: "not a number between"},
		{in: "sqs=1MiB/s", err: "not a number between"}, // units are for bytes only
		{in: "sqs=1/s:0", err: "burst"},
		{in: "sqs=1/s:1.5", err: "burst"},
		{in: "/sqs=1/s", err: "not an account id"},
		{in: "a b/sqs=1/s", err: "not an account id"},
		{in: "sqs:orders=50/s", want: Rule{Door: "sqs", Name: "orders", PerSecond: 50}},
		{in: "a/sqs.bytes:orders.fifo=1MiB/s", want: Rule{Account: "a", Door: "sqs", Name: "orders.fifo", Bytes: true, PerSecond: 1 << 20}},
		{in: "sns:alerts=off", want: Rule{Door: "sns", Name: "alerts", Off: true}},
		{in: "path:news.live=5/s", want: Rule{Door: "path", Name: "news.live", PerSecond: 5}},
		{in: "path:news..live=5/s", err: "not a path"},
		{in: "cache:x=1/s", err: "only a rule of sqs, sns, path"},
		{in: "queues:x=1", err: "not one resource's"},
		{in: "sqs:=1/s", err: "not a queue, topic or path name"},
		{in: "sqs:a b=1/s", err: "not a queue, topic or path name"},
		{in: "sqs:" + strings.Repeat("q", 257) + "=1/s", err: "not a queue, topic or path name"},
	} {
		got, err := ParseRule(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRule(%q): error %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRule(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		again, err := ParseRule(got.String())
		if err != nil || again != got {
			t.Errorf("ParseRule(%q.String() = %q) = %+v, %v; want the same rule", tc.in, got.String(), again, err)
		}
	}
}

func TestParseRulesLaterReplacesEarlier(t *testing.T) {
	rules, err := ParseRules([]string{"sqs=1/s", "a/sqs=2/s", "sqs=3/s", "sqs.bytes=4/s"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rules {
		got = append(got, r.String())
	}
	if want := "a/sqs=2/s sqs=3/s sqs.bytes=4/s"; strings.Join(got, " ") != want {
		t.Errorf("rules %q, want %q", strings.Join(got, " "), want)
	}
}

// FuzzParseRule: any text either fails to parse or gives a rule that
// prints as text parsing back to the same rule, within the bounds.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"sqs=100/s", "1/sns.bytes=1MiB/s:2GiB", "cache=off", "ws=0.001/s:1", "=", "a/b/c=1/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			if len(err.Error()) > 1500 { // the clipped rule and one part of it
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if !r.Off && (r.PerSecond <= 0 || r.PerSecond > maxRate || r.Burst < 0 || r.Burst > maxRate) {
			t.Fatalf("%q parsed out of bounds: %+v", s, r)
		}
		again, err := ParseRule(r.String())
		if err != nil || again != r {
			t.Fatalf("%q: %+v prints as %q, which parses as %+v, %v", s, r, r.String(), again, err)
		}
	})
}
