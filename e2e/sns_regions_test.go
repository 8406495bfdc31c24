package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
)

// TestSNSRegionsScopeTopics: as on AWS, a topic lives in the region of the
// request's signature (the same name in two regions is two topics, each
// ARN naming its region), and a topic delivers to a queue of another
// region by the queue's ARN. Both engines.
func TestSNSRegionsScopeTopics(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		ctx := ctxFor(t, time.Minute)
		name := "e2e-region-" + uniqueWord(t)
		arns := map[string]string{}
		for _, region := range []string{"us-east-1", "eu-west-1"} {
			out, err := snsClientIn(s, region).CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)})
			if err != nil {
				t.Fatalf("CreateTopic in %s: %v", region, err)
			}
			arns[region] = aws.ToString(out.TopicArn)
			if !strings.HasPrefix(arns[region], "arn:aws:sns:"+region+":") {
				t.Errorf("topic ARN in %s: %s", region, arns[region])
			}
		}
		west := snsClientIn(s, "eu-west-1")
		listed, err := west.ListTopics(ctx, &sns.ListTopicsInput{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tp := range listed.Topics {
			if aws.ToString(tp.TopicArn) == arns["us-east-1"] {
				t.Errorf("eu-west-1 lists us-east-1's topic %s", arns["us-east-1"])
			}
		}

		// A queue in us-east-1 subscribed to the eu-west-1 topic.
		c := sqsClientIn(s, "us-east-1")
		q := newQueue(t, c, "", nil)
		if _, err := west.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(arns["eu-west-1"]), Protocol: aws.String("sqs"),
			Endpoint: aws.String(queueArn(t, c, q)), Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := west.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(arns["eu-west-1"]), Message: aws.String("across regions")}); err != nil {
			t.Fatal(err)
		}
		got := receiveN(t, c, q, 1, 15*time.Second, 30)
		if len(got) != 1 || aws.ToString(got[0].Body) != "across regions" {
			t.Fatalf("us-east-1's queue got %v", got)
		}
	})
}
