package awsapi

import (
	"context"

	"github.com/heraldmq/herald/sns"
)

// snsAction reads one SNS action's Query parameters, calls the API and
// returns the <XxxResult> element to render, or nil for actions whose
// response carries only ResponseMetadata.
type snsAction func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error)

// snsActions are the SNS actions Herald serves, by their Action parameter.
// Parameter names are those of the SNS API reference (service model
// 2010-03-31).
var snsActions = map[string]snsAction{
	"CreateTopic": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		in := sns.CreateTopicInput{Name: p.str("Name")}
		var err error
		if in.Attributes, err = p.stringMap("Attributes"); err != nil {
			return nil, err
		}
		if in.Tags, err = p.tags("Tags"); err != nil {
			return nil, err
		}
		// The model lists DataProtectionPolicy beside the map; it is a
		// topic attribute like the others.
		if dpp, ok := p.form["DataProtectionPolicy"]; ok {
			if in.Attributes == nil {
				in.Attributes = map[string]string{}
			}
			in.Attributes["DataProtectionPolicy"] = dpp[0]
		}
		arn, err := api.CreateTopic(ctx, c, in)
		return &xmlTopicARNResult{XMLName: resultName("CreateTopic"), TopicARN: arn}, err
	},
	"DeleteTopic": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		return nil, api.DeleteTopic(ctx, c, p.str("TopicArn"))
	},
	"ListTopics": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		out, err := api.ListTopics(ctx, c, p.str("NextToken"))
		return xmlListTopics(out), err
	},
	"GetTopicAttributes": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := api.GetTopicAttributes(ctx, c, p.str("TopicArn"))
		return &xmlAttributesResult{XMLName: resultName("GetTopicAttributes"), Attributes: xmlEntries(attrs)}, err
	},
	"SetTopicAttributes": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		return nil, api.SetTopicAttributes(ctx, c, sns.SetTopicAttributesInput{
			TopicARN: p.str("TopicArn"), AttributeName: p.str("AttributeName"), AttributeValue: p.str("AttributeValue"),
		})
	},
	"Subscribe": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		in := sns.SubscribeInput{TopicARN: p.str("TopicArn"), Protocol: p.str("Protocol"), Endpoint: p.str("Endpoint")}
		var err error
		if in.Attributes, err = p.stringMap("Attributes"); err != nil {
			return nil, err
		}
		if in.ReturnSubscriptionARN, err = p.optBool("ReturnSubscriptionArn"); err != nil {
			return nil, err
		}
		arn, err := api.Subscribe(ctx, c, in)
		return &xmlSubscriptionARNResult{XMLName: resultName("Subscribe"), SubscriptionARN: arn}, err
	},
	"ConfirmSubscription": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		arn, err := api.ConfirmSubscription(ctx, c, sns.ConfirmSubscriptionInput{
			TopicARN: p.str("TopicArn"), Token: p.str("Token"), AuthenticateOnUnsubscribe: p.str("AuthenticateOnUnsubscribe"),
		})
		return &xmlSubscriptionARNResult{XMLName: resultName("ConfirmSubscription"), SubscriptionARN: arn}, err
	},
	"Unsubscribe": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		return nil, api.Unsubscribe(ctx, c, p.str("SubscriptionArn"))
	},
	"ListSubscriptions": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		out, err := api.ListSubscriptions(ctx, c, p.str("NextToken"))
		return xmlListSubscriptions("ListSubscriptions", out), err
	},
	"ListSubscriptionsByTopic": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		out, err := api.ListSubscriptionsByTopic(ctx, c, p.str("TopicArn"), p.str("NextToken"))
		return xmlListSubscriptions("ListSubscriptionsByTopic", out), err
	},
	"GetSubscriptionAttributes": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := api.GetSubscriptionAttributes(ctx, c, p.str("SubscriptionArn"))
		return &xmlAttributesResult{XMLName: resultName("GetSubscriptionAttributes"), Attributes: xmlEntries(attrs)}, err
	},
	"SetSubscriptionAttributes": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		return nil, api.SetSubscriptionAttributes(ctx, c, sns.SetSubscriptionAttributesInput{
			SubscriptionARN: p.str("SubscriptionArn"), AttributeName: p.str("AttributeName"), AttributeValue: p.str("AttributeValue"),
		})
	},
	"Publish": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		attrs, err := p.messageAttributes("MessageAttributes")
		if err != nil {
			return nil, err
		}
		out, err := api.Publish(ctx, c, sns.PublishInput{
			TopicARN:               p.str("TopicArn"),
			TargetARN:              p.str("TargetArn"),
			PhoneNumber:            p.str("PhoneNumber"),
			Message:                p.str("Message"),
			Subject:                p.optStr("Subject"),
			MessageStructure:       p.str("MessageStructure"),
			MessageAttributes:      attrs,
			MessageDeduplicationID: p.str("MessageDeduplicationId"),
			MessageGroupID:         p.str("MessageGroupId"),
		})
		return &xmlPublishResult{MessageID: out.MessageID, SequenceNumber: out.SequenceNumber}, err
	},
	"PublishBatch": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		members, err := p.members("PublishBatchRequestEntries")
		if err != nil {
			return nil, err
		}
		in := sns.PublishBatchInput{TopicARN: p.str("TopicArn")}
		for _, m := range members {
			attrs, err := m.messageAttributes("MessageAttributes")
			if err != nil {
				return nil, err
			}
			in.Entries = append(in.Entries, sns.PublishBatchEntry{
				ID:                     m.str("Id"),
				Message:                m.str("Message"),
				Subject:                m.optStr("Subject"),
				MessageStructure:       m.str("MessageStructure"),
				MessageAttributes:      attrs,
				MessageDeduplicationID: m.str("MessageDeduplicationId"),
				MessageGroupID:         m.str("MessageGroupId"),
			})
		}
		out, err := api.PublishBatch(ctx, c, in)
		return xmlPublishBatch(out), err
	},
	"TagResource": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		tags, err := p.tags("Tags")
		if err != nil {
			return nil, err
		}
		err = api.TagResource(ctx, c, sns.TagResourceInput{ResourceARN: p.str("ResourceArn"), Tags: tags})
		return &xmlEmptyResult{XMLName: resultName("TagResource")}, err
	},
	"UntagResource": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		keys, err := p.stringList("TagKeys")
		if err != nil {
			return nil, err
		}
		err = api.UntagResource(ctx, c, sns.UntagResourceInput{ResourceARN: p.str("ResourceArn"), TagKeys: keys})
		return &xmlEmptyResult{XMLName: resultName("UntagResource")}, err
	},
	"ListTagsForResource": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		tags, err := api.ListTagsForResource(ctx, c, p.str("ResourceArn"))
		return &xmlListTagsForResourceResult{Tags: xmlSNSTags(tags)}, err
	},
	"AddPermission": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		in := sns.AddPermissionInput{TopicARN: p.str("TopicArn"), Label: p.str("Label")}
		var err error
		if in.AWSAccountIDs, err = p.stringList("AWSAccountId"); err != nil {
			return nil, err
		}
		if in.ActionNames, err = p.stringList("ActionName"); err != nil {
			return nil, err
		}
		return nil, api.AddPermission(ctx, c, in)
	},
	"RemovePermission": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		return nil, api.RemovePermission(ctx, c, sns.RemovePermissionInput{TopicARN: p.str("TopicArn"), Label: p.str("Label")})
	},
	"GetDataProtectionPolicy": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		policy, err := api.GetDataProtectionPolicy(ctx, c, p.str("ResourceArn"))
		return &xmlGetDataProtectionPolicyResult{DataProtectionPolicy: policy}, err
	},
	"PutDataProtectionPolicy": func(ctx context.Context, api sns.API, c sns.Caller, p *snsParams) (any, error) {
		return nil, api.PutDataProtectionPolicy(ctx, c, sns.PutDataProtectionPolicyInput{
			ResourceARN: p.str("ResourceArn"), DataProtectionPolicy: p.str("DataProtectionPolicy"),
		})
	},
}
