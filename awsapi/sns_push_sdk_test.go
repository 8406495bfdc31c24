package awsapi

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	snssdk "github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"

	"github.com/heraldmq/herald/sns"
)

// The fake's mobile-push half and the SDK cases of the push actions.

var (
	fakeAppARN      = "arn:aws:sns:us-east-1:000000000000:app/HERALD/boxes"
	fakeEndpointARN = "arn:aws:sns:us-east-1:000000000000:endpoint/HERALD/boxes/6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab"
	fakeAppAttrs    = map[string]string{"Enabled": "true", "EventEndpointCreated": "arn:aws:sns:us-east-1:000000000000:e<&>"}
	fakeEPAttrs     = map[string]string{"Enabled": "false", "Token": "box-1", "CustomUserData": "<user & 7>"}
	fakeAppList     = sns.ListPlatformApplicationsOutput{
		PlatformApplications: []sns.PlatformApplication{{PlatformApplicationARN: fakeAppARN, Attributes: fakeAppAttrs},
			{PlatformApplicationARN: "arn:aws:sns:us-east-1:000000000000:app/GCM/android", Attributes: map[string]string{"Enabled": "true"}}},
		NextToken: "app-tok",
	}
	fakeEPList = sns.ListEndpointsByPlatformApplicationOutput{
		Endpoints: []sns.PlatformEndpoint{{EndpointARN: fakeEndpointARN, Attributes: fakeEPAttrs}}, NextToken: "ep-tok"}
)

var _ sns.PushAPI = (*fakeSNS)(nil)

func (f *fakeSNS) CreatePlatformApplication(_ context.Context, c sns.Caller, in sns.CreatePlatformApplicationInput) (string, error) {
	return fakeAppARN, f.record("CreatePlatformApplication", c, in)
}

func (f *fakeSNS) GetPlatformApplicationAttributes(_ context.Context, c sns.Caller, arn string) (map[string]string, error) {
	return fakeAppAttrs, f.record("GetPlatformApplicationAttributes", c, arn)
}

func (f *fakeSNS) SetPlatformApplicationAttributes(_ context.Context, c sns.Caller, in sns.SetPlatformApplicationAttributesInput) error {
	return f.record("SetPlatformApplicationAttributes", c, in)
}

func (f *fakeSNS) DeletePlatformApplication(_ context.Context, c sns.Caller, arn string) error {
	return f.record("DeletePlatformApplication", c, arn)
}

func (f *fakeSNS) ListPlatformApplications(_ context.Context, c sns.Caller, nextToken string) (sns.ListPlatformApplicationsOutput, error) {
	return fakeAppList, f.record("ListPlatformApplications", c, nextToken)
}

func (f *fakeSNS) CreatePlatformEndpoint(_ context.Context, c sns.Caller, in sns.CreatePlatformEndpointInput) (string, error) {
	return fakeEndpointARN, f.record("CreatePlatformEndpoint", c, in)
}

func (f *fakeSNS) GetEndpointAttributes(_ context.Context, c sns.Caller, arn string) (map[string]string, error) {
	return fakeEPAttrs, f.record("GetEndpointAttributes", c, arn)
}

func (f *fakeSNS) SetEndpointAttributes(_ context.Context, c sns.Caller, in sns.SetEndpointAttributesInput) error {
	return f.record("SetEndpointAttributes", c, in)
}

func (f *fakeSNS) DeleteEndpoint(_ context.Context, c sns.Caller, arn string) error {
	return f.record("DeleteEndpoint", c, arn)
}

func (f *fakeSNS) ListEndpointsByPlatformApplication(_ context.Context, c sns.Caller, in sns.ListEndpointsByPlatformApplicationInput) (sns.ListEndpointsByPlatformApplicationOutput, error) {
	return fakeEPList, f.record("ListEndpointsByPlatformApplication", c, in)
}

func pushSDKCases() []snsSDKCase {
	app, ep := aws.String(fakeAppARN), aws.String(fakeEndpointARN)
	return []snsSDKCase{
		{
			action: "CreatePlatformApplication",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.CreatePlatformApplication(ctx, &snssdk.CreatePlatformApplicationInput{Name: aws.String("boxes"), Platform: aws.String("HERALD"),
					Attributes: map[string]string{"PlatformCredential": "k&y", "SuccessFeedbackSampleRate": "5"}})
			},
			input: sns.CreatePlatformApplicationInput{Name: "boxes", Platform: "HERALD", Attributes: map[string]string{"PlatformCredential": "k&y", "SuccessFeedbackSampleRate": "5"}},
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*snssdk.CreatePlatformApplicationOutput).PlatformApplicationArn), fakeAppARN)
			},
		},
		{
			action: "GetPlatformApplicationAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.GetPlatformApplicationAttributes(ctx, &snssdk.GetPlatformApplicationAttributesInput{PlatformApplicationArn: app})
			},
			input: fakeAppARN,
			check: func(t *testing.T, out any) {
				equal(t, out.(*snssdk.GetPlatformApplicationAttributesOutput).Attributes, fakeAppAttrs)
			},
		},
		{
			action: "SetPlatformApplicationAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.SetPlatformApplicationAttributes(ctx, &snssdk.SetPlatformApplicationAttributesInput{PlatformApplicationArn: app,
					Attributes: map[string]string{"Enabled": "false"}})
			},
			input: sns.SetPlatformApplicationAttributesInput{PlatformApplicationARN: fakeAppARN, Attributes: map[string]string{"Enabled": "false"}},
		},
		{
			action: "DeletePlatformApplication",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.DeletePlatformApplication(ctx, &snssdk.DeletePlatformApplicationInput{PlatformApplicationArn: app})
			},
			input: fakeAppARN,
		},
		{
			action: "ListPlatformApplications",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ListPlatformApplications(ctx, &snssdk.ListPlatformApplicationsInput{NextToken: aws.String("prev")})
			},
			input: "prev",
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.ListPlatformApplicationsOutput)
				equal(t, aws.ToString(o.NextToken), "app-tok")
				equal(t, len(o.PlatformApplications), 2)
				equal(t, aws.ToString(o.PlatformApplications[0].PlatformApplicationArn), fakeAppARN)
				equal(t, o.PlatformApplications[0].Attributes, fakeAppAttrs)
			},
		},
		{
			action: "CreatePlatformEndpoint",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.CreatePlatformEndpoint(ctx, &snssdk.CreatePlatformEndpointInput{PlatformApplicationArn: app, Token: aws.String("box-1"),
					CustomUserData: aws.String("user 7"), Attributes: map[string]string{"Enabled": "false"}})
			},
			input: sns.CreatePlatformEndpointInput{PlatformApplicationARN: fakeAppARN, Token: "box-1", CustomUserData: "user 7", Attributes: map[string]string{"Enabled": "false"}},
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*snssdk.CreatePlatformEndpointOutput).EndpointArn), fakeEndpointARN)
			},
		},
		{
			action: "GetEndpointAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.GetEndpointAttributes(ctx, &snssdk.GetEndpointAttributesInput{EndpointArn: ep})
			},
			input: fakeEndpointARN,
			check: func(t *testing.T, out any) {
				equal(t, out.(*snssdk.GetEndpointAttributesOutput).Attributes, fakeEPAttrs)
			},
		},
		{
			action: "SetEndpointAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.SetEndpointAttributes(ctx, &snssdk.SetEndpointAttributesInput{EndpointArn: ep, Attributes: map[string]string{"Token": "box-2"}})
			},
			input: sns.SetEndpointAttributesInput{EndpointARN: fakeEndpointARN, Attributes: map[string]string{"Token": "box-2"}},
		},
		{
			action: "DeleteEndpoint",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.DeleteEndpoint(ctx, &snssdk.DeleteEndpointInput{EndpointArn: ep})
			},
			input: fakeEndpointARN,
		},
		{
			action: "ListEndpointsByPlatformApplication",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ListEndpointsByPlatformApplication(ctx, &snssdk.ListEndpointsByPlatformApplicationInput{PlatformApplicationArn: app, NextToken: aws.String("p")})
			},
			input: sns.ListEndpointsByPlatformApplicationInput{PlatformApplicationARN: fakeAppARN, NextToken: "p"},
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.ListEndpointsByPlatformApplicationOutput)
				equal(t, aws.ToString(o.NextToken), "ep-tok")
				equal(t, len(o.Endpoints), 1)
				equal(t, aws.ToString(o.Endpoints[0].EndpointArn), fakeEndpointARN)
				equal(t, o.Endpoints[0].Attributes, fakeEPAttrs)
			},
		},
	}
}

// TestSNSSDKPushErrors: the SDK sees the push errors as its modelled
// types.
func TestSNSSDKPushErrors(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		code  string
		typed func(error) bool
	}{
		{"endpoint disabled", sns.NewError(sns.CodeEndpointDisabled, "Endpoint is disabled"), "EndpointDisabled",
			func(err error) bool { var e *types.EndpointDisabledException; return errors.As(err, &e) }},
		{"application disabled", sns.NewError(sns.CodePlatformApplicationDisabled, "Platform application is disabled"), "PlatformApplicationDisabled",
			func(err error) bool { var e *types.PlatformApplicationDisabledException; return errors.As(err, &e) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := startSNSEdge(t, Config{})
			fake.err = tc.err
			_, err := snsClient(srv, "AKID", "x").Publish(t.Context(), &snssdk.PublishInput{TargetArn: aws.String(fakeEndpointARN), Message: aws.String("m")})
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) || apiErr.ErrorCode() != tc.code || !tc.typed(err) {
				t.Fatalf("error = %v (%T), want %s as its modelled type", err, err, tc.code)
			}
			got, _ := fake.last()
			equal(t, got.Input, any(sns.PublishInput{TargetARN: fakeEndpointARN, Message: "m"}))
		})
	}
}
