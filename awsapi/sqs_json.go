package awsapi

import (
	"context"

	"github.com/heraldmq/herald/sqs"
)

const jsonContentType = "application/x-amz-json-1.0"

// jsonAction decodes one action's JSON request, calls the API and returns
// the response value to encode.
type jsonAction func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error)

// sqsJSONActions are the SQS actions by X-Amz-Target name. Member names
// follow the SQS service model (note "tags" in CreateQueue).
var sqsJSONActions = map[string]jsonAction{
	"CreateQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.CreateQueueInput
		err := d.decode(map[string]any{
			"QueueName":  &in.QueueName,
			"Attributes": (*stringMap)(&in.Attributes),
			"tags":       (*stringMap)(&in.Tags),
		})
		if err != nil {
			return nil, err
		}
		url, err := api.CreateQueue(ctx, c, in)
		return jsonQueueURL{QueueURL: url}, err
	},
	"GetQueueUrl": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.GetQueueURLInput
		err := d.decode(map[string]any{
			"QueueName":              &in.QueueName,
			"QueueOwnerAWSAccountId": &in.QueueOwnerAWSAccountID,
		})
		if err != nil {
			return nil, err
		}
		url, err := api.GetQueueURL(ctx, c, in)
		return jsonQueueURL{QueueURL: url}, err
	},
	"ListQueues": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.ListQueuesInput
		err := d.decode(map[string]any{
			"QueueNamePrefix": &in.QueueNamePrefix,
			"MaxResults":      &in.MaxResults,
			"NextToken":       &in.NextToken,
		})
		if err != nil {
			return nil, err
		}
		out, err := api.ListQueues(ctx, c, in)
		return jsonListQueues{QueueURLs: out.QueueURLs, NextToken: out.NextToken}, err
	},
	"DeleteQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		url, err := d.queueURLOnly()
		if err != nil {
			return nil, err
		}
		return struct{}{}, api.DeleteQueue(ctx, c, url)
	},
	"GetQueueAttributes": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.GetQueueAttributesInput
		err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "AttributeNames": &in.AttributeNames})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		attrs, err := api.GetQueueAttributes(ctx, c, in)
		return jsonAttributes{Attributes: attrs}, err
	},
	"SetQueueAttributes": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.SetQueueAttributesInput
		err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "Attributes": (*stringMap)(&in.Attributes)})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return struct{}{}, api.SetQueueAttributes(ctx, c, in)
	},
	"PurgeQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		url, err := d.queueURLOnly()
		if err != nil {
			return nil, err
		}
		return struct{}{}, api.PurgeQueue(ctx, c, url)
	},
	"SendMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.SendMessageInput
		err := d.decode(map[string]any{
			"QueueUrl":                &in.QueueURL,
			"MessageBody":             &in.MessageBody,
			"DelaySeconds":            &in.DelaySeconds,
			"MessageAttributes":       (*attributeMap)(&in.MessageAttributes),
			"MessageSystemAttributes": (*attributeMap)(&in.MessageSystemAttributes),
			"MessageDeduplicationId":  &in.MessageDeduplicationID,
			"MessageGroupId":          &in.MessageGroupID,
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		out, err := api.SendMessage(ctx, c, in)
		return jsonSendResult(out), err
	},
	"SendMessageBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.SendMessageBatchInput
		var entries []sendEntry
		if err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "Entries": &entries}); err != nil {
			return nil, err
		}
		in.QueueURL, in.Entries = d.queueURL(in.QueueURL), sendEntries(entries)
		out, err := api.SendMessageBatch(ctx, c, in)
		return jsonSendBatchResult(out), err
	},
	"ReceiveMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.ReceiveMessageInput
		err := d.decode(map[string]any{
			"QueueUrl":                    &in.QueueURL,
			"MaxNumberOfMessages":         &in.MaxNumberOfMessages,
			"VisibilityTimeout":           &in.VisibilityTimeout,
			"WaitTimeSeconds":             &in.WaitTimeSeconds,
			"AttributeNames":              &in.AttributeNames,
			"MessageSystemAttributeNames": &in.MessageSystemAttributeNames,
			"MessageAttributeNames":       &in.MessageAttributeNames,
			"ReceiveRequestAttemptId":     &in.ReceiveRequestAttemptID,
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		out, err := api.ReceiveMessage(ctx, c, in)
		return jsonReceiveResult(out), err
	},
	"DeleteMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.DeleteMessageInput
		if err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "ReceiptHandle": &in.ReceiptHandle}); err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return struct{}{}, api.DeleteMessage(ctx, c, in)
	},
	"DeleteMessageBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.DeleteMessageBatchInput
		var entries []handleEntry
		if err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "Entries": &entries}); err != nil {
			return nil, err
		}
		in.QueueURL, in.Entries = d.queueURL(in.QueueURL), handleEntries(entries)
		out, err := api.DeleteMessageBatch(ctx, c, in)
		return jsonIDsResult(out), err
	},
	"ChangeMessageVisibility": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.ChangeMessageVisibilityInput
		err := d.decode(map[string]any{
			"QueueUrl":          &in.QueueURL,
			"ReceiptHandle":     &in.ReceiptHandle,
			"VisibilityTimeout": &in.VisibilityTimeout,
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return struct{}{}, api.ChangeMessageVisibility(ctx, c, in)
	},
	"ChangeMessageVisibilityBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.ChangeMessageVisibilityBatchInput
		var entries []handleEntry
		if err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "Entries": &entries}); err != nil {
			return nil, err
		}
		in.QueueURL, in.Entries = d.queueURL(in.QueueURL), handleEntries(entries)
		out, err := api.ChangeMessageVisibilityBatch(ctx, c, in)
		return jsonIDsResult(out), err
	},
	"TagQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.TagQueueInput
		if err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "Tags": (*stringMap)(&in.Tags)}); err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return struct{}{}, api.TagQueue(ctx, c, in)
	},
	"UntagQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.UntagQueueInput
		if err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "TagKeys": &in.TagKeys}); err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return struct{}{}, api.UntagQueue(ctx, c, in)
	},
	"ListQueueTags": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		url, err := d.queueURLOnly()
		if err != nil {
			return nil, err
		}
		tags, err := api.ListQueueTags(ctx, c, url)
		return jsonTags{Tags: tags}, err
	},
	"ListDeadLetterSourceQueues": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.ListDeadLetterSourceQueuesInput
		err := d.decode(map[string]any{
			"QueueUrl":   &in.QueueURL,
			"MaxResults": &in.MaxResults,
			"NextToken":  &in.NextToken,
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		out, err := api.ListDeadLetterSourceQueues(ctx, c, in)
		return jsonDeadLetterSources{QueueURLs: nonNil(out.QueueURLs), NextToken: out.NextToken}, err
	},
	"StartMessageMoveTask": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.StartMessageMoveTaskInput
		err := d.decode(map[string]any{
			"SourceArn":                    &in.SourceARN,
			"DestinationArn":               &in.DestinationARN,
			"MaxNumberOfMessagesPerSecond": &in.MaxNumberOfMessagesPerSecond,
		})
		if err != nil {
			return nil, err
		}
		handle, err := api.StartMessageMoveTask(ctx, c, in)
		return jsonTaskHandle{TaskHandle: handle}, err
	},
	"ListMessageMoveTasks": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.ListMessageMoveTasksInput
		if err := d.decode(map[string]any{"SourceArn": &in.SourceARN, "MaxResults": &in.MaxResults}); err != nil {
			return nil, err
		}
		tasks, err := api.ListMessageMoveTasks(ctx, c, in)
		return jsonMoveTasks(tasks), err
	},
	"CancelMessageMoveTask": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var handle string
		if err := d.decode(map[string]any{"TaskHandle": &handle}); err != nil {
			return nil, err
		}
		moved, err := api.CancelMessageMoveTask(ctx, c, handle)
		return jsonMoved{ApproximateNumberOfMessagesMoved: moved}, err
	},
	"AddPermission": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.AddPermissionInput
		err := d.decode(map[string]any{
			"QueueUrl":      &in.QueueURL,
			"Label":         &in.Label,
			"AWSAccountIds": &in.AWSAccountIDs,
			"Actions":       &in.Actions,
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return struct{}{}, api.AddPermission(ctx, c, in)
	},
	"RemovePermission": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (any, error) {
		var in sqs.RemovePermissionInput
		if err := d.decode(map[string]any{"QueueUrl": &in.QueueURL, "Label": &in.Label}); err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return struct{}{}, api.RemovePermission(ctx, c, in)
	},
}

// queueURLOnly decodes a request whose only member is QueueUrl.
func (d *jsonDecoder) queueURLOnly() (string, error) {
	var url string
	if err := d.decode(map[string]any{"QueueUrl": &url}); err != nil {
		return "", err
	}
	return d.queueURL(url), nil
}
