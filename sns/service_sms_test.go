package sns_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// fakeSMS records the messages handed to the gateway; numbers in optOut
// answer that their recipient opted out.
type fakeSMS struct {
	mu     sync.Mutex
	sent   []sns.SMS
	optOut map[string]bool
}

func (f *fakeSMS) SendSMS(_ context.Context, m sns.SMS) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.optOut[m.PhoneNumber] {
		return true, nil
	}
	f.sent = append(f.sent, m)
	return false, nil
}

func (f *fakeSMS) to(phone string) []sns.SMS {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sns.SMS
	for _, m := range f.sent {
		if m.PhoneNumber == phone {
			out = append(out, m)
		}
	}
	return out
}

func withSMS(s sns.SMSSender) option { return func(c *sns.Config) { c.SMS = s } }

func waitSMS(t *testing.T, f *fakeSMS, phone string, n int) sns.SMS {
	t.Helper()
	eventually(t, 10*time.Second, "SMS to "+phone, func() bool { return len(f.to(phone)) >= n })
	return f.to(phone)[n-1]
}

func TestSMSAttributes(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name    string
		set     map[string]string
		code    string
		message string
	}{
		{"known attributes", map[string]string{"DefaultSMSType": "Transactional", "DefaultSenderID": "Herald1",
			"MonthlySpendLimit": "50", "DeliveryStatusSuccessSamplingRate": "10", "UsageReportS3Bucket": "reports"}, "", ""},
		{"an unknown attribute", map[string]string{"Colour": "blue"}, sns.CodeInvalidParameter,
			"Invalid parameter: attributes Reason: Colour is not an SMS attribute"},
		{"a bad SMS type", map[string]string{"DefaultSMSType": "Urgent"}, sns.CodeInvalidParameter,
			"Invalid parameter: attributes Reason: DefaultSMSType: must be Promotional or Transactional"},
		{"a sender ID with a space", map[string]string{"DefaultSenderID": "My Co"}, sns.CodeInvalidParameter,
			"Invalid parameter: attributes Reason: DefaultSenderID: must be 1 to 11 letters and digits, at least one a letter"},
		{"a sender ID of digits", map[string]string{"DefaultSenderID": "12345"}, sns.CodeInvalidParameter,
			"Invalid parameter: attributes Reason: DefaultSenderID: must be 1 to 11 letters and digits, at least one a letter"},
		{"a negative spend limit", map[string]string{"MonthlySpendLimit": "-1"}, sns.CodeInvalidParameter,
			"Invalid parameter: attributes Reason: MonthlySpendLimit: must be a whole number of USD, 0 or more"},
		{"a sampling rate over 100", map[string]string{"DeliveryStatusSuccessSamplingRate": "101"}, sns.CodeInvalidParameter,
			"Invalid parameter: attributes Reason: DeliveryStatusSuccessSamplingRate: must be a whole percentage from 0 to 100"},
	}
	want := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := e.svc.SetSMSAttributes(e.ctx, caller, tc.set)
			if tc.code != "" {
				wantError(t, err, tc.code, tc.message)
			} else {
				wantCode(t, err, "")
				for k, v := range tc.set {
					want[k] = v
				}
			}
			got, err := e.svc.GetSMSAttributes(e.ctx, caller, nil)
			wantCode(t, err, "")
			if !equalMaps(got, want) {
				t.Errorf("GetSMSAttributes = %v, want %v (a refused call changes nothing)", got, want)
			}
		})
	}
	got, err := e.svc.GetSMSAttributes(e.ctx, caller, []string{"DefaultSMSType", "DeliveryStatusIAMRole"})
	wantCode(t, err, "")
	if !equalMaps(got, map[string]string{"DefaultSMSType": "Transactional"}) {
		t.Errorf("GetSMSAttributes of two names = %v, want only the one set", got)
	}
	wantCode(t, e.svc.SetSMSAttributes(e.ctx, caller, map[string]string{"DefaultSMSType": ""}), "")
	if got, _ := e.svc.GetSMSAttributes(e.ctx, caller, []string{"DefaultSMSType"}); len(got) != 0 {
		t.Errorf("after setting it empty DefaultSMSType = %v, want it gone", got)
	}
	other := sns.Caller{Account: "111122223333"}
	if got, err := e.svc.GetSMSAttributes(e.ctx, other, nil); err != nil || len(got) != 0 {
		t.Errorf("another account's SMS attributes = %v, %v; want none", got, err)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestSMSActionsAreTheAccountsOwn(t *testing.T) {
	e := newEnv(t, withSMS(&fakeSMS{}))
	calls := map[string]func(c sns.Caller) error{
		"SetSMSAttributes": func(c sns.Caller) error {
			return e.svc.SetSMSAttributes(e.ctx, c, map[string]string{"DefaultSMSType": "Promotional"})
		},
		"GetSMSAttributes": func(c sns.Caller) error { _, err := e.svc.GetSMSAttributes(e.ctx, c, nil); return err },
		"CheckIfPhoneNumberIsOptedOut": func(c sns.Caller) error {
			_, err := e.svc.CheckIfPhoneNumberIsOptedOut(e.ctx, c, "+15555550100")
			return err
		},
		"ListPhoneNumbersOptedOut": func(c sns.Caller) error { _, err := e.svc.ListPhoneNumbersOptedOut(e.ctx, c, ""); return err },
		"OptInPhoneNumber":         func(c sns.Caller) error { return e.svc.OptInPhoneNumber(e.ctx, c, "+15555550100") },
		"CreateSMSSandboxPhoneNumber": func(c sns.Caller) error {
			return e.svc.CreateSMSSandboxPhoneNumber(e.ctx, c, sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: "+15555550100"})
		},
		"VerifySMSSandboxPhoneNumber": func(c sns.Caller) error {
			return e.svc.VerifySMSSandboxPhoneNumber(e.ctx, c, sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: "+15555550100", OneTimePassword: "123456"})
		},
		"DeleteSMSSandboxPhoneNumber": func(c sns.Caller) error { return e.svc.DeleteSMSSandboxPhoneNumber(e.ctx, c, "+15555550100") },
		"ListSMSSandboxPhoneNumbers": func(c sns.Caller) error {
			_, err := e.svc.ListSMSSandboxPhoneNumbers(e.ctx, c, sns.ListSMSSandboxPhoneNumbersInput{})
			return err
		},
		"GetSMSSandboxAccountStatus": func(c sns.Caller) error { _, err := e.svc.GetSMSSandboxAccountStatus(e.ctx, c); return err },
		"Publish": func(c sns.Caller) error {
			_, err := e.svc.Publish(e.ctx, c, sns.PublishInput{PhoneNumber: "+15555550100", Message: "hi"})
			return err
		},
	}
	for action, call := range calls {
		t.Run(action, func(t *testing.T) {
			for _, c := range []sns.Caller{{Account: "herald-sns"}, sqs.InternalCaller("herald-sns"), {Account: ""},
				{Account: account, Service: "sns.amazonaws.com"}} {
				wantCode(t, call(c), sns.CodeAuthorizationError)
			}
		})
	}
}

func TestSMSOptOutsAndOptIn(t *testing.T) {
	gw := &fakeSMS{}
	e := newEnv(t, withSMS(gw))
	run(t, e.svc)
	const phone = "+15555550100"
	out, err := e.svc.CheckIfPhoneNumberIsOptedOut(e.ctx, caller, phone)
	if err != nil || out {
		t.Fatalf("a fresh number: opted out = %v, %v; want false", out, err)
	}
	_, err = e.svc.CheckIfPhoneNumberIsOptedOut(e.ctx, caller, "5555550100")
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: phoneNumber Reason: 5555550100 is not a phone number in E.164 format")

	wantCode(t, e.svc.OptOutPhoneNumber(e.ctx, account, phone), "")
	if out, _ := e.svc.CheckIfPhoneNumberIsOptedOut(e.ctx, caller, phone); !out {
		t.Fatal("after OptOutPhoneNumber the number is not opted out")
	}
	if out, _ := e.svc.CheckIfPhoneNumberIsOptedOut(e.ctx, sns.Caller{Account: "111122223333"}, phone); out {
		t.Fatal("a number opted out of one account's messages is opted out of another's")
	}
	e.publish(t, sns.PublishInput{PhoneNumber: phone, Message: "not sent"})
	e.publish(t, sns.PublishInput{PhoneNumber: "+15555550199", Message: "sent"})
	waitSMS(t, gw, "+15555550199", 1)
	time.Sleep(300 * time.Millisecond)
	if got := gw.to(phone); len(got) != 0 {
		t.Fatalf("an opted-out number got %v", got)
	}

	wantCode(t, e.svc.OptInPhoneNumber(e.ctx, caller, phone), "")
	wantCode(t, e.svc.OptInPhoneNumber(e.ctx, caller, phone), "") // not opted out: still fine
	if out, _ := e.svc.CheckIfPhoneNumberIsOptedOut(e.ctx, caller, phone); out {
		t.Fatal("after OptInPhoneNumber the number is still opted out")
	}
	e.publish(t, sns.PublishInput{PhoneNumber: phone, Message: "sent now"})
	if m := waitSMS(t, gw, phone, 1); m.Message != "sent now" {
		t.Errorf("after opting in the number got %q", m.Message)
	}
}

func TestSMSListPhoneNumbersOptedOutPages(t *testing.T) {
	e := newEnv(t)
	var want []string
	for i := range 205 {
		phone := "+1555555" + strings.Repeat("0", 4-len(itoa(i))) + itoa(i)
		want = append(want, phone)
		wantCode(t, e.svc.OptOutPhoneNumber(e.ctx, account, phone), "")
	}
	var got []string
	token := ""
	pages := 0
	for {
		out, err := e.svc.ListPhoneNumbersOptedOut(e.ctx, caller, token)
		wantCode(t, err, "")
		pages++
		if len(out.PhoneNumbers) > 100 {
			t.Fatalf("a page of %d numbers, more than 100", len(out.PhoneNumbers))
		}
		got = append(got, out.PhoneNumbers...)
		if token = out.NextToken; token == "" {
			break
		}
	}
	if pages != 3 || !slices.Equal(got, want) {
		t.Errorf("%d pages of %d numbers, want 3 pages of the 205 in order", pages, len(got))
	}
	_, err := e.svc.ListPhoneNumbersOptedOut(e.ctx, caller, "%%%")
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: NextToken")
}

func itoa(i int) string {
	return strings.TrimLeft(string([]byte{byte('0' + i/1000%10), byte('0' + i/100%10), byte('0' + i/10%10), byte('0' + i%10)}), "0")
}

func TestSMSPublishToAPhoneNumber(t *testing.T) {
	gw := &fakeSMS{}
	e := newEnv(t, withSMS(gw))
	run(t, e.svc)
	topic := e.createTopic(t, "t", nil)
	tests := []struct {
		name    string
		in      sns.PublishInput
		message string
	}{
		{"no plus", sns.PublishInput{PhoneNumber: "15555550100", Message: "m"},
			"Invalid parameter: PhoneNumber Reason: 15555550100 is not valid to publish to"},
		{"letters", sns.PublishInput{PhoneNumber: "+1555CALLME", Message: "m"},
			"Invalid parameter: PhoneNumber Reason: +1555CALLME is not valid to publish to"},
		{"with a topic", sns.PublishInput{PhoneNumber: "+15555550100", TopicARN: topic, Message: "m"},
			"Invalid parameter: TopicArn or TargetArn Reason: Only one of TopicArn, TargetArn or PhoneNumber may be given"},
		{"empty message", sns.PublishInput{PhoneNumber: "+15555550100"}, "Invalid parameter: Empty message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Publish(e.ctx, caller, tc.in)
			wantError(t, err, sns.CodeInvalidParameter, tc.message)
		})
	}
	wantCode(t, e.svc.SetSMSAttributes(e.ctx, caller, map[string]string{"DefaultSenderID": "Herald", "DefaultSMSType": "Transactional"}), "")
	out := e.publish(t, sns.PublishInput{PhoneNumber: "+447700900123", Message: "your code is 1234"})
	m := waitSMS(t, gw, "+447700900123", 1)
	if m.MessageID != out.MessageID || m.Message != "your code is 1234" || m.SenderID != "Herald" || m.SMSType != "Transactional" ||
		m.Account != account || m.TopicARN != "" || m.SubscriptionARN != "" {
		t.Errorf("SMS = %+v, want the message with the account's defaults and no topic", m)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", m.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", m.Timestamp, err)
	}
	// The message's attributes override the account's defaults.
	e.publish(t, sns.PublishInput{PhoneNumber: "+447700900123", Message: "sale", MessageAttributes: map[string]sns.MessageAttributeValue{
		"AWS.SNS.SMS.SenderID": {DataType: "String", StringValue: "Shop"},
		"AWS.SNS.SMS.SMSType":  {DataType: "String", StringValue: "Promotional"},
		"AWS.SNS.SMS.MaxPrice": {DataType: "Number", StringValue: "0.5"},
	}})
	m = waitSMS(t, gw, "+447700900123", 2)
	if m.SenderID != "Shop" || m.SMSType != "Promotional" || m.MaxPrice != "0.5" {
		t.Errorf("SMS with attributes = %+v", m)
	}
	// Other reserved names stay reserved.
	_, err := e.svc.Publish(e.ctx, caller, sns.PublishInput{PhoneNumber: "+447700900123", Message: "m",
		MessageAttributes: map[string]sns.MessageAttributeValue{"AWS.Other": {DataType: "String", StringValue: "x"}}})
	wantCode(t, err, sns.CodeInvalidParameterValue)
}

// TestSMSWithoutAWebhookFailsVisibly: as on AWS, a Publish to a phone
// number and an sms subscription are taken on a server without an SMS
// gateway (--sms-webhook-url); their deliveries are given up, counted as
// dropped, or dead-lettered where the subscription has a redrive policy.
func TestSMSWithoutAWebhookFailsVisibly(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	if _, err := e.svc.Publish(e.ctx, caller, sns.PublishInput{PhoneNumber: "+15555550100", Message: "m"}); err != nil {
		t.Fatalf("Publish to a phone number without a gateway: %v; want it taken", err)
	}
	eventually(t, 10*time.Second, "the SMS given up", func() bool { return e.svc.Stats().Dropped.Load() == 1 })
	topic := e.createTopic(t, "t", nil)
	dlq := e.createQueue(t, "sms-dlq", nil)
	e.subscribe(t, topic, "sms", "+15555550100", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlq + `"}`})
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "to the dead letters"})
	eventually(t, 10*time.Second, "the SMS dead-lettered", func() bool { return e.svc.Stats().DeadLettered.Load() == 1 })
	if got := e.receiveBodies(t, "sms-dlq", 1); len(got) != 1 || !strings.Contains(got[0], "to the dead letters") {
		t.Errorf("the dead-letter queue holds %v, want the message", got)
	}
}

func TestSMSSubscription(t *testing.T) {
	gw := &fakeSMS{optOut: map[string]bool{"+15555550111": true}}
	e := newEnv(t, withSMS(gw))
	run(t, e.svc)
	topic := e.createTopic(t, "texts", nil)
	_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: "sms", Endpoint: "555-0100"})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid SMS endpoint: 555-0100")
	arn := e.subscribe(t, topic, "sms", "+1 (555) 555-0100", nil)
	attrs, err := e.svc.GetSubscriptionAttributes(e.ctx, caller, arn)
	wantCode(t, err, "")
	if attrs["Endpoint"] != "+15555550100" || attrs["PendingConfirmation"] != "false" {
		t.Fatalf("sms subscription attributes = %v, want endpoint +15555550100, confirmed", attrs)
	}
	e.subscribe(t, topic, "sms", "+15555550111", nil)
	out := e.publish(t, sns.PublishInput{TopicARN: topic, MessageStructure: "json",
		Message: `{"default": "long text for email", "sms": "short text"}`})
	m := waitSMS(t, gw, "+15555550100", 1)
	if m.Message != "short text" || m.MessageID != out.MessageID || m.TopicARN != topic || m.SubscriptionARN != arn || m.SMSType != "Promotional" {
		t.Errorf("SMS = %+v", m)
	}
	// The gateway said +15555550111 opted out: Herald records it.
	eventually(t, 10*time.Second, "the opt-out the gateway reported", func() bool {
		out, _ := e.svc.CheckIfPhoneNumberIsOptedOut(e.ctx, caller, "+15555550111")
		return out
	})
}

func TestSMSSandboxNumbers(t *testing.T) {
	gw := &fakeSMS{}
	e := newEnv(t, withSMS(gw))
	run(t, e.svc)
	const phone = "+15555550100"
	inSandbox, err := e.svc.GetSMSSandboxAccountStatus(e.ctx, caller)
	if err != nil || inSandbox {
		t.Fatalf("GetSMSSandboxAccountStatus = %v, %v; want false", inSandbox, err)
	}
	err = e.svc.CreateSMSSandboxPhoneNumber(e.ctx, caller, sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: phone, LanguageCode: "xx-XX"})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: LanguageCode")
	wantCode(t, e.svc.CreateSMSSandboxPhoneNumber(e.ctx, caller, sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: phone}), "")
	otpSMS := waitSMS(t, gw, phone, 1)
	otp := otpSMS.Message[strings.LastIndexByte(otpSMS.Message, ' ')+1:]
	if len(otp) != 6 || otpSMS.SMSType != "Transactional" {
		t.Fatalf("one-time password SMS = %+v", otpSMS)
	}
	list := func() []sns.SMSSandboxPhoneNumber {
		out, err := e.svc.ListSMSSandboxPhoneNumbers(e.ctx, caller, sns.ListSMSSandboxPhoneNumbersInput{})
		wantCode(t, err, "")
		return out.PhoneNumbers
	}
	if got := list(); !slices.Equal(got, []sns.SMSSandboxPhoneNumber{{PhoneNumber: phone, Status: "Pending"}}) {
		t.Fatalf("sandbox numbers = %v, want %s Pending", got, phone)
	}
	wrong := "000000"
	if otp == wrong {
		wrong = "111111"
	}
	err = e.svc.VerifySMSSandboxPhoneNumber(e.ctx, caller, sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: phone, OneTimePassword: wrong})
	wantCode(t, err, sns.CodeVerification)
	err = e.svc.VerifySMSSandboxPhoneNumber(e.ctx, caller, sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: phone, OneTimePassword: "12a45"})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: OneTimePassword")
	err = e.svc.VerifySMSSandboxPhoneNumber(e.ctx, caller, sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: "+15555550199", OneTimePassword: otp})
	wantCode(t, err, sns.CodeResourceNotFound)
	wantCode(t, e.svc.VerifySMSSandboxPhoneNumber(e.ctx, caller, sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: phone, OneTimePassword: otp}), "")
	if got := list(); !slices.Equal(got, []sns.SMSSandboxPhoneNumber{{PhoneNumber: phone, Status: "Verified"}}) {
		t.Fatalf("after verification sandbox numbers = %v", got)
	}
	// Creating a verified number again keeps it verified, without a new password.
	wantCode(t, e.svc.CreateSMSSandboxPhoneNumber(e.ctx, caller, sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: phone}), "")
	time.Sleep(200 * time.Millisecond)
	if got := list(); got[0].Status != "Verified" || len(gw.to(phone)) != 1 {
		t.Fatalf("after creating it again: %v, %d SMS", got, len(gw.to(phone)))
	}
	wantCode(t, e.svc.DeleteSMSSandboxPhoneNumber(e.ctx, caller, phone), "")
	wantCode(t, e.svc.DeleteSMSSandboxPhoneNumber(e.ctx, caller, phone), sns.CodeResourceNotFound)
	if got := list(); len(got) != 0 {
		t.Fatalf("after delete sandbox numbers = %v", got)
	}
	wantCode(t, e.svc.OptOutPhoneNumber(e.ctx, account, "+15555550177"), "")
	err = e.svc.CreateSMSSandboxPhoneNumber(e.ctx, caller, sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: "+15555550177"})
	wantCode(t, err, sns.CodeOptedOut)
	_, err = e.svc.ListSMSSandboxPhoneNumbers(e.ctx, caller, sns.ListSMSSandboxPhoneNumbersInput{MaxResults: 101})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: MaxResults")
}

func TestSMSSandboxNumbersPage(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"+15555550103", "+15555550101", "+15555550102"} {
		wantCode(t, e.svc.CreateSMSSandboxPhoneNumber(e.ctx, caller, sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: p}), "")
	}
	first, err := e.svc.ListSMSSandboxPhoneNumbers(e.ctx, caller, sns.ListSMSSandboxPhoneNumbersInput{MaxResults: 2})
	wantCode(t, err, "")
	second, err := e.svc.ListSMSSandboxPhoneNumbers(e.ctx, caller, sns.ListSMSSandboxPhoneNumbersInput{MaxResults: 2, NextToken: first.NextToken})
	wantCode(t, err, "")
	if len(first.PhoneNumbers) != 2 || first.NextToken == "" || len(second.PhoneNumbers) != 1 || second.NextToken != "" ||
		first.PhoneNumbers[0].PhoneNumber != "+15555550101" || second.PhoneNumbers[0].PhoneNumber != "+15555550103" {
		t.Errorf("pages %+v then %+v", first, second)
	}
}
