package awsapi

import (
	"context"

	"github.com/heraldmq/herald/sqs"
)

// queryAction reads one action's Query parameters, calls the API and
// returns the <XxxResult> element to render, or nil for actions whose
// response carries only ResponseMetadata.
type queryAction func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error)

// sqsQueryActions are the SQS actions by their Action parameter.
// Parameter names follow the SQS Query API reference.
var sqsQueryActions = map[string]queryAction{
	"CreateQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		in := sqs.CreateQueueInput{QueueName: p.str("QueueName")}
		var err error
		if in.Attributes, err = p.stringMap("Attribute", "Name", "Value"); err != nil {
			return nil, err
		}
		if in.Tags, err = p.stringMap("Tag", "Key", "Value"); err != nil {
			return nil, err
		}
		url, err := api.CreateQueue(ctx, c, in)
		return &xmlCreateQueueResult{QueueURL: url}, err
	},
	"GetQueueUrl": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		url, err := api.GetQueueURL(ctx, c, sqs.GetQueueURLInput{
			QueueName:              p.str("QueueName"),
			QueueOwnerAWSAccountID: p.str("QueueOwnerAWSAccountId"),
		})
		return &xmlGetQueueURLResult{QueueURL: url}, err
	},
	"ListQueues": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		in := sqs.ListQueuesInput{QueueNamePrefix: p.str("QueueNamePrefix"), NextToken: p.str("NextToken")}
		var err error
		if in.MaxResults, err = p.optInt("MaxResults"); err != nil {
			return nil, err
		}
		out, err := api.ListQueues(ctx, c, in)
		return &xmlListQueuesResult{QueueURLs: out.QueueURLs, NextToken: out.NextToken}, err
	},
	"DeleteQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		return nil, api.DeleteQueue(ctx, c, p.queueURL())
	},
	"GetQueueAttributes": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		names, err := p.list("AttributeName")
		if err != nil {
			return nil, err
		}
		attrs, err := api.GetQueueAttributes(ctx, c, sqs.GetQueueAttributesInput{QueueURL: p.queueURL(), AttributeNames: names})
		return &xmlGetQueueAttributesResult{Attributes: xmlAttributes(attrs)}, err
	},
	"SetQueueAttributes": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		attrs, err := p.stringMap("Attribute", "Name", "Value")
		if err != nil {
			return nil, err
		}
		return nil, api.SetQueueAttributes(ctx, c, sqs.SetQueueAttributesInput{QueueURL: p.queueURL(), Attributes: attrs})
	},
	"PurgeQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		return nil, api.PurgeQueue(ctx, c, p.queueURL())
	},
	"SendMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		e, err := p.sendEntry()
		if err != nil {
			return nil, err
		}
		out, err := api.SendMessage(ctx, c, sqs.SendMessageInput{
			QueueURL:                p.queueURL(),
			MessageBody:             e.MessageBody,
			DelaySeconds:            e.DelaySeconds,
			MessageAttributes:       e.MessageAttributes,
			MessageSystemAttributes: e.MessageSystemAttributes,
			MessageDeduplicationID:  e.MessageDeduplicationID,
			MessageGroupID:          e.MessageGroupID,
		})
		return &xmlSendMessageResult{xmlSendMessage: xmlSendFields(out)}, err
	},
	"SendMessageBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		entries, err := p.structs("SendMessageBatchRequestEntry")
		if err != nil {
			return nil, err
		}
		in := sqs.SendMessageBatchInput{QueueURL: p.queueURL()}
		for _, ep := range entries {
			e, err := ep.sendEntry()
			if err != nil {
				return nil, err
			}
			e.ID = ep.str("Id")
			in.Entries = append(in.Entries, e)
		}
		out, err := api.SendMessageBatch(ctx, c, in)
		return xmlSendBatchResult(out), err
	},
	"ReceiveMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		in := sqs.ReceiveMessageInput{QueueURL: p.queueURL(), ReceiveRequestAttemptID: p.str("ReceiveRequestAttemptId")}
		var err error
		if in.MaxNumberOfMessages, err = p.optInt("MaxNumberOfMessages"); err != nil {
			return nil, err
		}
		if in.VisibilityTimeout, err = p.optInt("VisibilityTimeout"); err != nil {
			return nil, err
		}
		if in.WaitTimeSeconds, err = p.optInt("WaitTimeSeconds"); err != nil {
			return nil, err
		}
		if in.AttributeNames, err = p.list("AttributeName"); err != nil {
			return nil, err
		}
		if in.MessageSystemAttributeNames, err = p.list("MessageSystemAttributeName"); err != nil {
			return nil, err
		}
		if in.MessageAttributeNames, err = p.list("MessageAttributeName"); err != nil {
			return nil, err
		}
		out, err := api.ReceiveMessage(ctx, c, in)
		return xmlReceiveResult(out), err
	},
	"DeleteMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		return nil, api.DeleteMessage(ctx, c, sqs.DeleteMessageInput{QueueURL: p.queueURL(), ReceiptHandle: p.str("ReceiptHandle")})
	},
	"DeleteMessageBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		entries, err := p.handleEntries("DeleteMessageBatchRequestEntry")
		if err != nil {
			return nil, err
		}
		out, err := api.DeleteMessageBatch(ctx, c, sqs.DeleteMessageBatchInput{QueueURL: p.queueURL(), Entries: entries})
		return &xmlDeleteMessageBatchResult{
			Successful: xmlEntryIDs(out.Successful),
			Failed:     xmlBatchErrors(out.Failed),
		}, err
	},
	"ChangeMessageVisibility": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		timeout, err := p.optInt("VisibilityTimeout")
		if err != nil {
			return nil, err
		}
		return nil, api.ChangeMessageVisibility(ctx, c, sqs.ChangeMessageVisibilityInput{
			QueueURL: p.queueURL(), ReceiptHandle: p.str("ReceiptHandle"), VisibilityTimeout: timeout,
		})
	},
	"ChangeMessageVisibilityBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		entries, err := p.handleEntries("ChangeMessageVisibilityBatchRequestEntry")
		if err != nil {
			return nil, err
		}
		out, err := api.ChangeMessageVisibilityBatch(ctx, c, sqs.ChangeMessageVisibilityBatchInput{QueueURL: p.queueURL(), Entries: entries})
		return &xmlChangeMessageVisibilityBatchResult{
			Successful: xmlEntryIDs(out.Successful),
			Failed:     xmlBatchErrors(out.Failed),
		}, err
	},
	"TagQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		tags, err := p.stringMap("Tag", "Key", "Value")
		if err != nil {
			return nil, err
		}
		return nil, api.TagQueue(ctx, c, sqs.TagQueueInput{QueueURL: p.queueURL(), Tags: tags})
	},
	"UntagQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		keys, err := p.list("TagKey")
		if err != nil {
			return nil, err
		}
		return nil, api.UntagQueue(ctx, c, sqs.UntagQueueInput{QueueURL: p.queueURL(), TagKeys: keys})
	},
	"ListQueueTags": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		tags, err := api.ListQueueTags(ctx, c, p.queueURL())
		return &xmlListQueueTagsResult{Tags: xmlTags(tags)}, err
	},
	"ListDeadLetterSourceQueues": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		in := sqs.ListDeadLetterSourceQueuesInput{QueueURL: p.queueURL(), NextToken: p.str("NextToken")}
		var err error
		if in.MaxResults, err = p.optInt("MaxResults"); err != nil {
			return nil, err
		}
		out, err := api.ListDeadLetterSourceQueues(ctx, c, in)
		return &xmlListDeadLetterSourceQueuesResult{QueueURLs: out.QueueURLs, NextToken: out.NextToken}, err
	},
	"StartMessageMoveTask": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		in := sqs.StartMessageMoveTaskInput{SourceARN: p.str("SourceArn"), DestinationARN: p.str("DestinationArn")}
		var err error
		if in.MaxNumberOfMessagesPerSecond, err = p.optInt("MaxNumberOfMessagesPerSecond"); err != nil {
			return nil, err
		}
		handle, err := api.StartMessageMoveTask(ctx, c, in)
		return &xmlStartMessageMoveTaskResult{TaskHandle: handle}, err
	},
	"ListMessageMoveTasks": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		in := sqs.ListMessageMoveTasksInput{SourceARN: p.str("SourceArn")}
		var err error
		if in.MaxResults, err = p.optInt("MaxResults"); err != nil {
			return nil, err
		}
		tasks, err := api.ListMessageMoveTasks(ctx, c, in)
		return xmlMoveTasks(tasks), err
	},
	"CancelMessageMoveTask": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		moved, err := api.CancelMessageMoveTask(ctx, c, p.str("TaskHandle"))
		return &xmlCancelMessageMoveTaskResult{ApproximateNumberOfMessagesMoved: moved}, err
	},
	"AddPermission": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		in := sqs.AddPermissionInput{QueueURL: p.queueURL(), Label: p.str("Label")}
		var err error
		if in.AWSAccountIDs, err = p.list("AWSAccountId"); err != nil {
			return nil, err
		}
		if in.Actions, err = p.list("ActionName"); err != nil {
			return nil, err
		}
		return nil, api.AddPermission(ctx, c, in)
	},
	"RemovePermission": func(ctx context.Context, api sqs.API, c sqs.Caller, p *queryParams) (any, error) {
		return nil, api.RemovePermission(ctx, c, sqs.RemovePermissionInput{QueueURL: p.queueURL(), Label: p.str("Label")})
	},
}

// sendEntry reads the message members shared by SendMessage and a
// SendMessageBatchRequestEntry.
func (p *queryParams) sendEntry() (sqs.SendMessageBatchEntry, error) {
	e := sqs.SendMessageBatchEntry{
		MessageBody:            p.str("MessageBody"),
		MessageDeduplicationID: p.optStr("MessageDeduplicationId"),
		MessageGroupID:         p.optStr("MessageGroupId"),
	}
	var err error
	if e.DelaySeconds, err = p.optInt("DelaySeconds"); err != nil {
		return e, err
	}
	if e.MessageAttributes, err = p.attributes("MessageAttribute"); err != nil {
		return e, err
	}
	if e.MessageSystemAttributes, err = p.attributes("MessageSystemAttribute"); err != nil {
		return e, err
	}
	return e, nil
}

// handleEntries reads DeleteMessageBatch or ChangeMessageVisibilityBatch
// entries.
func (p *queryParams) handleEntries(name string) ([]sqs.BatchHandleEntry, error) {
	entries, err := p.structs(name)
	if err != nil {
		return nil, err
	}
	var out []sqs.BatchHandleEntry
	for _, ep := range entries {
		timeout, err := ep.optInt("VisibilityTimeout")
		if err != nil {
			return nil, err
		}
		out = append(out, sqs.BatchHandleEntry{ID: ep.str("Id"), ReceiptHandle: ep.str("ReceiptHandle"), VisibilityTimeout: timeout})
	}
	return out, nil
}
