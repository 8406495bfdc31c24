package e2e

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
)

// TestSNSFidelityDataProtectionPolicy: Put and Get through aws-sdk-go-v2
// on both engines (issue 15, item 14); the policy is stored with the
// topic, so a restarted node answers it.
func TestSNSFidelityDataProtectionPolicy(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		dir := t.TempDir()
		s := e.start(t, dir)
		c := snsClient(s)
		ctx := ctxFor(t, time.Minute)
		topic := newTopic(t, c, nil)

		got, err := c.GetDataProtectionPolicy(ctx, &sns.GetDataProtectionPolicyInput{ResourceArn: aws.String(topic)})
		if err != nil || aws.ToString(got.DataProtectionPolicy) != "" {
			t.Fatalf("a new topic's policy: %v, %v", got, err)
		}
		policy := `{"Name":"basic","Description":"deny card numbers","Version":"2021-06-01","Statement":[{"DataDirection":"Inbound",` +
			`"Principal":["*"],"DataIdentifier":["arn:aws:dataprotection::aws:data-identifier/CreditCardNumber"],"Operation":{"Deny":{}}}]}`
		if _, err := c.PutDataProtectionPolicy(ctx, &sns.PutDataProtectionPolicyInput{ResourceArn: aws.String(topic), DataProtectionPolicy: aws.String(policy)}); err != nil {
			t.Fatal(err)
		}
		_, err = c.PutDataProtectionPolicy(ctx, &sns.PutDataProtectionPolicyInput{ResourceArn: aws.String(topic), DataProtectionPolicy: aws.String("{not json")})
		wantSNSError(t, err, "InvalidParameter", "Invalid parameter: DataProtectionPolicy Reason: the policy is not a valid JSON document")
		_, err = c.GetDataProtectionPolicy(ctx, &sns.GetDataProtectionPolicyInput{ResourceArn: aws.String(topic + "-missing")})
		wantSNSError(t, err, "NotFound", "Topic does not exist")

		s.stop(t)
		c = snsClient(e.start(t, dir))
		got, err = c.GetDataProtectionPolicy(ctx, &sns.GetDataProtectionPolicyInput{ResourceArn: aws.String(topic)})
		if err != nil || aws.ToString(got.DataProtectionPolicy) != policy {
			t.Fatalf("policy %q (%v), want %q", aws.ToString(got.DataProtectionPolicy), err, policy)
		}
	})
}
