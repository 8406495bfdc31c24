package awsapi

import (
	"context"
	"encoding/xml"
	"strconv"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// The SMS actions of SNS. Their parameters and results are spelled as the
// SNS model spells them: the older ones in lower camel case (attributes,
// phoneNumber, isOptedOut, nextToken), the sandbox ones in upper.

// smsAPI is api's SMS half; an API without one answers InvalidAction.
func smsAPI(api sns.API, action string) (sns.SMSAPI, error) {
	if s, ok := api.(sns.SMSAPI); ok {
		return s, nil
	}
	return nil, sns.NewError(sns.CodeInvalidAction, "Could not find operation %s for version 2010-03-31", action)
}

// smsAction adapts an SMS action to snsAction.
func smsAction(action string, f func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error)) snsAction {
	return func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		s, err := smsAPI(api, action)
		if err != nil {
			return nil, err
		}
		return f(ctx, s, c, p)
	}
}

func init() {
	for name, act := range smsActions {
		snsActions[name] = act
	}
}

var smsActions = map[string]snsAction{
	"SetSMSAttributes": smsAction("SetSMSAttributes", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := p.stringMap("attributes")
		if err != nil {
			return nil, err
		}
		return &xmlEmptyResult{XMLName: resultName("SetSMSAttributes")}, api.SetSMSAttributes(ctx, c, attrs)
	}),
	"GetSMSAttributes": smsAction("GetSMSAttributes", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		names, err := p.stringList("attributes")
		if err != nil {
			return nil, err
		}
		attrs, err := api.GetSMSAttributes(ctx, c, names)
		return &xmlSMSAttributesResult{Attributes: xmlEntries(attrs)}, err
	}),
	"CheckIfPhoneNumberIsOptedOut": smsAction("CheckIfPhoneNumberIsOptedOut", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		out, err := api.CheckIfPhoneNumberIsOptedOut(ctx, c, p.str("phoneNumber"))
		return &xmlOptedOutResult{IsOptedOut: out}, err
	}),
	"ListPhoneNumbersOptedOut": smsAction("ListPhoneNumbersOptedOut", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		out, err := api.ListPhoneNumbersOptedOut(ctx, c, p.str("nextToken"))
		res := &xmlPhoneNumbersOptedOutResult{NextToken: out.NextToken}
		res.PhoneNumbers.Members = append([]string{}, out.PhoneNumbers...)
		return res, err
	}),
	"OptInPhoneNumber": smsAction("OptInPhoneNumber", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		return &xmlEmptyResult{XMLName: resultName("OptInPhoneNumber")}, api.OptInPhoneNumber(ctx, c, p.str("phoneNumber"))
	}),
	"CreateSMSSandboxPhoneNumber": smsAction("CreateSMSSandboxPhoneNumber", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		err := api.CreateSMSSandboxPhoneNumber(ctx, c, sns.CreateSMSSandboxPhoneNumberInput{PhoneNumber: p.str("PhoneNumber"), LanguageCode: p.str("LanguageCode")})
		return &xmlEmptyResult{XMLName: resultName("CreateSMSSandboxPhoneNumber")}, err
	}),
	"VerifySMSSandboxPhoneNumber": smsAction("VerifySMSSandboxPhoneNumber", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		err := api.VerifySMSSandboxPhoneNumber(ctx, c, sns.VerifySMSSandboxPhoneNumberInput{PhoneNumber: p.str("PhoneNumber"), OneTimePassword: p.str("OneTimePassword")})
		return &xmlEmptyResult{XMLName: resultName("VerifySMSSandboxPhoneNumber")}, err
	}),
	"DeleteSMSSandboxPhoneNumber": smsAction("DeleteSMSSandboxPhoneNumber", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		return &xmlEmptyResult{XMLName: resultName("DeleteSMSSandboxPhoneNumber")}, api.DeleteSMSSandboxPhoneNumber(ctx, c, p.str("PhoneNumber"))
	}),
	"ListSMSSandboxPhoneNumbers": smsAction("ListSMSSandboxPhoneNumbers", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		in := sns.ListSMSSandboxPhoneNumbersInput{NextToken: p.str("NextToken")}
		if v, ok := p.form["MaxResults"]; ok {
			n, err := strconv.Atoi(v[0])
			if err != nil {
				return nil, sns.ErrInvalidParameter("MaxResults: %q is not a number", herald.Clip(v[0]))
			}
			if n < 1 {
				return nil, sns.ErrInvalidParameter("MaxResults")
			}
			in.MaxResults = n
		}
		out, err := api.ListSMSSandboxPhoneNumbers(ctx, c, in)
		res := &xmlSandboxNumbersResult{NextToken: out.NextToken}
		res.PhoneNumbers.Members = make([]xmlSandboxNumber, 0, len(out.PhoneNumbers))
		for _, n := range out.PhoneNumbers {
			res.PhoneNumbers.Members = append(res.PhoneNumbers.Members, xmlSandboxNumber{PhoneNumber: n.PhoneNumber, Status: n.Status})
		}
		return res, err
	}),
	"GetSMSSandboxAccountStatus": smsAction("GetSMSSandboxAccountStatus", func(ctx context.Context, api sns.SMSAPI, c sns.Caller, p *snsParams) (any, error) {
		in, err := api.GetSMSSandboxAccountStatus(ctx, c)
		return &xmlSandboxStatusResult{IsInSandbox: in}, err
	}),
}

type xmlSMSAttributesResult struct {
	XMLName    xml.Name    `xml:"GetSMSAttributesResult"`
	Attributes xmlEntryMap `xml:"attributes"`
}

type xmlOptedOutResult struct {
	XMLName    xml.Name `xml:"CheckIfPhoneNumberIsOptedOutResult"`
	IsOptedOut bool     `xml:"isOptedOut"`
}

type xmlPhoneNumbersOptedOutResult struct {
	XMLName      xml.Name           `xml:"ListPhoneNumbersOptedOutResult"`
	PhoneNumbers xmlMembers[string] `xml:"phoneNumbers"`
	NextToken    string             `xml:"nextToken,omitempty"`
}

type xmlSandboxNumber struct {
	PhoneNumber string `xml:"PhoneNumber"`
	Status      string `xml:"Status"`
}

type xmlSandboxNumbersResult struct {
	XMLName      xml.Name                     `xml:"ListSMSSandboxPhoneNumbersResult"`
	PhoneNumbers xmlMembers[xmlSandboxNumber] `xml:"PhoneNumbers"`
	NextToken    string                       `xml:"NextToken,omitempty"`
}

type xmlSandboxStatusResult struct {
	XMLName     xml.Name `xml:"GetSMSSandboxAccountStatusResult"`
	IsInSandbox bool     `xml:"IsInSandbox"`
}
