package awsapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	snssdk "github.com/aws/aws-sdk-go-v2/service/sns"
	sqssdk "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/heraldmq/herald/awsauth"
)

// wrongRegion is a region the edges of these tests do not serve.
const wrongRegion = "ap-south-1"

const invalidRegionMessage = "Credential should be scoped to a valid region. "

// startRegionEdge serves SQS and SNS fakes with signatures checked and
// regions limited to regions.
func startRegionEdge(t *testing.T, regions ...string) (*fakeAPI, *fakeSNS, *httptest.Server) {
	t.Helper()
	sqsFake, snsFake := &fakeAPI{}, &fakeSNS{}
	srv := httptest.NewServer(New(Config{
		SQS: sqsFake, SNS: NewSNSService(snsFake, nil),
		Verifier: awsauth.NewVerifier(awsauth.Credentials{testKeyID: testSecret}),
		Regions:  regions,
	}))
	t.Cleanup(srv.Close)
	return sqsFake, snsFake, srv
}

func regionCredentials() aws.CredentialsProviderFunc {
	return func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret, Source: "test"}, nil
	}
}

func sqsClientIn(srv *httptest.Server, region string) *sqssdk.Client {
	return sqssdk.New(sqssdk.Options{Region: region, BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1, Credentials: regionCredentials()})
}

func snsClientIn(srv *httptest.Server, region string) *snssdk.Client {
	return snssdk.New(snssdk.Options{Region: region, BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1, Credentials: regionCredentials()})
}

// wantInvalidRegion checks an SDK error for the refused region.
func wantInvalidRegion(t *testing.T, err error) {
	t.Helper()
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != awsauth.CodeSignatureDoesNotMatch || apiErr.ErrorMessage() != invalidRegionMessage {
		t.Fatalf("error = %v, want %s %q", err, awsauth.CodeSignatureDoesNotMatch, invalidRegionMessage)
	}
	var respErr interface{ HTTPStatusCode() int }
	if !errors.As(err, &respErr) || respErr.HTTPStatusCode() != http.StatusForbidden {
		t.Fatalf("error = %v, want HTTP 403", err)
	}
}

// signIn signs req with the SDK signer for service in region.
func signIn(t *testing.T, req *http.Request, body, service, region string) {
	t.Helper()
	sum := sha256.Sum256([]byte(body))
	err := v4.NewSigner().SignHTTP(t.Context(), aws.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret},
		req, hex.EncodeToString(sum[:]), service, region, time.Now())
	if err != nil {
		t.Fatalf("signing: %v", err)
	}
}

// presignIn returns the presigned URL of a GET of target for service in
// region.
func presignIn(t *testing.T, target, service, region string) string {
	t.Helper()
	req := mustRequest(t, http.MethodGet, target, "")
	sum := sha256.Sum256(nil)
	uri, _, err := v4.NewSigner().PresignHTTP(t.Context(), aws.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret},
		req, hex.EncodeToString(sum[:]), service, region, time.Now())
	if err != nil {
		t.Fatalf("presigning: %v", err)
	}
	return uri
}

// TestRegionsSDK checks that the SDKs get AWS's error for a region the
// edge does not serve, in SQS JSON and SNS Query, and are served in every
// region it does.
func TestRegionsSDK(t *testing.T) {
	sqsFake, snsFake, srv := startRegionEdge(t, testRegion, "eu-west-3")

	for _, region := range []string{testRegion, "eu-west-3"} {
		if _, err := sqsClientIn(srv, region).ListQueues(t.Context(), &sqssdk.ListQueuesInput{}); err != nil {
			t.Fatalf("SQS in %s: %v", region, err)
		}
		if _, err := snsClientIn(srv, region).ListTopics(t.Context(), &snssdk.ListTopicsInput{}); err != nil {
			t.Fatalf("SNS in %s: %v", region, err)
		}
	}
	sqsCalls, snsCalls := len(sqsFake.calls), snsFake.count()

	_, err := sqsClientIn(srv, wrongRegion).ListQueues(t.Context(), &sqssdk.ListQueuesInput{})
	wantInvalidRegion(t, err)
	_, err = snsClientIn(srv, wrongRegion).ListTopics(t.Context(), &snssdk.ListTopicsInput{})
	wantInvalidRegion(t, err)

	if len(sqsFake.calls) != sqsCalls || snsFake.count() != snsCalls {
		t.Fatal("a request for a refused region reached the API")
	}
}

// TestRegionsWire checks the refusal's shape in each protocol, for
// signatures in the Authorization header and presigned ones.
func TestRegionsWire(t *testing.T) {
	sqsFake, _, srv := startRegionEdge(t, testRegion)

	t.Run("SQS JSON", func(t *testing.T) {
		body := `{}`
		req := mustRequest(t, http.MethodPost, srv.URL+"/", body)
		req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
		req.Header.Set("Content-Type", jsonContentType)
		signIn(t, req, body, "sqs", wrongRegion)
		resp := do(t, req)
		equal(t, resp.status, http.StatusForbidden)
		equal(t, resp.header.Get("x-amzn-query-error"), "SignatureDoesNotMatch;Sender")
		typ, msg := jsonError(t, resp)
		equal(t, typ, "com.amazon.coral.service#InvalidSignatureException")
		equal(t, msg, invalidRegionMessage)
	})
	for _, svc := range []struct{ name, namespace, body string }{
		{"sqs", sqsNamespace, "Action=ListQueues"},
		{"sns", snsNamespace, "Action=ListTopics"},
	} {
		t.Run(svc.name+" Query", func(t *testing.T) {
			req := mustRequest(t, http.MethodPost, srv.URL+"/", svc.body)
			req.Header.Set("Content-Type", formContentType)
			signIn(t, req, svc.body, svc.name, wrongRegion)
			resp := do(t, req)
			equal(t, resp.status, http.StatusForbidden)
			code, msg := queryError(t, resp, svc.namespace)
			equal(t, code, awsauth.CodeSignatureDoesNotMatch)
			equal(t, msg, invalidRegionMessage)
		})
		t.Run(svc.name+" presigned", func(t *testing.T) {
			resp := do(t, mustRequest(t, http.MethodGet, presignIn(t, srv.URL+"/?"+svc.body, svc.name, wrongRegion), ""))
			equal(t, resp.status, http.StatusForbidden)
			code, msg := queryError(t, resp, svc.namespace)
			equal(t, code, awsauth.CodeSignatureDoesNotMatch)
			equal(t, msg, invalidRegionMessage)

			resp = do(t, mustRequest(t, http.MethodGet, presignIn(t, srv.URL+"/?"+svc.body, svc.name, testRegion), ""))
			if resp.status != http.StatusOK {
				t.Fatalf("presigned in %s: %d %s", testRegion, resp.status, resp.body)
			}
		})
	}
	if len(sqsFake.calls) != 1 { // the presigned ListQueues in testRegion
		t.Fatalf("SQS saw %d calls, want 1", len(sqsFake.calls))
	}
}

// TestRegionsUnchecked checks when regions are not enforced: with no
// Regions configured, and with signatures unchecked (the scope is then
// unverified and means nothing).
func TestRegionsUnchecked(t *testing.T) {
	_, _, srv := startRegionEdge(t)
	if _, err := sqsClientIn(srv, wrongRegion).ListQueues(t.Context(), &sqssdk.ListQueuesInput{}); err != nil {
		t.Fatalf("no Regions: %v", err)
	}

	_, srv = startEdge(t, Config{Regions: []string{testRegion}})
	if _, err := sqsClientIn(srv, wrongRegion).ListQueues(t.Context(), &sqssdk.ListQueuesInput{}); err != nil {
		t.Fatalf("signatures unchecked: %v", err)
	}
}
