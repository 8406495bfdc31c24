package sns

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// Mobile push: platform applications and their endpoints (device tokens),
// Publish to an endpoint's ARN, and application subscriptions. A HERALD
// application's endpoints are SQS queues of its account that devices read
// over Herald's WebSocket gateway; the other platforms' pushes go to an
// HTTP push gateway (Config.Push). service_push.go has the actions,
// deliver_push.go the deliveries.

// ProtocolApplication subscribes a platform endpoint (its ARN) to a topic.
const ProtocolApplication = "application"

// Platforms of platform applications, as AWS names them; PlatformHerald
// is Herald's own.
const (
	PlatformHerald          = "HERALD"
	PlatformADM             = "ADM"
	PlatformAPNS            = "APNS"
	PlatformAPNSSandbox     = "APNS_SANDBOX"
	PlatformAPNSVoIP        = "APNS_VOIP"
	PlatformAPNSVoIPSandbox = "APNS_VOIP_SANDBOX"
	PlatformMacOS           = "MACOS"
	PlatformMacOSSandbox    = "MACOS_SANDBOX"
	PlatformBaidu           = "BAIDU"
	PlatformGCM             = "GCM"
	PlatformMPNS            = "MPNS"
	PlatformWNS             = "WNS"
)

var platforms = map[string]bool{
	PlatformHerald: true, PlatformADM: true, PlatformAPNS: true, PlatformAPNSSandbox: true,
	PlatformAPNSVoIP: true, PlatformAPNSVoIPSandbox: true, PlatformMacOS: true, PlatformMacOSSandbox: true,
	PlatformBaidu: true, PlatformGCM: true, PlatformMPNS: true, PlatformWNS: true,
}

// applePlatform reports whether platform authenticates with a principal
// and a credential together (a certificate and its key, or a signing key
// and its id).
func applePlatform(platform string) bool {
	return strings.HasPrefix(platform, "APNS") || strings.HasPrefix(platform, "MACOS")
}

// Attributes of platform applications, as AWS names them. Enabled is
// read-only on AWS; Herald lets SetPlatformApplicationAttributes change it
// (docs/sns.md).
const (
	AppAttrPlatformCredential        = "PlatformCredential"
	AppAttrPlatformPrincipal         = "PlatformPrincipal"
	AppAttrEventEndpointCreated      = "EventEndpointCreated"
	AppAttrEventEndpointDeleted      = "EventEndpointDeleted"
	AppAttrEventEndpointUpdated      = "EventEndpointUpdated"
	AppAttrEventDeliveryFailure      = "EventDeliveryFailure"
	AppAttrSuccessFeedbackRoleArn    = "SuccessFeedbackRoleArn"
	AppAttrFailureFeedbackRoleArn    = "FailureFeedbackRoleArn"
	AppAttrSuccessFeedbackSampleRate = "SuccessFeedbackSampleRate"
	AppAttrApplePlatformTeamID       = "ApplePlatformTeamID"
	AppAttrApplePlatformBundleID     = "ApplePlatformBundleID"
	AppAttrEnabled                   = "Enabled"
)

// Attributes of platform endpoints.
const (
	EndpointAttrCustomUserData = "CustomUserData"
	EndpointAttrEnabled        = "Enabled"
	EndpointAttrToken          = "Token"
)

// More error codes of mobile push.
const (
	CodeEndpointDisabled            = "EndpointDisabled"
	CodePlatformApplicationDisabled = "PlatformApplicationDisabled"
)

// Limits of mobile push.
const (
	MaxApplicationNameLength = 256
	MaxTokenLength           = 4096
	MaxCustomUserDataBytes   = 2048
)

type CreatePlatformApplicationInput struct {
	Name       string
	Platform   string
	Attributes map[string]string
}

type SetPlatformApplicationAttributesInput struct {
	PlatformApplicationARN string
	Attributes             map[string]string
}

// PlatformApplication is one entry of ListPlatformApplications.
type PlatformApplication struct {
	PlatformApplicationARN string
	Attributes             map[string]string
}

type ListPlatformApplicationsOutput struct {
	PlatformApplications []PlatformApplication
	NextToken            string
}

type CreatePlatformEndpointInput struct {
	PlatformApplicationARN string
	Token                  string
	CustomUserData         string
	Attributes             map[string]string
}

type SetEndpointAttributesInput struct {
	EndpointARN string
	Attributes  map[string]string
}

// PlatformEndpoint is one entry of ListEndpointsByPlatformApplication.
type PlatformEndpoint struct {
	EndpointARN string
	Attributes  map[string]string
}

type ListEndpointsByPlatformApplicationInput struct {
	PlatformApplicationARN string
	NextToken              string
}

type ListEndpointsByPlatformApplicationOutput struct {
	Endpoints []PlatformEndpoint
	NextToken string
}

// PushAPI is the mobile-push half of the SNS API; *Service implements it.
type PushAPI interface {
	CreatePlatformApplication(ctx context.Context, c Caller, in CreatePlatformApplicationInput) (arn string, err error)
	GetPlatformApplicationAttributes(ctx context.Context, c Caller, arn string) (map[string]string, error)
	SetPlatformApplicationAttributes(ctx context.Context, c Caller, in SetPlatformApplicationAttributesInput) error
	DeletePlatformApplication(ctx context.Context, c Caller, arn string) error
	ListPlatformApplications(ctx context.Context, c Caller, nextToken string) (ListPlatformApplicationsOutput, error)
	CreatePlatformEndpoint(ctx context.Context, c Caller, in CreatePlatformEndpointInput) (arn string, err error)
	GetEndpointAttributes(ctx context.Context, c Caller, arn string) (map[string]string, error)
	SetEndpointAttributes(ctx context.Context, c Caller, in SetEndpointAttributesInput) error
	DeleteEndpoint(ctx context.Context, c Caller, arn string) error
	ListEndpointsByPlatformApplication(ctx context.Context, c Caller, in ListEndpointsByPlatformApplicationInput) (ListEndpointsByPlatformApplicationOutput, error)
}

var _ PushAPI = (*Service)(nil)

// Push is one mobile push as Herald posts it to the push gateway (the JSON
// document docs/sns.md describes). TopicARN and SubscriptionARN are empty
// for a Publish to the endpoint's ARN.
type Push struct {
	MessageID              string `json:"messageId"`
	Platform               string `json:"platform"`
	Token                  string `json:"token"`
	Payload                string `json:"payload"`
	EndpointARN            string `json:"endpointArn"`
	PlatformApplicationARN string `json:"platformApplicationArn"`
	CustomUserData         string `json:"customUserData,omitempty"`
	TopicARN               string `json:"topicArn,omitempty"`
	SubscriptionARN        string `json:"subscriptionArn,omitempty"`
	Timestamp              string `json:"timestamp"`
}

// PushGateway hands pushes of the platforms other than HERALD to a gateway
// (snspush posts them to a URL). One attempt per call; the Service
// schedules retries, except after an error wrapped with Permanent.
// invalidToken reports that the gateway refused the device token for good:
// the Service then disables the endpoint, as AWS does when a platform
// says a token is no longer valid.
type PushGateway interface {
	SendPush(ctx context.Context, p Push) (invalidToken bool, err error)
}

// ApplicationARN returns arn:aws:sns:<region>:<account>:app/<platform>/<name>.
func ApplicationARN(region, account, platform, name string) string {
	return "arn:aws:sns:" + region + ":" + account + ":app/" + platform + "/" + name
}

// EndpointARN returns arn:aws:sns:<region>:<account>:endpoint/<platform>/<app>/<id>.
func EndpointARN(region, account, platform, app string, id uuid.UUID) string {
	return "arn:aws:sns:" + region + ":" + account + ":endpoint/" + platform + "/" + app + "/" + id.String()
}

// validApplicationName: 1 to 256 ASCII letters, digits, underscores,
// hyphens and periods.
func validApplicationName(name string) bool {
	if name == "" || len(name) > MaxApplicationNameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isNameChar(name[i]) && name[i] != '.' {
			return false
		}
	}
	return true
}

// appRef names a platform application: where it lives and what it is.
type appRef struct {
	Region, Account, Platform, Name string
}

func (a appRef) arn() string { return ApplicationARN(a.Region, a.Account, a.Platform, a.Name) }

// endpointRef names a platform endpoint.
type endpointRef struct {
	App appRef
	ID  uuid.UUID
}

func (e endpointRef) arn() string {
	return EndpointARN(e.App.Region, e.App.Account, e.App.Platform, e.App.Name, e.ID)
}

// splitResourceARN splits arn:<partition>:sns:<region>:<account>:<resource>
// and checks the parts every SNS ARN has.
func splitResourceARN(arn, param string) (region, account, resource string, err *Error) {
	p := strings.Split(arn, ":")
	if len(p) < 6 {
		return "", "", "", errARNElements(param, len(p))
	}
	if len(p) != 6 || p[0] != "arn" || p[1] == "" || p[2] != "sns" || p[3] == "" || !validAccount(p[4]) {
		return "", "", "", ErrInvalidParameter("%s", param)
	}
	return p[3], p[4], p[5], nil
}

// ParseApplicationARN splits a platform application's ARN; the error is
// InvalidParameter naming param.
func ParseApplicationARN(arn, param string) (region, account, platform, name string, err error) {
	a, e := parseApplicationARN(arn, param)
	if e != nil {
		return "", "", "", "", e
	}
	return a.Region, a.Account, a.Platform, a.Name, nil
}

func parseApplicationARN(arn, param string) (appRef, *Error) {
	region, account, res, e := splitResourceARN(arn, param)
	if e != nil {
		return appRef{}, e
	}
	p := strings.Split(res, "/")
	if len(p) != 3 || p[0] != "app" || !platforms[p[1]] || !validApplicationName(p[2]) {
		return appRef{}, ErrInvalidParameter("%s", param)
	}
	return appRef{Region: region, Account: account, Platform: p[1], Name: p[2]}, nil
}

// ParseEndpointARN splits a platform endpoint's ARN; the error is
// InvalidParameter naming param.
func ParseEndpointARN(arn, param string) (region, account, platform, app string, id uuid.UUID, err error) {
	ep, e := parseEndpointARN(arn, param)
	if e != nil {
		return "", "", "", "", uuid.Nil, e
	}
	return ep.App.Region, ep.App.Account, ep.App.Platform, ep.App.Name, ep.ID, nil
}

func parseEndpointARN(arn, param string) (endpointRef, *Error) {
	region, account, res, e := splitResourceARN(arn, param)
	if e != nil {
		return endpointRef{}, e
	}
	p := strings.Split(res, "/")
	if len(p) != 4 || p[0] != "endpoint" || !platforms[p[1]] || !validApplicationName(p[2]) || len(p[3]) != 36 {
		return endpointRef{}, ErrInvalidParameter("%s", param)
	}
	id, err := uuid.Parse(p[3])
	if err != nil {
		return endpointRef{}, ErrInvalidParameter("%s", param)
	}
	return endpointRef{App: appRef{Region: region, Account: account, Platform: p[1], Name: p[2]}, ID: id}, nil
}

// isEndpointARN reports whether arn names a platform endpoint rather than
// a topic (Publish's TargetArn takes either).
func isEndpointARN(arn string) bool {
	p := strings.SplitN(arn, ":", 6)
	return len(p) == 6 && strings.HasPrefix(p[5], "endpoint/")
}

// parseBoolAttr reads a true/false attribute in any case.
func parseBoolAttr(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func errBoolAttr(name, value string) *Error {
	return ErrInvalidParameter("Attributes Reason: %s: Invalid value [%s]. Must be true or false.", name, herald.Clip(value))
}
