package sns_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// fakePush records the pushes handed to the gateway; tokens in invalid
// are refused as invalid, and fails[token] pushes fail with a 5xx first.
type fakePush struct {
	mu      sync.Mutex
	sent    []sns.Push
	tries   map[string]int
	invalid map[string]bool
	fails   map[string]int
}

func newFakePush() *fakePush {
	return &fakePush{tries: map[string]int{}, invalid: map[string]bool{}, fails: map[string]int{}}
}

func (f *fakePush) SendPush(_ context.Context, p sns.Push) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries[p.Token]++
	if f.invalid[p.Token] {
		return true, sns.Permanent(errors.New("push gateway answered 410 Gone"))
	}
	if f.fails[p.Token] > 0 {
		f.fails[p.Token]--
		return false, errors.New("push gateway answered 502 Bad Gateway")
	}
	f.sent = append(f.sent, p)
	return false, nil
}

func (f *fakePush) to(token string) []sns.Push {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sns.Push
	for _, p := range f.sent {
		if p.Token == token {
			out = append(out, p)
		}
	}
	return out
}

func (f *fakePush) triesOf(token string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tries[token]
}

func withPush(g sns.PushGateway) option { return func(c *sns.Config) { c.Push = g } }

// fastRetry makes failed pushes come again after a second.
func fastRetry(c *sns.Config) {
	c.NotifyRetry = sns.DeliveryPolicy{NumRetries: 5, MinDelayTarget: 1, MaxDelayTarget: 1}
}

func (e *env) createApp(t *testing.T, name, platform string, attrs map[string]string) string {
	t.Helper()
	arn, err := e.svc.CreatePlatformApplication(e.ctx, caller, sns.CreatePlatformApplicationInput{Name: name, Platform: platform, Attributes: attrs})
	wantCode(t, err, "")
	return arn
}

func (e *env) createEndpoint(t *testing.T, app, token string, attrs map[string]string) string {
	t.Helper()
	arn, err := e.svc.CreatePlatformEndpoint(e.ctx, caller, sns.CreatePlatformEndpointInput{PlatformApplicationARN: app, Token: token, Attributes: attrs})
	wantCode(t, err, "")
	return arn
}

var gcmCreds = map[string]string{"PlatformCredential": "server-key"}

func TestCreatePlatformApplicationValidation(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name    string
		in      sns.CreatePlatformApplicationInput
		wantARN string
		code    string
		message string
	}{
		{"HERALD needs no credentials", sns.CreatePlatformApplicationInput{Name: "set-top.boxes_1", Platform: "HERALD"},
			"arn:aws:sns:us-east-1:000000000000:app/HERALD/set-top.boxes_1", "", ""},
		{"GCM with its key", sns.CreatePlatformApplicationInput{Name: "android", Platform: "GCM", Attributes: gcmCreds},
			"arn:aws:sns:us-east-1:000000000000:app/GCM/android", "", ""},
		{"APNS with certificate and key", sns.CreatePlatformApplicationInput{Name: "ios", Platform: "APNS",
			Attributes: map[string]string{"PlatformCredential": "key", "PlatformPrincipal": "cert", "EventEndpointCreated": "arn:aws:sns:us-east-1:000000000000:events"}},
			"arn:aws:sns:us-east-1:000000000000:app/APNS/ios", "", ""},
		{"an unknown platform", sns.CreatePlatformApplicationInput{Name: "x", Platform: "PIGEON"}, "", sns.CodeInvalidParameter,
			"Invalid parameter: Platform Reason: PIGEON is not supported"},
		{"a name with a slash", sns.CreatePlatformApplicationInput{Name: "a/b", Platform: "HERALD"}, "", sns.CodeInvalidParameter,
			"Invalid parameter: Name Reason: must be 1 to 256 ASCII letters, digits, underscores, hyphens and periods"},
		{"a name too long", sns.CreatePlatformApplicationInput{Name: strings.Repeat("a", 257), Platform: "HERALD"}, "", sns.CodeInvalidParameter,
			"Invalid parameter: Name Reason: must be 1 to 256 ASCII letters, digits, underscores, hyphens and periods"},
		{"GCM without a key", sns.CreatePlatformApplicationInput{Name: "g", Platform: "GCM"}, "", sns.CodeInvalidParameter,
			"Invalid parameter: Attributes Reason: PlatformCredential attribute is required for platform GCM"},
		{"APNS without the principal", sns.CreatePlatformApplicationInput{Name: "i", Platform: "APNS_SANDBOX", Attributes: map[string]string{"PlatformCredential": "k"}},
			"", sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: PlatformCredential attribute provided without PlatformPrincipal"},
		{"a principal without its credential", sns.CreatePlatformApplicationInput{Name: "i", Platform: "APNS", Attributes: map[string]string{"PlatformPrincipal": "c"}},
			"", sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential"},
		{"an unknown attribute", sns.CreatePlatformApplicationInput{Name: "h", Platform: "HERALD", Attributes: map[string]string{"Colour": "red"}},
			"", sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: Invalid attribute name: Colour"},
		{"an event that is not a topic", sns.CreatePlatformApplicationInput{Name: "h", Platform: "HERALD", Attributes: map[string]string{"EventDeliveryFailure": "nope"}},
			"", sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: EventDeliveryFailure: nope is not a topic ARN"},
		{"a sample rate over 100", sns.CreatePlatformApplicationInput{Name: "h", Platform: "HERALD", Attributes: map[string]string{"SuccessFeedbackSampleRate": "101"}},
			"", sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: SuccessFeedbackSampleRate: must be a whole percentage from 0 to 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arn, err := e.svc.CreatePlatformApplication(e.ctx, caller, tc.in)
			if tc.code != "" {
				wantError(t, err, tc.code, tc.message)
				return
			}
			wantCode(t, err, "")
			if arn != tc.wantARN {
				t.Errorf("ARN %s, want %s", arn, tc.wantARN)
			}
		})
	}
}

func TestPlatformApplicationAttributes(t *testing.T) {
	e := newEnv(t)
	app := e.createApp(t, "ios", "APNS", map[string]string{"PlatformCredential": "key", "PlatformPrincipal": "cert", "SuccessFeedbackSampleRate": "50"})
	got, err := e.svc.GetPlatformApplicationAttributes(e.ctx, caller, app)
	wantCode(t, err, "")
	// The credentials are never shown, as on AWS; Enabled is.
	if fmt.Sprint(got) != "map[Enabled:true SuccessFeedbackSampleRate:50]" {
		t.Errorf("attributes %v", got)
	}
	wantCode(t, e.svc.SetPlatformApplicationAttributes(e.ctx, caller, sns.SetPlatformApplicationAttributesInput{
		PlatformApplicationARN: app, Attributes: map[string]string{"SuccessFeedbackSampleRate": "", "Enabled": "FALSE", "ApplePlatformTeamID": "TEAM"}}), "")
	got, _ = e.svc.GetPlatformApplicationAttributes(e.ctx, caller, app)
	if fmt.Sprint(got) != "map[ApplePlatformTeamID:TEAM Enabled:false]" {
		t.Errorf("after Set: attributes %v", got)
	}
	err = e.svc.SetPlatformApplicationAttributes(e.ctx, caller, sns.SetPlatformApplicationAttributesInput{
		PlatformApplicationARN: app, Attributes: map[string]string{"PlatformCredential": ""}})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential")
	// Creating it again sets the attributes given and answers the same ARN.
	again := e.createApp(t, "ios", "APNS", map[string]string{"PlatformCredential": "key2", "PlatformPrincipal": "cert2", "Enabled": "true"})
	if again != app {
		t.Errorf("created again: %s, want %s", again, app)
	}
	got, _ = e.svc.GetPlatformApplicationAttributes(e.ctx, caller, app)
	if got["Enabled"] != "true" || got["ApplePlatformTeamID"] != "TEAM" {
		t.Errorf("after creating again: %v", got)
	}
	missing := "arn:aws:sns:us-east-1:000000000000:app/GCM/missing"
	_, err = e.svc.GetPlatformApplicationAttributes(e.ctx, caller, missing)
	wantError(t, err, sns.CodeNotFound, "PlatformApplication does not exist")
	for _, bad := range []string{"app/GCM/x", "arn:aws:sns:us-east-1:000000000000:app/GCM", "arn:aws:sns:us-east-1:000000000000:app/PIGEON/x",
		"arn:aws:sns:us-east-1:000000000000:endpoint/GCM/x/6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab"} {
		_, err = e.svc.GetPlatformApplicationAttributes(e.ctx, caller, bad)
		wantCode(t, err, sns.CodeInvalidParameter)
	}
	_, err = e.svc.GetPlatformApplicationAttributes(e.ctx, caller, "app/GCM/x")
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: PlatformApplicationArn Reason: An ARN must have at least 6 elements, not 1")
}

func TestListPlatformApplicationsPages(t *testing.T) {
	e := newEnv(t)
	want := map[string]bool{}
	for i := range 105 {
		want[e.createApp(t, fmt.Sprintf("app-%03d", i), "HERALD", nil)] = true
	}
	seen := map[string]bool{}
	token, pages := "", 0
	for {
		out, err := e.svc.ListPlatformApplications(e.ctx, caller, token)
		wantCode(t, err, "")
		pages++
		for _, a := range out.PlatformApplications {
			if seen[a.PlatformApplicationARN] || !want[a.PlatformApplicationARN] || a.Attributes["Enabled"] != "true" {
				t.Fatalf("page %d lists %+v", pages, a)
			}
			seen[a.PlatformApplicationARN] = true
		}
		if token = out.NextToken; token == "" {
			break
		}
	}
	if pages != 2 || len(seen) != 105 {
		t.Errorf("%d pages listing %d applications, want 2 and 105", pages, len(seen))
	}
	_, err := e.svc.ListPlatformApplications(e.ctx, caller, "!!")
	wantCode(t, err, sns.CodeInvalidParameter)
}

func TestCreatePlatformEndpointIdempotency(t *testing.T) {
	e := newEnv(t)
	app := e.createApp(t, "android", "GCM", gcmCreds)
	first, err := e.svc.CreatePlatformEndpoint(e.ctx, caller, sns.CreatePlatformEndpointInput{PlatformApplicationARN: app, Token: "tok-1", CustomUserData: "user 7"})
	wantCode(t, err, "")
	if !strings.HasPrefix(first, "arn:aws:sns:us-east-1:000000000000:endpoint/GCM/android/") || len(first) != len("arn:aws:sns:us-east-1:000000000000:endpoint/GCM/android/")+36 {
		t.Fatalf("endpoint ARN %s", first)
	}
	tests := []struct {
		name    string
		in      sns.CreatePlatformEndpointInput
		same    bool
		message string
	}{
		{"the same token and data", sns.CreatePlatformEndpointInput{Token: "tok-1", CustomUserData: "user 7"}, true, ""},
		{"the same, data as an attribute", sns.CreatePlatformEndpointInput{Token: "tok-1", Attributes: map[string]string{"CustomUserData": "user 7", "Enabled": "True"}}, true, ""},
		{"other data", sns.CreatePlatformEndpointInput{Token: "tok-1", CustomUserData: "user 8"}, false,
			"Invalid parameter: Token Reason: Endpoint " + first + " already exists with the same Token, but different attributes."},
		{"disabled", sns.CreatePlatformEndpointInput{Token: "tok-1", CustomUserData: "user 7", Attributes: map[string]string{"Enabled": "false"}}, false,
			"Invalid parameter: Token Reason: Endpoint " + first + " already exists with the same Token, but different attributes."},
		{"no data", sns.CreatePlatformEndpointInput{Token: "tok-1"}, false,
			"Invalid parameter: Token Reason: Endpoint " + first + " already exists with the same Token, but different attributes."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.PlatformApplicationARN = app
			arn, err := e.svc.CreatePlatformEndpoint(e.ctx, caller, tc.in)
			if !tc.same {
				wantError(t, err, sns.CodeInvalidParameter, tc.message)
				return
			}
			wantCode(t, err, "")
			if arn != first {
				t.Errorf("ARN %s, want the first endpoint's %s", arn, first)
			}
		})
	}
	got, err := e.svc.GetEndpointAttributes(e.ctx, caller, first)
	wantCode(t, err, "")
	if fmt.Sprint(got) != "map[CustomUserData:user 7 Enabled:true Token:tok-1]" {
		t.Errorf("attributes %v", got)
	}
	// Deleted, then created again: a new endpoint.
	wantCode(t, e.svc.DeleteEndpoint(e.ctx, caller, first), "")
	wantCode(t, e.svc.DeleteEndpoint(e.ctx, caller, first), "")
	_, err = e.svc.GetEndpointAttributes(e.ctx, caller, first)
	wantError(t, err, sns.CodeNotFound, "Endpoint does not exist")
	if again := e.createEndpoint(t, app, "tok-1", nil); again == first {
		t.Errorf("after DeleteEndpoint the token got the old ARN again")
	}
}

func TestPlatformEndpointValidation(t *testing.T) {
	e := newEnv(t)
	gcm := e.createApp(t, "android", "GCM", gcmCreds)
	herald := e.createApp(t, "boxes", "HERALD", nil)
	tests := []struct {
		name    string
		in      sns.CreatePlatformEndpointInput
		code    string
		message string
	}{
		{"an empty token", sns.CreatePlatformEndpointInput{PlatformApplicationARN: gcm}, sns.CodeInvalidParameter, "Invalid parameter: Token Reason: cannot be empty"},
		{"a HERALD token that is no queue name", sns.CreatePlatformEndpointInput{PlatformApplicationARN: herald, Token: "box 1"}, sns.CodeInvalidParameter,
			"Invalid parameter: Token Reason: a HERALD token is the name of a standard SQS queue of the application's account: 1 to 80 letters, digits, hyphens and underscores"},
		{"a HERALD token of a FIFO queue", sns.CreatePlatformEndpointInput{PlatformApplicationARN: herald, Token: "box.fifo"}, sns.CodeInvalidParameter,
			"Invalid parameter: Token Reason: a HERALD token is the name of a standard SQS queue of the application's account: 1 to 80 letters, digits, hyphens and underscores"},
		{"Enabled not a boolean", sns.CreatePlatformEndpointInput{PlatformApplicationARN: gcm, Token: "t", Attributes: map[string]string{"Enabled": "yes"}},
			sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: Enabled: Invalid value [yes]. Must be true or false."},
		{"an unknown attribute", sns.CreatePlatformEndpointInput{PlatformApplicationARN: gcm, Token: "t", Attributes: map[string]string{"Colour": "red"}},
			sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: Invalid attribute name: Colour"},
		{"user data too long", sns.CreatePlatformEndpointInput{PlatformApplicationARN: gcm, Token: "t", CustomUserData: strings.Repeat("x", 2049)},
			sns.CodeInvalidParameter, "Invalid parameter: Attributes Reason: CustomUserData must be UTF-8 and at most 2048 bytes"},
		{"a missing application", sns.CreatePlatformEndpointInput{PlatformApplicationARN: "arn:aws:sns:us-east-1:000000000000:app/GCM/nope", Token: "t"},
			sns.CodeNotFound, "PlatformApplication does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.CreatePlatformEndpoint(e.ctx, caller, tc.in)
			wantError(t, err, tc.code, tc.message)
		})
	}
	// A HERALD endpoint's token is a queue of the account, created if
	// missing.
	e.createEndpoint(t, herald, "box-1", nil)
	if _, err := e.queues.GetQueueURL(e.ctx, sqs.Caller{Account: account}, sqs.GetQueueURLInput{QueueName: "box-1"}); err != nil {
		t.Errorf("the token's queue: %v", err)
	}
	ep := e.createEndpoint(t, gcm, "old-token", nil)
	other := e.createEndpoint(t, gcm, "taken", nil)
	err := e.svc.SetEndpointAttributes(e.ctx, caller, sns.SetEndpointAttributesInput{EndpointARN: ep, Attributes: map[string]string{"Token": "taken"}})
	wantError(t, err, sns.CodeInvalidParameter, "Invalid parameter: Token Reason: Endpoint "+other+" already exists with the same Token")
	wantCode(t, e.svc.SetEndpointAttributes(e.ctx, caller, sns.SetEndpointAttributesInput{EndpointARN: ep,
		Attributes: map[string]string{"Token": "new-token", "CustomUserData": "d", "Enabled": "FALSE"}}), "")
	got, _ := e.svc.GetEndpointAttributes(e.ctx, caller, ep)
	if fmt.Sprint(got) != "map[CustomUserData:d Enabled:false Token:new-token]" {
		t.Errorf("after SetEndpointAttributes: %v", got)
	}
	// The new token finds the endpoint; the old one is free.
	same, err := e.svc.CreatePlatformEndpoint(e.ctx, caller, sns.CreatePlatformEndpointInput{PlatformApplicationARN: gcm, Token: "new-token",
		CustomUserData: "d", Attributes: map[string]string{"Enabled": "false"}})
	wantCode(t, err, "")
	if same != ep {
		t.Errorf("the new token's endpoint %s, want %s", same, ep)
	}
	if fresh := e.createEndpoint(t, gcm, "old-token", nil); fresh == ep {
		t.Error("the old token still names the endpoint")
	}
}

func TestListEndpointsByPlatformApplicationPages(t *testing.T) {
	e := newEnv(t)
	app := e.createApp(t, "android", "GCM", gcmCreds)
	otherApp := e.createApp(t, "android2", "GCM", gcmCreds)
	e.createEndpoint(t, otherApp, "elsewhere", nil)
	want := map[string]string{}
	for i := range 130 {
		tok := fmt.Sprintf("tok-%d", i)
		want[e.createEndpoint(t, app, tok, nil)] = tok
	}
	seen := map[string]bool{}
	token, pages := "", 0
	for {
		out, err := e.svc.ListEndpointsByPlatformApplication(e.ctx, caller, sns.ListEndpointsByPlatformApplicationInput{PlatformApplicationARN: app, NextToken: token})
		wantCode(t, err, "")
		pages++
		for _, ep := range out.Endpoints {
			if seen[ep.EndpointARN] || want[ep.EndpointARN] != ep.Attributes["Token"] || ep.Attributes["Enabled"] != "true" {
				t.Fatalf("page %d lists %+v", pages, ep)
			}
			seen[ep.EndpointARN] = true
		}
		if token = out.NextToken; token == "" {
			break
		}
	}
	if pages != 2 || len(seen) != 130 {
		t.Errorf("%d pages listing %d endpoints, want 2 and 130", pages, len(seen))
	}
	// Deleting the application deletes its endpoints, and is idempotent.
	wantCode(t, e.svc.DeletePlatformApplication(e.ctx, caller, app), "")
	wantCode(t, e.svc.DeletePlatformApplication(e.ctx, caller, app), "")
	for ep := range want {
		_, err := e.svc.GetEndpointAttributes(e.ctx, caller, ep)
		wantCode(t, err, sns.CodeNotFound)
		break
	}
	_, err := e.svc.ListEndpointsByPlatformApplication(e.ctx, caller, sns.ListEndpointsByPlatformApplicationInput{PlatformApplicationARN: app})
	wantError(t, err, sns.CodeNotFound, "PlatformApplication does not exist")
	out, err := e.svc.ListEndpointsByPlatformApplication(e.ctx, caller, sns.ListEndpointsByPlatformApplicationInput{PlatformApplicationARN: otherApp})
	if err != nil || len(out.Endpoints) != 1 {
		t.Errorf("the other application's endpoints: %+v, %v", out, err)
	}
}

func TestPushAuthorization(t *testing.T) {
	e := newEnv(t)
	app := e.createApp(t, "boxes", "HERALD", nil)
	ep := e.createEndpoint(t, app, "box-1", nil)
	other := sns.Caller{Account: "111111111111", SenderID: "AKIDOTHER"}
	internal := sqs.InternalCaller("herald-sns")
	for _, c := range []sns.Caller{other, internal, {Account: "herald-sns"}} {
		calls := map[string]func() error{
			"GetPlatformApplicationAttributes": func() error {
				_, err := e.svc.GetPlatformApplicationAttributes(e.ctx, c, app)
				return err
			},
			"SetPlatformApplicationAttributes": func() error {
				return e.svc.SetPlatformApplicationAttributes(e.ctx, c, sns.SetPlatformApplicationAttributesInput{PlatformApplicationARN: app})
			},
			"DeletePlatformApplication": func() error { return e.svc.DeletePlatformApplication(e.ctx, c, app) },
			"CreatePlatformEndpoint": func() error {
				_, err := e.svc.CreatePlatformEndpoint(e.ctx, c, sns.CreatePlatformEndpointInput{PlatformApplicationARN: app, Token: "stolen"})
				return err
			},
			"ListEndpointsByPlatformApplication": func() error {
				_, err := e.svc.ListEndpointsByPlatformApplication(e.ctx, c, sns.ListEndpointsByPlatformApplicationInput{PlatformApplicationARN: app})
				return err
			},
			"GetEndpointAttributes": func() error {
				_, err := e.svc.GetEndpointAttributes(e.ctx, c, ep)
				return err
			},
			"SetEndpointAttributes": func() error {
				return e.svc.SetEndpointAttributes(e.ctx, c, sns.SetEndpointAttributesInput{EndpointARN: ep, Attributes: map[string]string{"Enabled": "false"}})
			},
			"DeleteEndpoint": func() error { return e.svc.DeleteEndpoint(e.ctx, c, ep) },
			"Publish": func() error {
				_, err := e.svc.Publish(e.ctx, c, sns.PublishInput{TargetARN: ep, Message: "m"})
				return err
			},
		}
		for action, call := range calls {
			t.Run(c.Account+"/"+action, func(t *testing.T) {
				wantCode(t, call(), sns.CodeAuthorizationError)
			})
		}
	}
	// Nothing changed: the endpoint is still there, enabled.
	got, err := e.svc.GetEndpointAttributes(e.ctx, caller, ep)
	if err != nil || got["Enabled"] != "true" {
		t.Errorf("after the refused calls: %v, %v", got, err)
	}
	// The other account's own list does not show ours; internal accounts
	// cannot list or create.
	out, err := e.svc.ListPlatformApplications(e.ctx, other, "")
	if err != nil || len(out.PlatformApplications) != 0 {
		t.Errorf("the other account lists %+v, %v", out, err)
	}
	_, err = e.svc.ListPlatformApplications(e.ctx, internal, "")
	wantCode(t, err, sns.CodeAuthorizationError)
	_, err = e.svc.CreatePlatformApplication(e.ctx, sns.Caller{Account: "herald-sns"}, sns.CreatePlatformApplicationInput{Name: "x", Platform: "HERALD"})
	wantCode(t, err, sns.CodeAuthorizationError)
}

// receiveBodies waits for n messages in queue and returns their bodies.
func (e *env) receiveBodies(t *testing.T, queue string, n int) []string {
	t.Helper()
	var got []string
	eventually(t, 10*time.Second, fmt.Sprintf("%d messages in %s", n, queue), func() bool {
		for _, m := range e.drain(t, queue) {
			got = append(got, m.Body)
		}
		return len(got) >= n
	})
	return got
}

func TestPublishToEndpointsRoutes(t *testing.T) {
	gw := newFakePush()
	e := newEnv(t, withPush(gw))
	run(t, e.svc)
	boxes := e.createApp(t, "boxes", "HERALD", nil)
	box := e.createEndpoint(t, boxes, "box-1", nil)
	android := e.createApp(t, "android", "GCM", gcmCreds)
	phone, err := e.svc.CreatePlatformEndpoint(e.ctx, caller, sns.CreatePlatformEndpointInput{PlatformApplicationARN: android, Token: "gcm-tok", CustomUserData: "user 7"})
	wantCode(t, err, "")
	ios := e.createApp(t, "ios", "APNS", map[string]string{"PlatformCredential": "k", "PlatformPrincipal": "c"})
	iphone := e.createEndpoint(t, ios, "apns-tok", nil)

	structured := `{"default": "plain", "HERALD": "{\"box\":true}", "GCM": "{\"data\":{\"m\":1}}", "APNS_SANDBOX": "not mine"}`
	tests := []struct {
		name      string
		target    string
		message   string
		structure string
		want      string
	}{
		{"HERALD, a plain message", box, "hello box", "", "hello box"},
		{"HERALD, its member of a structure", box, structured, "json", `{"box":true}`},
		{"GCM, a plain message", phone, "hello phone", "", "hello phone"},
		{"GCM, its member", phone, structured, "json", `{"data":{"m":1}}`},
		{"APNS, default", iphone, structured, "json", "plain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := e.publish(t, sns.PublishInput{TargetARN: tc.target, Message: tc.message, MessageStructure: tc.structure})
			switch tc.target {
			case box:
				if got := e.receiveBodies(t, "box-1", 1); len(got) != 1 || got[0] != tc.want {
					t.Errorf("the box's queue got %q, want %q", got, tc.want)
				}
			default:
				token := map[string]string{phone: "gcm-tok", iphone: "apns-tok"}[tc.target]
				eventually(t, 10*time.Second, "the push", func() bool {
					for _, p := range gw.to(token) {
						if p.MessageID == out.MessageID {
							return true
						}
					}
					return false
				})
				var p sns.Push
				for _, q := range gw.to(token) {
					if q.MessageID == out.MessageID {
						p = q
					}
				}
				platform, app := "GCM", android
				if tc.target == iphone {
					platform, app = "APNS", ios
				}
				if p.Payload != tc.want || p.Platform != platform || p.EndpointARN != tc.target || p.PlatformApplicationARN != app ||
					p.Timestamp == "" || p.TopicARN != "" || p.SubscriptionARN != "" {
					t.Errorf("gateway got %+v, want payload %q", p, tc.want)
				}
				if tc.target == phone && p.CustomUserData != "user 7" {
					t.Errorf("gateway got custom user data %q", p.CustomUserData)
				}
			}
		})
	}
}

func TestPublishToEndpointRefusals(t *testing.T) {
	e := newEnv(t) // no push gateway
	boxes := e.createApp(t, "boxes", "HERALD", nil)
	box := e.createEndpoint(t, boxes, "box-1", nil)
	off := e.createEndpoint(t, boxes, "box-2", map[string]string{"Enabled": "false"})
	android := e.createApp(t, "android", "GCM", gcmCreds)
	phone := e.createEndpoint(t, android, "gcm-tok", nil)
	offApp := e.createApp(t, "retired", "HERALD", map[string]string{"Enabled": "false"})
	retired := e.createEndpoint(t, offApp, "box-3", nil)
	missing := strings.TrimSuffix(box, box[len(box)-36:]) + "6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab"
	tests := []struct {
		name    string
		in      sns.PublishInput
		code    string
		message string
	}{
		{"a disabled endpoint", sns.PublishInput{TargetARN: off, Message: "m"}, sns.CodeEndpointDisabled, "Endpoint is disabled"},
		{"a disabled application", sns.PublishInput{TargetARN: retired, Message: "m"}, sns.CodePlatformApplicationDisabled, "Platform application is disabled"},
		{"a missing endpoint", sns.PublishInput{TargetARN: missing, Message: "m"}, sns.CodeInvalidParameter,
			"Invalid parameter: TargetArn Reason: No endpoint found for the target arn specified"},
		{"a structure without default", sns.PublishInput{TargetARN: box, Message: `{"HERALD": "x"}`, MessageStructure: "json"}, sns.CodeInvalidParameter,
			"Invalid parameter: Message Structure - No default entry in JSON message body"},
		{"a bad endpoint ARN", sns.PublishInput{TargetARN: "arn:aws:sns:us-east-1:000000000000:endpoint/GCM/android/x", Message: "m"}, sns.CodeInvalidParameter,
			"Invalid parameter: TargetArn"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Publish(e.ctx, caller, tc.in)
			wantError(t, err, tc.code, tc.message)
		})
	}
	e.publish(t, sns.PublishInput{TargetARN: box, Message: "HERALD needs no gateway"})
	// A GCM endpoint without a push gateway: taken, as on AWS, and the
	// push given up (counted as dropped) for want of a gateway.
	run(t, e.svc)
	e.publish(t, sns.PublishInput{TargetARN: phone, Message: "no gateway"})
	eventually(t, 10*time.Second, "the push given up", func() bool { return e.svc.Stats().Dropped.Load() == 1 })
}

func TestPushGatewayInvalidTokenDisablesTheEndpoint(t *testing.T) {
	gw := newFakePush()
	gw.invalid["stale"] = true
	gw.fails["flaky"] = 2
	e := newEnv(t, withPush(gw), fastRetry)
	run(t, e.svc)
	app := e.createApp(t, "android", "GCM", gcmCreds)
	stale := e.createEndpoint(t, app, "stale", nil)
	flaky := e.createEndpoint(t, app, "flaky", nil)
	e.publish(t, sns.PublishInput{TargetARN: stale, Message: "m"})
	eventually(t, 10*time.Second, "the endpoint disabled", func() bool {
		got, err := e.svc.GetEndpointAttributes(e.ctx, caller, stale)
		return err == nil && got["Enabled"] == "false"
	})
	_, err := e.svc.Publish(e.ctx, caller, sns.PublishInput{TargetARN: stale, Message: "m"})
	wantError(t, err, sns.CodeEndpointDisabled, "Endpoint is disabled")
	if n := gw.triesOf("stale"); n != 1 {
		t.Errorf("the invalid token was tried %d times, want once", n)
	}
	// 5xx answers are retried until the gateway takes the push.
	e.publish(t, sns.PublishInput{TargetARN: flaky, Message: "again"})
	eventually(t, 15*time.Second, "the retried push", func() bool { return len(gw.to("flaky")) == 1 })
	if n := gw.triesOf("flaky"); n != 3 {
		t.Errorf("the flaky token was tried %d times, want 3", n)
	}
	got, _ := e.svc.GetEndpointAttributes(e.ctx, caller, flaky)
	if got["Enabled"] != "true" {
		t.Errorf("a 5xx disabled the endpoint: %v", got)
	}
}

func TestApplicationSubscriptions(t *testing.T) {
	gw := newFakePush()
	e := newEnv(t, withPush(gw))
	run(t, e.svc)
	boxes := e.createApp(t, "boxes", "HERALD", nil)
	box := e.createEndpoint(t, boxes, "box-1", nil)
	off := e.createEndpoint(t, boxes, "box-2", map[string]string{"Enabled": "false"})
	android := e.createApp(t, "android", "GCM", gcmCreds)
	phone := e.createEndpoint(t, android, "gcm-tok", nil)
	topic := e.createTopic(t, "alerts", nil)
	subBox := e.subscribe(t, topic, "application", box, nil)
	e.subscribe(t, topic, "application", off, nil)
	subPhone := e.subscribe(t, topic, "application", phone, nil)

	e.publish(t, sns.PublishInput{TopicARN: topic, Message: `{"default": "storm", "GCM": "{\"n\":1}"}`, MessageStructure: "json"})
	if got := e.receiveBodies(t, "box-1", 1); got[0] != "storm" {
		t.Errorf("the box got %q", got)
	}
	eventually(t, 10*time.Second, "the push", func() bool { return len(gw.to("gcm-tok")) == 1 })
	p := gw.to("gcm-tok")[0]
	if p.Payload != `{"n":1}` || p.TopicARN != topic || p.SubscriptionARN != subPhone {
		t.Errorf("gateway got %+v", p)
	}
	if !strings.HasPrefix(subBox, topic+":") {
		t.Errorf("subscription ARN %s", subBox)
	}
	// The disabled endpoint got nothing: its queue was never written.
	eventually(t, 5*time.Second, "the disabled endpoint's delivery dropped", func() bool { return e.svc.Stats().Dropped.Load() >= 1 })
	if got := e.drain(t, "box-2"); len(got) != 0 {
		t.Errorf("the disabled endpoint got %d messages", len(got))
	}

	fifo := e.createTopic(t, "alerts.fifo", map[string]string{"FifoTopic": "true"})
	other := sns.Caller{Account: "111111111111"}
	otherApp, err := e.svc.CreatePlatformApplication(e.ctx, other, sns.CreatePlatformApplicationInput{Name: "theirs", Platform: "HERALD"})
	wantCode(t, err, "")
	theirs, err := e.svc.CreatePlatformEndpoint(e.ctx, other, sns.CreatePlatformEndpointInput{PlatformApplicationARN: otherApp, Token: "their-box"})
	wantCode(t, err, "")
	tests := []struct {
		name     string
		topic    string
		endpoint string
		code     string
	}{
		{"a FIFO topic", fifo, box, sns.CodeInvalidParameter},
		{"not an endpoint ARN", topic, "box-1", sns.CodeInvalidParameter},
		{"a missing endpoint", topic, strings.TrimSuffix(box, box[len(box)-36:]) + "6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab", sns.CodeInvalidParameter},
		{"another account's endpoint", topic, theirs, sns.CodeAuthorizationError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: tc.topic, Protocol: "application", Endpoint: tc.endpoint})
			wantCode(t, err, tc.code)
		})
	}
}
