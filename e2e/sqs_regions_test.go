package e2e

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// TestSQSRegionsScopeQueues: as on AWS, a queue lives in the region of the
// request's signature: the same name in two regions is two queues, each
// with its region in its ARN, listed only in its region; a queue URL whose
// host names a region (sqs.<region>.<host>) addresses that region's queue.
// Both regions' queues and messages survive a restart. Both engines.
func TestSQSRegionsScopeQueues(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		dir := t.TempDir()
		s := e.start(t, dir)
		east, west := sqsClientIn(s, "us-east-1"), sqsClientIn(s, "eu-west-1")
		ctx := ctxFor(t, 2*time.Minute)
		name := "e2e-region-" + uniqueWord(t)
		urls := map[string]string{}
		for region, c := range map[string]*sqs.Client{"us-east-1": east, "eu-west-1": west} {
			out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
			if err != nil {
				t.Fatalf("CreateQueue in %s: %v", region, err)
			}
			urls[region] = aws.ToString(out.QueueUrl)
			attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
				AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
			if err != nil {
				t.Fatal(err)
			}
			if arn := attrs.Attributes["QueueArn"]; !strings.HasPrefix(arn, "arn:aws:sqs:"+region+":") {
				t.Errorf("QueueArn in %s = %s", region, arn)
			}
			if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String("from " + region)}); err != nil {
				t.Fatal(err)
			}
		}
		for region, c := range map[string]*sqs.Client{"us-east-1": east, "eu-west-1": west} {
			listed, err := c.ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String(name)})
			if err != nil || len(listed.QueueUrls) != 1 {
				t.Errorf("ListQueues in %s: %v, %v; want its one queue", region, listed, err)
			}
		}

		// A region in the URL's host wins over the (unsigned) request's.
		u, _ := url.Parse(s.URL)
		hostStyle := "http://sqs.eu-west-1.localhost:" + u.Port() + urls["eu-west-1"][len(s.URL):]
		form := url.Values{"Action": {"SendMessage"}, "QueueUrl": {hostStyle}, "MessageBody": {"by host"}, "Version": {"2012-11-05"}}
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Host = "sqs.eu-west-1.localhost:" + u.Port()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("Query SendMessage to %s: %d %s", hostStyle, resp.StatusCode, body)
		}

		s.stop(t)
		s = e.start(t, dir)
		east, west = sqsClientIn(s, "us-east-1"), sqsClientIn(s, "eu-west-1")
		want := map[string][]string{"us-east-1": {"from us-east-1"}, "eu-west-1": {"by host", "from eu-west-1"}}
		for region, c := range map[string]*sqs.Client{"us-east-1": east, "eu-west-1": west} {
			q, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
			if err != nil {
				t.Fatalf("GetQueueUrl in %s after a restart: %v", region, err)
			}
			var got []string
			for _, m := range receiveN(t, c, aws.ToString(q.QueueUrl), len(want[region]), 10*time.Second, 30) {
				got = append(got, aws.ToString(m.Body))
			}
			slices.Sort(got)
			if !slices.Equal(got, want[region]) {
				t.Errorf("%s holds %v, want %v", region, got, want[region])
			}
		}
	})
}

// TestAnyRegionIsServedByDefault: with access keys configured and no
// --aws-regions, a request signed for any region is served in that region
// (its queue's ARN names it); --aws-regions narrows the regions, refusing
// a signature scoped to another with SignatureDoesNotMatch.
func TestAnyRegionIsServedByDefault(t *testing.T) {
	s := startServer(t, "", sharedArgs()...)
	ctx := ctxFor(t, time.Minute)
	in := func(s *server, region string) *sqs.Client {
		c := sqsAs(s, keyA)
		return sqs.New(c.Options(), func(o *sqs.Options) { o.Region = region })
	}
	out, err := in(s, "ap-southeast-2").CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("anywhere")})
	if err != nil {
		t.Fatalf("a request signed for ap-southeast-2, no --aws-regions: %v", err)
	}
	attrs, err := in(s, "ap-southeast-2").GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	if arn := attrs.Attributes["QueueArn"]; arn != "arn:aws:sqs:ap-southeast-2:"+acctA+":anywhere" {
		t.Errorf("QueueArn %s, want the signature's region", arn)
	}

	narrow := startServer(t, "", append(sharedArgs(), "--aws-regions", "us-east-1,eu-west-1")...)
	if _, err := in(narrow, "eu-west-1").ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
		t.Errorf("a listed region: %v", err)
	}
	_, err = in(narrow, "ap-southeast-2").ListQueues(ctx, &sqs.ListQueuesInput{})
	wantAPIError(t, "a region --aws-regions does not list", err, "SignatureDoesNotMatch")
}
