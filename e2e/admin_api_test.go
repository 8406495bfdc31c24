package e2e

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/sqsload"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
)

// TestAdminAPI: the console's API lists queues with their counts, sends,
// peeks without receiving, purges, lists topics and publishes, as
// docs/http-api.md documents it; a missing queue is not_found.
func TestAdminAPI(t *testing.T) {
	s := startServer(t, "")
	q := sqsClient(s)
	url := newQueue(t, q, "", nil)
	name := url[strings.LastIndex(url, "/")+1:]
	topics := snsClient(s)
	topic := newTopic(t, topics, nil)
	if _, err := topics.Subscribe(ctxFor(t, time.Minute), &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"),
		Endpoint: aws.String(queueArn(t, q, url)), Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
		t.Fatal(err)
	}

	if code := call(t, s, "POST", "/v1/admin/queues/"+name+"/messages", []byte(`{"body":"from the console"}`), nil); code != 200 {
		t.Fatalf("send: %d", code)
	}
	if code := call(t, s, "POST", "/v1/admin/topics/publish", []byte(`{"topic_arn":"`+topic+`","message":"published"}`), nil); code != 200 {
		t.Fatalf("publish: %d", code)
	}
	var list struct {
		Queues []struct {
			Name    string `json:"name"`
			Visible int64  `json:"visible"`
			Sent    int64  `json:"sent"`
		} `json:"queues"`
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		call(t, s, "GET", "/v1/admin/queues", nil, &list)
		if len(list.Queues) == 1 && list.Queues[0].Visible == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("queues %+v, want %s with 2 visible (sent, and published through the topic)", list.Queues, name)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var peek struct {
		Messages []struct {
			Body         string `json:"body"`
			BodyEncoding string `json:"body_encoding"`
			ReceiveCount int    `json:"receive_count"`
		} `json:"messages"`
	}
	call(t, s, "GET", "/v1/admin/queues/"+name+"/peek", nil, &peek)
	if len(peek.Messages) != 2 || peek.Messages[0].Body != "from the console" || peek.Messages[0].BodyEncoding != "text" || peek.Messages[0].ReceiveCount != 0 {
		t.Fatalf("peek %+v, want the 2 messages, unreceived, oldest first", peek.Messages)
	}
	var ts struct {
		Topics []struct {
			ARN           string `json:"arn"`
			Subscriptions []struct {
				Attributes map[string]string
				Deliveries struct{ Delivered, Failed int64 }
			} `json:"subscriptions"`
		} `json:"topics"`
	}
	call(t, s, "GET", "/v1/admin/topics", nil, &ts)
	if len(ts.Topics) != 1 || ts.Topics[0].ARN != topic || len(ts.Topics[0].Subscriptions) != 1 {
		t.Fatalf("topics %+v", ts.Topics)
	}
	if sub := ts.Topics[0].Subscriptions[0]; sub.Attributes["RawMessageDelivery"] != "true" || sub.Deliveries.Delivered != 1 || sub.Deliveries.Failed != 0 {
		t.Fatalf("subscription %+v, want raw delivery and 1 delivered", sub)
	}
	if code := call(t, s, "POST", "/v1/admin/queues/"+name+"/purge", nil, nil); code != 200 {
		t.Fatalf("purge: %d", code)
	}
	if got := receiveN(t, q, url, 1, 2*time.Second, 30); len(got) != 0 {
		t.Fatalf("received %d messages after the purge", len(got))
	}
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	if code := call(t, s, "GET", "/v1/admin/queues/no-such-queue/peek", nil, &e); code != 404 || e.Error.Code != "not_found" {
		t.Fatalf("peek of a missing queue: %d %+v", code, e)
	}
}

// TestAdminQueuesSearchAndPages lists queues by name prefix, a page of 200
// at a time, following `next` to the end.
func TestAdminQueuesSearchAndPages(t *testing.T) {
	s := startServer(t, "")
	q := sqsload.NewClient(s.URL, sqsload.Options{Connections: 16})
	var next atomic.Int64
	names := append([]string{"other-1", "boxes"}, make([]string, 450)...)
	for i := range 450 {
		names[2+i] = fmt.Sprintf("box-%03d", i)
	}
	r := loadgen.Run(t.Context(), "create", loadgen.Config{Concurrency: 16, Requests: len(names)}, func(ctx context.Context, _, _ int) (int, error) {
		_, err := q.CreateQueue(ctx, names[next.Add(1)-1], nil)
		return 1, err
	})
	if r.Errors > 0 {
		t.Fatalf("creating queues: %s", r.FirstError)
	}
	type page struct {
		Queues []struct {
			Name string `json:"name"`
		} `json:"queues"`
		Truncated bool   `json:"truncated"`
		Next      string `json:"next"`
	}
	var got []string
	pages := 0
	for tok := ""; ; pages++ {
		var p page
		path := "/v1/admin/queues?prefix=box-"
		if tok != "" {
			path += "&next=" + url.QueryEscape(tok)
		}
		if code := call(t, s, "GET", path, nil, &p); code != 200 {
			t.Fatalf("GET %s: %d", path, code)
		}
		if len(p.Queues) > 200 || p.Truncated != (p.Next != "") {
			t.Fatalf("page %d: %d queues, truncated %v, next %q", pages, len(p.Queues), p.Truncated, p.Next)
		}
		for _, x := range p.Queues {
			got = append(got, x.Name)
		}
		if !p.Truncated {
			break
		}
		tok = p.Next
	}
	want := names[2:]
	if !slices.Equal(got, want) || pages != 2 {
		t.Fatalf("listed %d queues in %d pages (first %v), want the 450 box- queues in order in 3 pages", len(got), pages+1, got[:min(3, len(got))])
	}
	var p page
	call(t, s, "GET", "/v1/admin/queues?prefix=other", nil, &p)
	if len(p.Queues) != 1 || p.Queues[0].Name != "other-1" || p.Truncated {
		t.Fatalf("prefix other: %+v", p)
	}
}
