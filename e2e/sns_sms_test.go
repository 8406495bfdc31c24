package e2e

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"
)

// SNS SMS through a real herald serve and aws-sdk-go-v2, on both engines:
// Herald posts every SMS to a webhook (--sms-webhook-url) that runs in this
// process and plays the SMS gateway.

// smsGateway records the SMS it is posted; numbers in optOut answer that
// their recipient opted out.
type smsGateway struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []map[string]string
	optOut map[string]bool
}

func newSMSGateway(t *testing.T, optOut ...string) *smsGateway {
	t.Helper()
	g := &smsGateway{optOut: map[string]bool{}}
	for _, p := range optOut {
		g.optOut[p] = true
	}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.optOut[m["phoneNumber"]] {
			_, _ = io.WriteString(w, `{"optedOut": true}`)
			return
		}
		g.got = append(g.got, m)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *smsGateway) to(phone string) []map[string]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []map[string]string
	for _, m := range g.got {
		if m["phoneNumber"] == phone {
			out = append(out, m)
		}
	}
	return out
}

func (g *smsGateway) wait(t *testing.T, phone string, n int) map[string]string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(g.to(phone)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d SMS to %s, want %d", len(g.to(phone)), phone, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return g.to(phone)[n-1]
}

func TestSNSSMSPublishAndSubscriptions(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		gw := newSMSGateway(t, "+15555550111")
		s := e.start(t, "", "--sms-webhook-url", gw.srv.URL+"/sms")
		c := snsClient(s)
		ctx := ctxFor(t, 2*time.Minute)

		if _, err := c.SetSMSAttributes(ctx, &sns.SetSMSAttributesInput{Attributes: map[string]string{
			"DefaultSenderID": "Herald", "DefaultSMSType": "Transactional"}}); err != nil {
			t.Fatal(err)
		}
		attrs, err := c.GetSMSAttributes(ctx, &sns.GetSMSAttributesInput{})
		if err != nil || attrs.Attributes["DefaultSenderID"] != "Herald" || attrs.Attributes["DefaultSMSType"] != "Transactional" {
			t.Fatalf("GetSMSAttributes = %v, %v", attrs, err)
		}
		_, err = c.Publish(ctx, &sns.PublishInput{PhoneNumber: aws.String("5555550100"), Message: aws.String("m")})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidParameter" ||
			ae.ErrorMessage() != "Invalid parameter: PhoneNumber Reason: 5555550100 is not valid to publish to" {
			t.Errorf("Publish to 5555550100: %v", err)
		}

		pub, err := c.Publish(ctx, &sns.PublishInput{PhoneNumber: aws.String("+447700900123"), Message: aws.String("your code is 1234")})
		if err != nil {
			t.Fatal(err)
		}
		m := gw.wait(t, "+447700900123", 1)
		if m["messageId"] != aws.ToString(pub.MessageId) || m["message"] != "your code is 1234" || m["senderId"] != "Herald" ||
			m["smsType"] != "Transactional" || m["accountId"] == "" || m["timestamp"] == "" {
			t.Errorf("webhook got %v", m)
		}

		topic := newTopic(t, c, nil)
		sub := subscribe(t, c, topic, "sms", "+1 (555) 555-0100", nil)
		subscribe(t, c, topic, "sms", "+15555550111", nil)
		if _, err := c.Publish(ctx, &sns.PublishInput{TopicArn: &topic, Message: aws.String("storm warning"),
			MessageAttributes: map[string]types.MessageAttributeValue{"AWS.SNS.SMS.SMSType": {DataType: aws.String("String"), StringValue: aws.String("Promotional")}}}); err != nil {
			t.Fatal(err)
		}
		m = gw.wait(t, "+15555550100", 1)
		if m["message"] != "storm warning" || m["topicArn"] != topic || m["subscriptionArn"] != sub || m["smsType"] != "Promotional" {
			t.Errorf("webhook got %v from the topic", m)
		}
		// The gateway answered that +15555550111 opted out: it is listed.
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, err := c.CheckIfPhoneNumberIsOptedOut(ctx, &sns.CheckIfPhoneNumberIsOptedOutInput{PhoneNumber: aws.String("+15555550111")})
			if err != nil {
				t.Fatal(err)
			}
			if out.IsOptedOut {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the opt-out the gateway answered was not recorded")
			}
			time.Sleep(100 * time.Millisecond)
		}
		list, err := c.ListPhoneNumbersOptedOut(ctx, &sns.ListPhoneNumbersOptedOutInput{})
		if err != nil || strings.Join(list.PhoneNumbers, ",") != "+15555550111" {
			t.Errorf("ListPhoneNumbersOptedOut = %v, %v", list, err)
		}
		if _, err := c.OptInPhoneNumber(ctx, &sns.OptInPhoneNumberInput{PhoneNumber: aws.String("+15555550111")}); err != nil {
			t.Fatal(err)
		}
		out, err := c.CheckIfPhoneNumberIsOptedOut(ctx, &sns.CheckIfPhoneNumberIsOptedOutInput{PhoneNumber: aws.String("+15555550111")})
		if err != nil || out.IsOptedOut {
			t.Errorf("after OptInPhoneNumber: opted out %v, %v", out, err)
		}
	})
}

func TestSNSSMSSandbox(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		gw := newSMSGateway(t)
		s := e.start(t, "", "--sms-webhook-url", gw.srv.URL)
		c := snsClient(s)
		ctx := ctxFor(t, 2*time.Minute)
		const phone = "+15555550123"
		st, err := c.GetSMSSandboxAccountStatus(ctx, &sns.GetSMSSandboxAccountStatusInput{})
		if err != nil || st.IsInSandbox {
			t.Fatalf("GetSMSSandboxAccountStatus = %v, %v; want false", st, err)
		}
		if _, err := c.CreateSMSSandboxPhoneNumber(ctx, &sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: aws.String(phone)}); err != nil {
			t.Fatal(err)
		}
		otpSMS := gw.wait(t, phone, 1)["message"]
		otp := otpSMS[strings.LastIndexByte(otpSMS, ' ')+1:]
		list, err := c.ListSMSSandboxPhoneNumbers(ctx, &sns.ListSMSSandboxPhoneNumbersInput{})
		if err != nil || len(list.PhoneNumbers) != 1 || list.PhoneNumbers[0].Status != types.SMSSandboxPhoneNumberVerificationStatusPending {
			t.Fatalf("sandbox numbers = %+v, %v", list, err)
		}
		wrong := "99999"
		if otp == wrong {
			wrong = "88888"
		}
		_, err = c.VerifySMSSandboxPhoneNumber(ctx, &sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: aws.String(phone), OneTimePassword: &wrong})
		var ve *types.VerificationException
		if !errors.As(err, &ve) {
			t.Errorf("a wrong password: %v, want a VerificationException", err)
		}
		if _, err := c.VerifySMSSandboxPhoneNumber(ctx, &sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: aws.String(phone), OneTimePassword: &otp}); err != nil {
			t.Fatal(err)
		}
		list, err = c.ListSMSSandboxPhoneNumbers(ctx, &sns.ListSMSSandboxPhoneNumbersInput{})
		if err != nil || len(list.PhoneNumbers) != 1 || list.PhoneNumbers[0].Status != types.SMSSandboxPhoneNumberVerificationStatusVerified {
			t.Fatalf("after verification sandbox numbers = %+v, %v", list, err)
		}
		if _, err := c.DeleteSMSSandboxPhoneNumber(ctx, &sns.DeleteSMSSandboxPhoneNumberInput{PhoneNumber: aws.String(phone)}); err != nil {
			t.Fatal(err)
		}
		_, err = c.DeleteSMSSandboxPhoneNumber(ctx, &sns.DeleteSMSSandboxPhoneNumberInput{PhoneNumber: aws.String(phone)})
		var nf *types.ResourceNotFoundException
		if !errors.As(err, &nf) {
			t.Errorf("deleting it again: %v, want ResourceNotFound", err)
		}
	})
}
