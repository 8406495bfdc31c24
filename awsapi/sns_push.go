package awsapi

import (
	"context"
	"encoding/xml"

	"github.com/heraldmq/herald/sns"
)

// The mobile-push actions of SNS (platform applications and endpoints),
// with the model's parameter and result names.

// pushAction adapts a mobile-push action to snsAction; an API without
// the push half answers InvalidAction.
func pushAction(action string, f func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error)) snsAction {
	return func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		s, ok := api.(sns.PushAPI)
		if !ok {
			return nil, sns.NewError(sns.CodeInvalidAction, "Could not find operation %s for version 2010-03-31", action)
		}
		return f(ctx, s, c, p)
	}
}

func init() {
	for name, act := range pushActions {
		snsActions[name] = act
	}
}

var pushActions = map[string]snsAction{
	"CreatePlatformApplication": pushAction("CreatePlatformApplication", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := p.stringMap("Attributes")
		if err != nil {
			return nil, err
		}
		arn, err := api.CreatePlatformApplication(ctx, c, sns.CreatePlatformApplicationInput{Name: p.str("Name"), Platform: p.str("Platform"), Attributes: attrs})
		return &xmlPlatformApplicationARNResult{PlatformApplicationARN: arn}, err
	}),
	"GetPlatformApplicationAttributes": pushAction("GetPlatformApplicationAttributes", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := api.GetPlatformApplicationAttributes(ctx, c, p.str("PlatformApplicationArn"))
		return &xmlAttributesResult{XMLName: resultName("GetPlatformApplicationAttributes"), Attributes: xmlEntries(attrs)}, err
	}),
	"SetPlatformApplicationAttributes": pushAction("SetPlatformApplicationAttributes", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := p.stringMap("Attributes")
		if err != nil {
			return nil, err
		}
		err = api.SetPlatformApplicationAttributes(ctx, c, sns.SetPlatformApplicationAttributesInput{PlatformApplicationARN: p.str("PlatformApplicationArn"), Attributes: attrs})
		return &xmlEmptyResult{XMLName: resultName("SetPlatformApplicationAttributes")}, err
	}),
	"DeletePlatformApplication": pushAction("DeletePlatformApplication", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		err := api.DeletePlatformApplication(ctx, c, p.str("PlatformApplicationArn"))
		return &xmlEmptyResult{XMLName: resultName("DeletePlatformApplication")}, err
	}),
	"ListPlatformApplications": pushAction("ListPlatformApplications", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		out, err := api.ListPlatformApplications(ctx, c, p.str("NextToken"))
		res := &xmlPlatformApplicationsResult{NextToken: out.NextToken}
		res.PlatformApplications.Members = make([]xmlPlatformApplication, 0, len(out.PlatformApplications))
		for _, a := range out.PlatformApplications {
			res.PlatformApplications.Members = append(res.PlatformApplications.Members,
				xmlPlatformApplication{PlatformApplicationARN: a.PlatformApplicationARN, Attributes: xmlEntries(a.Attributes)})
		}
		return res, err
	}),
	"CreatePlatformEndpoint": pushAction("CreatePlatformEndpoint", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := p.stringMap("Attributes")
		if err != nil {
			return nil, err
		}
		arn, err := api.CreatePlatformEndpoint(ctx, c, sns.CreatePlatformEndpointInput{PlatformApplicationARN: p.str("PlatformApplicationArn"),
			Token: p.str("Token"), CustomUserData: p.str("CustomUserData"), Attributes: attrs})
		return &xmlEndpointARNResult{EndpointARN: arn}, err
	}),
	"GetEndpointAttributes": pushAction("GetEndpointAttributes", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := api.GetEndpointAttributes(ctx, c, p.str("EndpointArn"))
		return &xmlAttributesResult{XMLName: resultName("GetEndpointAttributes"), Attributes: xmlEntries(attrs)}, err
	}),
	"SetEndpointAttributes": pushAction("SetEndpointAttributes", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := p.stringMap("Attributes")
		if err != nil {
			return nil, err
		}
		err = api.SetEndpointAttributes(ctx, c, sns.SetEndpointAttributesInput{EndpointARN: p.str("EndpointArn"), Attributes: attrs})
		return &xmlEmptyResult{XMLName: resultName("SetEndpointAttributes")}, err
	}),
	"DeleteEndpoint": pushAction("DeleteEndpoint", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		return &xmlEmptyResult{XMLName: resultName("DeleteEndpoint")}, api.DeleteEndpoint(ctx, c, p.str("EndpointArn"))
	}),
	"ListEndpointsByPlatformApplication": pushAction("ListEndpointsByPlatformApplication", func(ctx context.Context, api sns.PushAPI, c sns.Caller, p *snsParams) (any, error) {
		out, err := api.ListEndpointsByPlatformApplication(ctx, c, sns.ListEndpointsByPlatformApplicationInput{
			PlatformApplicationARN: p.str("PlatformApplicationArn"), NextToken: p.str("NextToken")})
		res := &xmlEndpointsResult{NextToken: out.NextToken}
		res.Endpoints.Members = make([]xmlEndpoint, 0, len(out.Endpoints))
		for _, ep := range out.Endpoints {
			res.Endpoints.Members = append(res.Endpoints.Members, xmlEndpoint{EndpointARN: ep.EndpointARN, Attributes: xmlEntries(ep.Attributes)})
		}
		return res, err
	}),
}

type xmlPlatformApplicationARNResult struct {
	XMLName                xml.Name `xml:"CreatePlatformApplicationResult"`
	PlatformApplicationARN string   `xml:"PlatformApplicationArn"`
}

type xmlEndpointARNResult struct {
	XMLName     xml.Name `xml:"CreatePlatformEndpointResult"`
	EndpointARN string   `xml:"EndpointArn"`
}

type xmlPlatformApplication struct {
	PlatformApplicationARN string      `xml:"PlatformApplicationArn"`
	Attributes             xmlEntryMap `xml:"Attributes"`
}

type xmlPlatformApplicationsResult struct {
	XMLName              xml.Name                           `xml:"ListPlatformApplicationsResult"`
	PlatformApplications xmlMembers[xmlPlatformApplication] `xml:"PlatformApplications"`
	NextToken            string                             `xml:"NextToken,omitempty"`
}

type xmlEndpoint struct {
	EndpointARN string      `xml:"EndpointArn"`
	Attributes  xmlEntryMap `xml:"Attributes"`
}

type xmlEndpointsResult struct {
	XMLName   xml.Name                `xml:"ListEndpointsByPlatformApplicationResult"`
	Endpoints xmlMembers[xmlEndpoint] `xml:"Endpoints"`
	NextToken string                  `xml:"NextToken,omitempty"`
}
