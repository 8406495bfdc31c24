package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
)

// TestReceiptHandlesKeyedByTheStoresSecret: with no --sqs-receipt-secret,
// the embedded engine keys receipt handles with a secret of its own, kept
// in its data directory: a handle re-signed as if the key were the queue
// ID alone (what a client can read from any handle) is refused, and a
// handle issued before a restart still deletes its message after it.
func TestReceiptHandlesKeyedByTheStoresSecret(t *testing.T) {
	s := startServer(t, "")
	ctx := ctxFor(t, time.Minute)
	c := sqsClient(s)
	url := newQueue(t, c, "", nil)
	for _, body := range []string{"forged", "kept"} {
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	handles := map[string]string{}
	for len(handles) < 2 {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 600})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			handles[aws.ToString(m.Body)] = aws.ToString(m.ReceiptHandle)
		}
	}

	// The handle layout (docs/sqs.md): version, queue ID (16 bytes), ...,
	// then a 12-byte MAC.
	raw, err := base64.RawURLEncoding.DecodeString(handles["forged"])
	if err != nil || len(raw) < 1+16+12 {
		t.Fatalf("handle %q: %v", handles["forged"], err)
	}
	body := raw[:len(raw)-12]
	mac := hmac.New(sha256.New, body[1:17])
	mac.Write(body)
	forged := base64.RawURLEncoding.EncodeToString(append(append([]byte(nil), body...), mac.Sum(nil)[:12]...))
	if forged == handles["forged"] {
		t.Fatal("the server keys its handles with the queue ID alone")
	}
	_, err = c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(forged)})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ReceiptHandleIsInvalid" {
		t.Fatalf("DeleteMessage with a forged handle: %v, want ReceiptHandleIsInvalid", err)
	}

	s.stop(t)
	s2 := startServer(t, s.DataDir)
	c2 := sqsClient(s2)
	url2, err := c2.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(url[strings.LastIndex(url, "/")+1:])})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url2.QueueUrl, ReceiptHandle: aws.String(handles["kept"])}); err != nil {
		t.Fatalf("DeleteMessage after a restart with a handle from before it: %v", err)
	}
}
