package awsapi

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	snssdk "github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"

	"github.com/heraldmq/herald/sns"
)

// The fake's SMS half and the SDK cases of the SMS actions.

var (
	fakeSMSAttrs    = map[string]string{"DefaultSMSType": "Transactional", "DefaultSenderID": "Herald<&>"}
	fakeOptedOut    = sns.ListPhoneNumbersOptedOutOutput{PhoneNumbers: []string{"+15555550100", "+15555550101"}, NextToken: "opt-tok"}
	fakeSandboxList = sns.ListSMSSandboxPhoneNumbersOutput{
		PhoneNumbers: []sns.SMSSandboxPhoneNumber{{PhoneNumber: "+15555550100", Status: "Pending"}, {PhoneNumber: "+15555550101", Status: "Verified"}},
		NextToken:    "sb-tok",
	}
)

var _ sns.SMSAPI = (*fakeSNS)(nil)

func (f *fakeSNS) SetSMSAttributes(_ context.Context, c sns.Caller, attrs map[string]string) error {
	return f.record("SetSMSAttributes", c, attrs)
}

func (f *fakeSNS) GetSMSAttributes(_ context.Context, c sns.Caller, names []string) (map[string]string, error) {
	return fakeSMSAttrs, f.record("GetSMSAttributes", c, names)
}

func (f *fakeSNS) CheckIfPhoneNumberIsOptedOut(_ context.Context, c sns.Caller, phone string) (bool, error) {
	return true, f.record("CheckIfPhoneNumberIsOptedOut", c, phone)
}

func (f *fakeSNS) ListPhoneNumbersOptedOut(_ context.Context, c sns.Caller, nextToken string) (sns.ListPhoneNumbersOptedOutOutput, error) {
	return fakeOptedOut, f.record("ListPhoneNumbersOptedOut", c, nextToken)
}

func (f *fakeSNS) OptInPhoneNumber(_ context.Context, c sns.Caller, phone string) error {
	return f.record("OptInPhoneNumber", c, phone)
}

func (f *fakeSNS) CreateSMSSandboxPhoneNumber(_ context.Context, c sns.Caller, in sns.CreateSMSSandboxPhoneNumberInput) error {
	return f.record("CreateSMSSandboxPhoneNumber", c, in)
}

func (f *fakeSNS) VerifySMSSandboxPhoneNumber(_ context.Context, c sns.Caller, in sns.VerifySMSSandboxPhoneNumberInput) error {
	return f.record("VerifySMSSandboxPhoneNumber", c, in)
}

func (f *fakeSNS) DeleteSMSSandboxPhoneNumber(_ context.Context, c sns.Caller, phone string) error {
	return f.record("DeleteSMSSandboxPhoneNumber", c, phone)
}

func (f *fakeSNS) ListSMSSandboxPhoneNumbers(_ context.Context, c sns.Caller, in sns.ListSMSSandboxPhoneNumbersInput) (sns.ListSMSSandboxPhoneNumbersOutput, error) {
	return fakeSandboxList, f.record("ListSMSSandboxPhoneNumbers", c, in)
}

func (f *fakeSNS) GetSMSSandboxAccountStatus(_ context.Context, c sns.Caller) (bool, error) {
	return true, f.record("GetSMSSandboxAccountStatus", c, nil)
}

func smsSDKCases() []snsSDKCase {
	phone := aws.String("+15555550100")
	return []snsSDKCase{
		{
			action: "SetSMSAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.SetSMSAttributes(ctx, &snssdk.SetSMSAttributesInput{Attributes: map[string]string{"DefaultSMSType": "Promotional", "MonthlySpendLimit": "5"}})
			},
			input: map[string]string{"DefaultSMSType": "Promotional", "MonthlySpendLimit": "5"},
		},
		{
			action: "GetSMSAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.GetSMSAttributes(ctx, &snssdk.GetSMSAttributesInput{Attributes: []string{"DefaultSMSType", "DefaultSenderID"}})
			},
			input: []string{"DefaultSMSType", "DefaultSenderID"},
			check: func(t *testing.T, out any) {
				equal(t, out.(*snssdk.GetSMSAttributesOutput).Attributes, fakeSMSAttrs)
			},
		},
		{
			action: "CheckIfPhoneNumberIsOptedOut",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.CheckIfPhoneNumberIsOptedOut(ctx, &snssdk.CheckIfPhoneNumberIsOptedOutInput{PhoneNumber: phone})
			},
			input: "+15555550100",
			check: func(t *testing.T, out any) {
				equal(t, out.(*snssdk.CheckIfPhoneNumberIsOptedOutOutput).IsOptedOut, true)
			},
		},
		{
			action: "ListPhoneNumbersOptedOut",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ListPhoneNumbersOptedOut(ctx, &snssdk.ListPhoneNumbersOptedOutInput{NextToken: aws.String("prev")})
			},
			input: "prev",
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.ListPhoneNumbersOptedOutOutput)
				equal(t, o.PhoneNumbers, fakeOptedOut.PhoneNumbers)
				equal(t, aws.ToString(o.NextToken), fakeOptedOut.NextToken)
			},
		},
		{
			action: "OptInPhoneNumber",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.OptInPhoneNumber(ctx, &snssdk.OptInPhoneNumberInput{PhoneNumber: phone})
			},
			input: "+15555550100",
		},
		{
			action: "CreateSMSSandboxPhoneNumber",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.CreateSMSSandboxPhoneNumber(ctx, &snssdk.CreateSMSSandboxPhoneNumberInput{PhoneNumber: phone, LanguageCode: types.LanguageCodeStringDeDe})
			},
			input: sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: "+15555550100", LanguageCode: "de-DE"},
		},
		{
			action: "VerifySMSSandboxPhoneNumber",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.VerifySMSSandboxPhoneNumber(ctx, &snssdk.VerifySMSSandboxPhoneNumberInput{PhoneNumber: phone, OneTimePassword: aws.String("123456")})
			},
			input: sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: "+15555550100", OneTimePassword: "123456"},
		},
		{
			action: "DeleteSMSSandboxPhoneNumber",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.DeleteSMSSandboxPhoneNumber(ctx, &snssdk.DeleteSMSSandboxPhoneNumberInput{PhoneNumber: phone})
			},
			input: "+15555550100",
		},
		{
			action: "ListSMSSandboxPhoneNumbers",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ListSMSSandboxPhoneNumbers(ctx, &snssdk.ListSMSSandboxPhoneNumbersInput{MaxResults: aws.Int32(7), NextToken: aws.String("prev")})
			},
			input: sns.ListSMSSandboxPhoneNumbersInput{MaxResults: 7, NextToken: "prev"},
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.ListSMSSandboxPhoneNumbersOutput)
				var got []sns.SMSSandboxPhoneNumber
				for _, n := range o.PhoneNumbers {
					got = append(got, sns.SMSSandboxPhoneNumber{PhoneNumber: aws.ToString(n.PhoneNumber), Status: string(n.Status)})
				}
				equal(t, got, fakeSandboxList.PhoneNumbers)
				equal(t, aws.ToString(o.NextToken), fakeSandboxList.NextToken)
			},
		},
		{
			action: "GetSMSSandboxAccountStatus",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.GetSMSSandboxAccountStatus(ctx, &snssdk.GetSMSSandboxAccountStatusInput{})
			},
			input: nil,
			check: func(t *testing.T, out any) {
				equal(t, out.(*snssdk.GetSMSSandboxAccountStatusOutput).IsInSandbox, true)
			},
		},
	}
}

// TestSNSSDKPublishToPhoneNumber: the SDK's PhoneNumber reaches the API.
func TestSNSSDKPublishToPhoneNumber(t *testing.T) {
	fake, srv := startSNSEdge(t, Config{})
	client := snsClient(srv, "AKIDANY", "any")
	if _, err := client.Publish(t.Context(), &snssdk.PublishInput{PhoneNumber: aws.String("+15555550100"), Message: aws.String("hi")}); err != nil {
		t.Fatal(err)
	}
	got, _ := fake.last()
	equal(t, got.Input, any(sns.PublishInput{PhoneNumber: "+15555550100", Message: "hi"}))
}
