package awsapi

import (
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	snssdk "github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"

	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/sns"
)

// startSNSEdge serves New(cfg) with SNS over a fake API (and SQS over
// another) on a test server.
func startSNSEdge(t *testing.T, cfg Config) (*fakeSNS, *httptest.Server) {
	t.Helper()
	fake := &fakeSNS{}
	cfg.SQS = &fakeAPI{}
	cfg.SNS = NewSNSService(fake, nil)
	srv := httptest.NewServer(New(cfg))
	t.Cleanup(srv.Close)
	return fake, srv
}

// snsClient is the real SNS client pointed at srv.
func snsClient(srv *httptest.Server, keyID, secret string) *snssdk.Client {
	return snssdk.New(snssdk.Options{
		Region:           testRegion,
		BaseEndpoint:     aws.String(srv.URL),
		RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret, Source: "test"}, nil
		}),
	})
}

type snsSDKCase struct {
	action string
	call   func(context.Context, *snssdk.Client) (any, error)
	input  any                   // the decoded input the fake must see
	check  func(*testing.T, any) // checks the SDK's output
}

func snsSDKCases() []snsSDKCase {
	topic := aws.String(fakeTopicARN)
	sub := aws.String(fakeSubARN)
	sdkAttrs := map[string]types.MessageAttributeValue{
		"color": {DataType: aws.String("String"), StringValue: aws.String("blue & <green>")},
		"blob":  {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 0xff}},
		"n":     {DataType: aws.String("Number"), StringValue: aws.String("1.5")},
		"list":  {DataType: aws.String("String.Array"), StringValue: aws.String(`["a","b"]`)},
	}
	wantAttrs := map[string]sns.MessageAttributeValue{
		"color": {DataType: "String", StringValue: "blue & <green>"},
		"blob":  {DataType: "Binary", BinaryValue: []byte{0, 1, 2, 0xff}},
		"n":     {DataType: "Number", StringValue: "1.5"},
		"list":  {DataType: "String.Array", StringValue: `["a","b"]`},
	}
	checkSubs := func(t *testing.T, got []types.Subscription, next *string) {
		t.Helper()
		equal(t, len(got), len(fakeSubList.Subscriptions))
		for i, s := range fakeSubList.Subscriptions {
			equal(t, sns.SubscriptionSummary{
				SubscriptionARN: aws.ToString(got[i].SubscriptionArn), Owner: aws.ToString(got[i].Owner),
				Protocol: aws.ToString(got[i].Protocol), Endpoint: aws.ToString(got[i].Endpoint), TopicARN: aws.ToString(got[i].TopicArn),
			}, s)
		}
		equal(t, aws.ToString(next), fakeSubList.NextToken)
	}
	return []snsSDKCase{
		{
			action: "CreateTopic",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.CreateTopic(ctx, &snssdk.CreateTopicInput{
					Name:                 aws.String("orders.fifo"),
					Attributes:           map[string]string{"FifoTopic": "true", "DisplayName": "Orders & co"},
					Tags:                 []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}, {Key: aws.String("env"), Value: aws.String("")}},
					DataProtectionPolicy: aws.String(`{"Name":"p"}`),
				})
			},
			input: sns.CreateTopicInput{Name: "orders.fifo",
				Attributes: map[string]string{"FifoTopic": "true", "DisplayName": "Orders & co", "DataProtectionPolicy": `{"Name":"p"}`},
				Tags:       map[string]string{"team": "core", "env": ""}},
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*snssdk.CreateTopicOutput).TopicArn), fakeTopicARN)
			},
		},
		{
			action: "DeleteTopic",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.DeleteTopic(ctx, &snssdk.DeleteTopicInput{TopicArn: topic})
			},
			input: fakeTopicARN,
		},
		{
			action: "ListTopics",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ListTopics(ctx, &snssdk.ListTopicsInput{NextToken: aws.String("tok-1")})
			},
			input: "tok-1",
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.ListTopicsOutput)
				var arns []string
				for _, tp := range o.Topics {
					arns = append(arns, aws.ToString(tp.TopicArn))
				}
				equal(t, arns, fakeTopicList.TopicARNs)
				equal(t, aws.ToString(o.NextToken), "tok-2")
			},
		},
		{
			action: "GetTopicAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.GetTopicAttributes(ctx, &snssdk.GetTopicAttributesInput{TopicArn: topic})
			},
			input: fakeTopicARN,
			check: func(t *testing.T, out any) {
				equal(t, out.(*snssdk.GetTopicAttributesOutput).Attributes, fakeSNSAttrs)
			},
		},
		{
			action: "SetTopicAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.SetTopicAttributes(ctx, &snssdk.SetTopicAttributesInput{TopicArn: topic,
					AttributeName: aws.String("DisplayName"), AttributeValue: aws.String("New <name>")})
			},
			input: sns.SetTopicAttributesInput{TopicARN: fakeTopicARN, AttributeName: "DisplayName", AttributeValue: "New <name>"},
		},
		{
			action: "Subscribe",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.Subscribe(ctx, &snssdk.SubscribeInput{TopicArn: topic, Protocol: aws.String("https"),
					Endpoint:              aws.String("https://example.test/hook?a=1&b=2"),
					Attributes:            map[string]string{"RawMessageDelivery": "true", "FilterPolicy": `{"color":["blue"]}`},
					ReturnSubscriptionArn: true})
			},
			input: sns.SubscribeInput{TopicARN: fakeTopicARN, Protocol: "https", Endpoint: "https://example.test/hook?a=1&b=2",
				Attributes:            map[string]string{"RawMessageDelivery": "true", "FilterPolicy": `{"color":["blue"]}`},
				ReturnSubscriptionARN: true},
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*snssdk.SubscribeOutput).SubscriptionArn), fakeSubARN)
			},
		},
		{
			action: "ConfirmSubscription",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ConfirmSubscription(ctx, &snssdk.ConfirmSubscriptionInput{TopicArn: topic,
					Token: aws.String("tok+en/="), AuthenticateOnUnsubscribe: aws.String("true")})
			},
			input: sns.ConfirmSubscriptionInput{TopicARN: fakeTopicARN, Token: "tok+en/=", AuthenticateOnUnsubscribe: "true"},
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*snssdk.ConfirmSubscriptionOutput).SubscriptionArn), fakeSubARN)
			},
		},
		{
			action: "Unsubscribe",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.Unsubscribe(ctx, &snssdk.UnsubscribeInput{SubscriptionArn: sub})
			},
			input: fakeSubARN,
		},
		{
			action: "ListSubscriptions",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ListSubscriptions(ctx, &snssdk.ListSubscriptionsInput{NextToken: aws.String("t")})
			},
			input: "t",
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.ListSubscriptionsOutput)
				checkSubs(t, o.Subscriptions, o.NextToken)
			},
		},
		{
			action: "ListSubscriptionsByTopic",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ListSubscriptionsByTopic(ctx, &snssdk.ListSubscriptionsByTopicInput{TopicArn: topic, NextToken: aws.String("t2")})
			},
			input: listByTopicInput{fakeTopicARN, "t2"},
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.ListSubscriptionsByTopicOutput)
				checkSubs(t, o.Subscriptions, o.NextToken)
			},
		},
		{
			action: "GetSubscriptionAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.GetSubscriptionAttributes(ctx, &snssdk.GetSubscriptionAttributesInput{SubscriptionArn: sub})
			},
			input: fakeSubARN,
			check: func(t *testing.T, out any) {
				equal(t, out.(*snssdk.GetSubscriptionAttributesOutput).Attributes, fakeSNSAttrs)
			},
		},
		{
			action: "SetSubscriptionAttributes",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.SetSubscriptionAttributes(ctx, &snssdk.SetSubscriptionAttributesInput{SubscriptionArn: sub,
					AttributeName: aws.String("FilterPolicy"), AttributeValue: aws.String(`{"n":[{"numeric":[">",1]}]}`)})
			},
			input: sns.SetSubscriptionAttributesInput{SubscriptionARN: fakeSubARN, AttributeName: "FilterPolicy", AttributeValue: `{"n":[{"numeric":[">",1]}]}`},
		},
		{
			action: "Publish",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.Publish(ctx, &snssdk.PublishInput{TopicArn: topic, Message: aws.String("hello <world> & \"friends\"\r\n"),
					Subject: aws.String("Hi"), MessageStructure: aws.String("json"), MessageAttributes: sdkAttrs,
					MessageDeduplicationId: aws.String("d-1"), MessageGroupId: aws.String("g-1")})
			},
			input: sns.PublishInput{TopicARN: fakeTopicARN, Message: "hello <world> & \"friends\"\r\n", Subject: ptr("Hi"),
				MessageStructure: "json", MessageAttributes: wantAttrs, MessageDeduplicationID: "d-1", MessageGroupID: "g-1"},
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.PublishOutput)
				equal(t, aws.ToString(o.MessageId), fakePublish.MessageID)
				equal(t, aws.ToString(o.SequenceNumber), fakePublish.SequenceNumber)
			},
		},
		{
			action: "PublishBatch",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.PublishBatch(ctx, &snssdk.PublishBatchInput{TopicArn: topic, PublishBatchRequestEntries: []types.PublishBatchRequestEntry{
					{Id: aws.String("a"), Message: aws.String("one"), Subject: aws.String("s"), MessageAttributes: sdkAttrs,
						MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d")},
					{Id: aws.String("b"), Message: aws.String(`{"default":"two"}`), MessageStructure: aws.String("json")},
				}})
			},
			input: sns.PublishBatchInput{TopicARN: fakeTopicARN, Entries: []sns.PublishBatchEntry{
				{ID: "a", Message: "one", Subject: ptr("s"), MessageAttributes: wantAttrs, MessageGroupID: "g", MessageDeduplicationID: "d"},
				{ID: "b", Message: `{"default":"two"}`, MessageStructure: "json"},
			}},
			check: func(t *testing.T, out any) {
				o := out.(*snssdk.PublishBatchOutput)
				equal(t, len(o.Successful), 1)
				equal(t, [3]string{aws.ToString(o.Successful[0].Id), aws.ToString(o.Successful[0].MessageId), aws.ToString(o.Successful[0].SequenceNumber)},
					[3]string{"a", "m-a", "1a"})
				equal(t, len(o.Failed), 1)
				f := o.Failed[0]
				equal(t, [3]string{aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message)}, [3]string{"b", "InvalidParameter", "bad <message>"})
				equal(t, f.SenderFault, true)
			},
		},
		{
			action: "TagResource",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.TagResource(ctx, &snssdk.TagResourceInput{ResourceArn: topic,
					Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("1")}, {Key: aws.String("b"), Value: aws.String("<2>")}}})
			},
			input: sns.TagResourceInput{ResourceARN: fakeTopicARN, Tags: map[string]string{"a": "1", "b": "<2>"}},
		},
		{
			action: "UntagResource",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.UntagResource(ctx, &snssdk.UntagResourceInput{ResourceArn: topic, TagKeys: []string{"a", "b"}})
			},
			input: sns.UntagResourceInput{ResourceARN: fakeTopicARN, TagKeys: []string{"a", "b"}},
		},
		{
			action: "ListTagsForResource",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.ListTagsForResource(ctx, &snssdk.ListTagsForResourceInput{ResourceArn: topic})
			},
			input: fakeTopicARN,
			check: func(t *testing.T, out any) {
				got := map[string]string{}
				for _, tag := range out.(*snssdk.ListTagsForResourceOutput).Tags {
					got[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
				}
				equal(t, got, fakeTags)
			},
		},
		{
			action: "AddPermission",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.AddPermission(ctx, &snssdk.AddPermissionInput{TopicArn: topic, Label: aws.String("l1"),
					AWSAccountId: []string{"111122223333", "444455556666"}, ActionName: []string{"Publish", "Subscribe"}})
			},
			input: sns.AddPermissionInput{TopicARN: fakeTopicARN, Label: "l1",
				AWSAccountIDs: []string{"111122223333", "444455556666"}, ActionNames: []string{"Publish", "Subscribe"}},
		},
		{
			action: "RemovePermission",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.RemovePermission(ctx, &snssdk.RemovePermissionInput{TopicArn: topic, Label: aws.String("l1")})
			},
			input: sns.RemovePermissionInput{TopicARN: fakeTopicARN, Label: "l1"},
		},
		{
			action: "GetDataProtectionPolicy",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.GetDataProtectionPolicy(ctx, &snssdk.GetDataProtectionPolicyInput{ResourceArn: topic})
			},
			input: fakeTopicARN,
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*snssdk.GetDataProtectionPolicyOutput).DataProtectionPolicy), fakeDPP)
			},
		},
		{
			action: "PutDataProtectionPolicy",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.PutDataProtectionPolicy(ctx, &snssdk.PutDataProtectionPolicyInput{ResourceArn: topic, DataProtectionPolicy: aws.String(fakeDPP)})
			},
			input: sns.PutDataProtectionPolicyInput{ResourceARN: fakeTopicARN, DataProtectionPolicy: fakeDPP},
		},
		{
			action: "Publish",
			call: func(ctx context.Context, c *snssdk.Client) (any, error) {
				return c.Publish(ctx, &snssdk.PublishInput{TopicArn: topic, Message: aws.String("m"), Subject: aws.String("")})
			},
			// An empty Subject reaches the API as given, for it to refuse.
			input: sns.PublishInput{TopicARN: fakeTopicARN, Message: "m", Subject: ptr("")},
		},
	}
}

// TestSNSSDKEveryAction drives every SNS action with the real SDK client:
// the API sees exactly what the SDK sent and the SDK parses the answer.
func TestSNSSDKEveryAction(t *testing.T) {
	fake, srv := startSNSEdge(t, Config{})
	client := snsClient(srv, "AKIDANY", "any")
	host := srv.Listener.Addr().String()
	seen := map[string]bool{}
	for _, tc := range append(append(snsSDKCases(), smsSDKCases()...), pushSDKCases()...) {
		seen[tc.action] = true
		t.Run(tc.action, func(t *testing.T) {
			out, err := tc.call(t.Context(), client)
			if err != nil {
				t.Fatalf("%s: %v", tc.action, err)
			}
			got, ok := fake.last()
			if !ok || got.Action != tc.action {
				t.Fatalf("last API call = %+v, want %s", got, tc.action)
			}
			equal(t, got.Input, tc.input)
			equal(t, got.Caller, sns.Caller{Account: DefaultAccount, Region: "us-east-1", SenderID: DefaultAccount, Scheme: "http", Host: host})
			if tc.check != nil {
				tc.check(t, out)
			}
		})
	}
	for action := range snsActions {
		if !seen[action] {
			t.Errorf("action %s has no SDK test", action)
		}
	}
	equal(t, len(snsActions), 41)
}

// TestSNSSDKErrors checks that the SDK sees AWS's codes, statuses and
// modelled error types.
func TestSNSSDKErrors(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		code   string
		status int
		typed  func(error) bool
	}{
		{"not found", sns.ErrNotFound("Topic"), "NotFound", 404,
			func(err error) bool { var e *types.NotFoundException; return errors.As(err, &e) }},
		{"invalid parameter", sns.ErrInvalidParameter("Topic Name"), "InvalidParameter", 400,
			func(err error) bool { var e *types.InvalidParameterException; return errors.As(err, &e) }},
		{"invalid parameter value", sns.NewError(sns.CodeInvalidParameterValue, "bad attribute"), "ParameterValueInvalid", 400,
			func(err error) bool { var e *types.InvalidParameterValueException; return errors.As(err, &e) }},
		{"authorization", sns.NewError(sns.CodeAuthorizationError, "not yours"), "AuthorizationError", 403,
			func(err error) bool { var e *types.AuthorizationErrorException; return errors.As(err, &e) }},
		{"resource not found", sns.NewError(sns.CodeResourceNotFound, "no such resource"), "ResourceNotFound", 404,
			func(err error) bool { var e *types.ResourceNotFoundException; return errors.As(err, &e) }},
		{"throttled", sns.NewError(sns.CodeThrottled, "slow down"), "Throttled", 429,
			func(err error) bool { var e *types.ThrottledException; return errors.As(err, &e) }},
		{"empty batch", sns.NewError(sns.CodeEmptyBatchRequest, "empty"), "EmptyBatchRequest", 400,
			func(err error) bool { var e *types.EmptyBatchRequestException; return errors.As(err, &e) }},
		{"internal", errors.New("disk on fire"), "InternalError", 500,
			func(err error) bool { var e *types.InternalErrorException; return errors.As(err, &e) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := startSNSEdge(t, Config{})
			fake.err = tc.err
			_, err := snsClient(srv, "AKID", "x").GetTopicAttributes(t.Context(), &snssdk.GetTopicAttributesInput{TopicArn: aws.String(fakeTopicARN)})
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want an API error", err)
			}
			equal(t, apiErr.ErrorCode(), tc.code)
			var respErr interface{ HTTPStatusCode() int }
			if !errors.As(err, &respErr) || respErr.HTTPStatusCode() != tc.status {
				t.Fatalf("status of %v, want %d", err, tc.status)
			}
			if !tc.typed(err) {
				t.Fatalf("error %T is not the modelled type", err)
			}
		})
	}
}

// TestSNSSDKAuthentication checks signatures with auth on: a signed SDK
// request acts in its key's account, a wrong secret never reaches the API.
func TestSNSSDKAuthentication(t *testing.T) {
	fake, srv := startSNSEdge(t, Config{
		Verifier:    awsauth.NewVerifier(awsauth.Credentials{testKeyID: testSecret}),
		KeyAccounts: map[string]string{testKeyID: "123456789012"},
	})
	host := srv.Listener.Addr().String()

	if _, err := snsClient(srv, testKeyID, testSecret).Publish(t.Context(), &snssdk.PublishInput{TopicArn: aws.String(fakeTopicARN), Message: aws.String("m")}); err != nil {
		t.Fatalf("Publish with the right secret: %v", err)
	}
	got, _ := fake.last()
	equal(t, got.Caller, sns.Caller{Account: "123456789012", Region: "us-east-1", SenderID: testKeyID, Scheme: "http", Host: host})

	calls := fake.count()
	for _, secret := range []string{"wrong"} {
		_, err := snsClient(srv, testKeyID, secret).ConfirmSubscription(t.Context(), &snssdk.ConfirmSubscriptionInput{
			TopicArn: aws.String(fakeTopicARN), Token: aws.String("t")})
		var apiErr smithy.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode() != awsauth.CodeSignatureDoesNotMatch {
			t.Fatalf("a badly signed ConfirmSubscription: error = %v, want %s", err, awsauth.CodeSignatureDoesNotMatch)
		}
	}
	_, err := snsClient(srv, "AKIDUNKNOWN", "x").Unsubscribe(t.Context(), &snssdk.UnsubscribeInput{SubscriptionArn: aws.String(fakeSubARN)})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != awsauth.CodeInvalidClientTokenID {
		t.Fatalf("unknown key: error = %v, want %s", err, awsauth.CodeInvalidClientTokenID)
	}
	if fake.count() != calls {
		t.Fatal("a rejected request reached the API")
	}
}

// TestSNSAnonymousURLs follows a SubscribeURL and an UnsubscribeURL with
// plain GETs while signatures are checked: both reach the API with the
// anonymous caller; other unsigned actions are refused.
func TestSNSAnonymousURLs(t *testing.T) {
	fake, srv := startSNSEdge(t, Config{Verifier: awsauth.NewVerifier(awsauth.Credentials{testKeyID: testSecret})})
	host := srv.Listener.Addr().String()
	anonymous := sns.Caller{Scheme: "http", Host: host}

	confirm := srv.URL + "/?Action=ConfirmSubscription&TopicArn=" + fakeTopicARN + "&Token=abc%2B123"
	resp := do(t, mustRequest(t, http.MethodGet, confirm, ""))
	equal(t, resp.status, http.StatusOK)
	doc := parseXML(t, resp.body)
	equal(t, doc.XMLName, xml.Name{Space: snsNamespace, Local: "ConfirmSubscriptionResponse"})
	equal(t, doc.one(t, "ConfirmSubscriptionResult/SubscriptionArn"), fakeSubARN)
	got, _ := fake.last()
	equal(t, got.Action, "ConfirmSubscription")
	equal(t, got.Input, any(sns.ConfirmSubscriptionInput{TopicARN: fakeTopicARN, Token: "abc+123"}))
	equal(t, got.Caller, anonymous)
	equal(t, AnonymousCaller(got.Caller), true)

	resp = do(t, mustRequest(t, http.MethodGet, srv.URL+"/?Action=Unsubscribe&SubscriptionArn="+fakeSubARN, ""))
	equal(t, resp.status, http.StatusOK)
	got, _ = fake.last()
	equal(t, got.Action, "Unsubscribe")
	equal(t, got.Caller, anonymous)

	// The API's refusal (AuthenticateOnUnsubscribe) reaches the endpoint.
	fake.err = sns.NewError(sns.CodeAuthorizationError, "unsubscribing requires authentication")
	resp = do(t, mustRequest(t, http.MethodGet, srv.URL+"/?Action=Unsubscribe&SubscriptionArn="+fakeSubARN, ""))
	equal(t, resp.status, http.StatusForbidden)
	equal(t, parseXML(t, resp.body).one(t, "Error/Code"), "AuthorizationError")
	fake.err = nil

	calls := fake.count()
	for _, action := range []string{"Publish", "ListTopics", "Subscribe"} {
		resp = do(t, mustRequest(t, http.MethodGet, srv.URL+"/?Action="+action+"&TopicArn="+fakeTopicARN, ""))
		equal(t, resp.status, http.StatusForbidden)
		doc := parseXML(t, resp.body)
		equal(t, doc.XMLName, xml.Name{Space: snsNamespace, Local: "ErrorResponse"})
		equal(t, doc.one(t, "Error/Code"), awsauth.CodeMissingAuthenticationToken)
	}
	// A bad signature is not an absent one.
	req := mustRequest(t, http.MethodGet, confirm, "")
	sign(t, req, "", testKeyID, "wrong", "sns")
	resp = do(t, req)
	equal(t, resp.status, http.StatusForbidden)
	equal(t, parseXML(t, resp.body).one(t, "Error/Code"), awsauth.CodeSignatureDoesNotMatch)
	if fake.count() != calls {
		t.Fatal("a refused request reached the API")
	}
}
