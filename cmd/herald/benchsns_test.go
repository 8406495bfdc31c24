package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBenchSNSFlags(t *testing.T) {
	cfg, err := parseBenchSNSFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.load
	if cfg.scenario != "http" || cfg.jsonOut || l.Server != "http://127.0.0.1:4566" || l.Subscribers != 100 || l.Listeners != 10 ||
		l.Concurrency != 64 || l.Rate != 0 || l.Duration != 10*time.Second || l.Drain != 5*time.Second || l.Timeout != time.Minute ||
		l.Wait != 1 || l.Keep || l.AccessKey != "" || l.Region != "us-east-1" {
		t.Fatalf("defaults %+v", cfg)
	}

	t.Setenv("HERALD_SECRET_KEY", "from-env")
	cfg, err = parseBenchSNSFlags([]string{"--scenario", "queues", "--subscribers", "100000", "--concurrency", "256", "--rate", "500",
		"--duration", "3s", "--drain", "1s", "--timeout", "20s", "--wait", "5", "--listeners", "4", "--message-size", "64",
		"--keep", "--json", "--prefix", "p", "--access-key", "AK", "--server", "http://h:1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l = cfg.load
	if cfg.scenario != "queues" || !cfg.jsonOut || !l.Keep || l.Subscribers != 100000 || l.Concurrency != 256 || l.Rate != 500 ||
		l.Duration != 3*time.Second || l.Drain != time.Second || l.Timeout != 20*time.Second || l.Wait != 5 || l.Listeners != 4 ||
		l.MessageSize != 64 || l.Prefix != "p" || l.AccessKey != "AK" || l.SecretKey != "from-env" || l.Server != "http://h:1" {
		t.Fatalf("parsed %+v", cfg)
	}
}

func TestBenchSNSRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--scenario", "email"},
		{"--subscribers", "0"},
		{"--concurrency", "0"},
		{"--rate", "-1"},
		{"--wait", "21"},
		{"--timeout", "0s"},
		{"--access-key", "AK"},
		{"--server", "localhost:4566"},
		{"extra"},
	} {
		if _, err := parseBenchSNSFlags(args, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// TestBenchSNSQueuesPrintsJSON runs the queues scenario against a minimal
// server whose queues always hold the published message.
func TestBenchSNSQueuesPrintsJSON(t *testing.T) {
	var (
		mu     sync.Mutex
		counts = map[string]int{}
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		action := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
		var in map[string]any
		if action == "" {
			form, _ := url.ParseQuery(string(body))
			action = form.Get("Action")
		} else {
			json.Unmarshal(body, &in)
		}
		mu.Lock()
		counts[action]++
		mu.Unlock()
		switch action {
		case "CreateTopic":
			io.WriteString(w, `<CreateTopicResponse><CreateTopicResult><TopicArn>arn:aws:sns:us-east-1:000000000000:t</TopicArn></CreateTopicResult></CreateTopicResponse>`)
		case "Subscribe":
			io.WriteString(w, `<SubscribeResponse><SubscribeResult><SubscriptionArn>arn:aws:sns:us-east-1:000000000000:t:1</SubscriptionArn></SubscribeResult></SubscribeResponse>`)
		case "Publish":
			io.WriteString(w, `<PublishResponse><PublishResult><MessageId>m</MessageId></PublishResult></PublishResponse>`)
		case "DeleteTopic":
			xml.NewEncoder(w).Encode(struct {
				XMLName xml.Name `xml:"DeleteTopicResponse"`
			}{})
		case "CreateQueue":
			fmt.Fprintf(w, `{"QueueUrl":"http://%s/000000000000/%s"}`, r.Host, in["QueueName"])
		case "GetQueueAttributes":
			u := in["QueueUrl"].(string)
			fmt.Fprintf(w, `{"Attributes":{"QueueArn":"arn:aws:sqs:us-east-1:000000000000:%s"}}`, u[strings.LastIndexByte(u, '/')+1:])
		case "ReceiveMessage":
			io.WriteString(w, `{"Messages":[{"MessageId":"m","ReceiptHandle":"h","Body":"b"}]}`)
		case "DeleteQueue":
			io.WriteString(w, `{}`)
		default:
			http.Error(w, "unexpected "+action, http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	var out bytes.Buffer
	err := runBench(t.Context(), []string{"sns", "--server", srv.URL, "--scenario", "queues", "--subscribers", "7",
		"--concurrency", "2", "--json"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Scenario string `json:"scenario"`
		Reached  int    `json:"reached"`
		T100     *int64 `json:"t100_ns"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil || report.Scenario != "queues" || report.Reached != 7 || report.T100 == nil {
		t.Fatalf("output %q (%v)", out.String(), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if counts["CreateQueue"] != 7 || counts["Subscribe"] != 7 || counts["Publish"] != 1 || counts["DeleteQueue"] != 7 || counts["DeleteTopic"] != 1 {
		t.Fatalf("server saw %v", counts)
	}
	if !strings.HasSuffix(out.String(), "}\n") {
		t.Fatalf("JSON output %q is not one document", out.String())
	}
}
