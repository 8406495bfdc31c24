package awsapi

import (
	"context"

	"github.com/heraldmq/herald/sqs"
)

const jsonContentType = "application/x-amz-json-1.0"

// jsonAction decodes one action's JSON request, calls the API and returns
// the response to encode.
type jsonAction func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error)

// sqsJSONActions are the SQS actions by X-Amz-Target name. Member names
// follow the SQS service model (note "tags" in CreateQueue); each decoder
// switches on them, and members it does not name are ignored.
var sqsJSONActions = map[string]jsonAction{
	"CreateQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.CreateQueueInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueName":
				return d.str(&in.QueueName)
			case "Attributes":
				return d.stringMap(&in.Attributes)
			case "tags":
				return d.stringMap(&in.Tags)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		url, err := api.CreateQueue(ctx, c, in)
		return marshaled{jsonQueueURL{QueueURL: url}}, err
	},
	"GetQueueUrl": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.GetQueueURLInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueName":
				return d.str(&in.QueueName)
			case "QueueOwnerAWSAccountId":
				return d.str(&in.QueueOwnerAWSAccountID)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		url, err := api.GetQueueURL(ctx, c, in)
		return marshaled{jsonQueueURL{QueueURL: url}}, err
	},
	"ListQueues": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.ListQueuesInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueNamePrefix":
				return d.str(&in.QueueNamePrefix)
			case "MaxResults":
				return d.integer(&in.MaxResults)
			case "NextToken":
				return d.str(&in.NextToken)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out, err := api.ListQueues(ctx, c, in)
		return marshaled{jsonListQueues{QueueURLs: out.QueueURLs, NextToken: out.NextToken}}, err
	},
	"DeleteQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		url, err := d.queueURLOnly()
		if err != nil {
			return nil, err
		}
		return emptyResult{}, api.DeleteQueue(ctx, c, url)
	},
	"GetQueueAttributes": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.GetQueueAttributesInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "AttributeNames":
				return d.stringList(&in.AttributeNames)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		attrs, err := api.GetQueueAttributes(ctx, c, in)
		return marshaled{jsonAttributes{Attributes: attrs}}, err
	},
	"SetQueueAttributes": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.SetQueueAttributesInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "Attributes":
				return d.stringMap(&in.Attributes)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return emptyResult{}, api.SetQueueAttributes(ctx, c, in)
	},
	"PurgeQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		url, err := d.queueURLOnly()
		if err != nil {
			return nil, err
		}
		return emptyResult{}, api.PurgeQueue(ctx, c, url)
	},
	"SendMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.SendMessageInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "MessageBody":
				return d.str(&in.MessageBody)
			case "DelaySeconds":
				return d.integer(&in.DelaySeconds)
			case "MessageAttributes":
				return d.attributes(&in.MessageAttributes)
			case "MessageSystemAttributes":
				return d.attributes(&in.MessageSystemAttributes)
			case "MessageDeduplicationId":
				return d.optStr(&in.MessageDeduplicationID)
			case "MessageGroupId":
				return d.optStr(&in.MessageGroupID)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		out, err := api.SendMessage(ctx, c, in)
		return sendResult(out), err
	},
	"SendMessageBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.SendMessageBatchInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "Entries":
				return d.sendEntries(&in.Entries)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		out, err := api.SendMessageBatch(ctx, c, in)
		return sendBatchResult(out), err
	},
	"ReceiveMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.ReceiveMessageInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "MaxNumberOfMessages":
				return d.integer(&in.MaxNumberOfMessages)
			case "VisibilityTimeout":
				return d.integer(&in.VisibilityTimeout)
			case "WaitTimeSeconds":
				return d.integer(&in.WaitTimeSeconds)
			case "AttributeNames":
				return d.stringList(&in.AttributeNames)
			case "MessageSystemAttributeNames":
				return d.stringList(&in.MessageSystemAttributeNames)
			case "MessageAttributeNames":
				return d.stringList(&in.MessageAttributeNames)
			case "ReceiveRequestAttemptId":
				return d.str(&in.ReceiveRequestAttemptID)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		out, err := api.ReceiveMessage(ctx, c, in)
		return receiveResult(out), err
	},
	"DeleteMessage": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.DeleteMessageInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "ReceiptHandle":
				return d.str(&in.ReceiptHandle)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return emptyResult{}, api.DeleteMessage(ctx, c, in)
	},
	"DeleteMessageBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.DeleteMessageBatchInput
		if err := d.handleBatch(&in.QueueURL, &in.Entries); err != nil {
			return nil, err
		}
		out, err := api.DeleteMessageBatch(ctx, c, in)
		return idsResult(out), err
	},
	"ChangeMessageVisibility": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.ChangeMessageVisibilityInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "ReceiptHandle":
				return d.str(&in.ReceiptHandle)
			case "VisibilityTimeout":
				return d.integer(&in.VisibilityTimeout)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return emptyResult{}, api.ChangeMessageVisibility(ctx, c, in)
	},
	"ChangeMessageVisibilityBatch": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.ChangeMessageVisibilityBatchInput
		if err := d.handleBatch(&in.QueueURL, &in.Entries); err != nil {
			return nil, err
		}
		out, err := api.ChangeMessageVisibilityBatch(ctx, c, in)
		return idsResult(out), err
	},
	"TagQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.TagQueueInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "Tags":
				return d.stringMap(&in.Tags)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return emptyResult{}, api.TagQueue(ctx, c, in)
	},
	"UntagQueue": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.UntagQueueInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "TagKeys":
				return d.stringList(&in.TagKeys)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return emptyResult{}, api.UntagQueue(ctx, c, in)
	},
	"ListQueueTags": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		url, err := d.queueURLOnly()
		if err != nil {
			return nil, err
		}
		tags, err := api.ListQueueTags(ctx, c, url)
		return marshaled{jsonTags{Tags: tags}}, err
	},
	"ListDeadLetterSourceQueues": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.ListDeadLetterSourceQueuesInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "MaxResults":
				return d.integer(&in.MaxResults)
			case "NextToken":
				return d.str(&in.NextToken)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		out, err := api.ListDeadLetterSourceQueues(ctx, c, in)
		return marshaled{jsonDeadLetterSources{QueueURLs: nonNil(out.QueueURLs), NextToken: out.NextToken}}, err
	},
	"StartMessageMoveTask": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.StartMessageMoveTaskInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "SourceArn":
				return d.str(&in.SourceARN)
			case "DestinationArn":
				return d.str(&in.DestinationARN)
			case "MaxNumberOfMessagesPerSecond":
				return d.integer(&in.MaxNumberOfMessagesPerSecond)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		handle, err := api.StartMessageMoveTask(ctx, c, in)
		return marshaled{jsonTaskHandle{TaskHandle: handle}}, err
	},
	"ListMessageMoveTasks": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.ListMessageMoveTasksInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "SourceArn":
				return d.str(&in.SourceARN)
			case "MaxResults":
				return d.integer(&in.MaxResults)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		tasks, err := api.ListMessageMoveTasks(ctx, c, in)
		return marshaled{jsonMoveTasks(tasks)}, err
	},
	"CancelMessageMoveTask": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var handle string
		err := d.decode(func(name []byte) error {
			if string(name) == "TaskHandle" {
				return d.str(&handle)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		moved, err := api.CancelMessageMoveTask(ctx, c, handle)
		return marshaled{jsonMoved{ApproximateNumberOfMessagesMoved: moved}}, err
	},
	"AddPermission": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.AddPermissionInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "Label":
				return d.str(&in.Label)
			case "AWSAccountIds":
				return d.stringList(&in.AWSAccountIDs)
			case "Actions":
				return d.stringList(&in.Actions)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return emptyResult{}, api.AddPermission(ctx, c, in)
	},
	"RemovePermission": func(ctx context.Context, api sqs.API, c sqs.Caller, d *jsonDecoder) (jsonResponse, error) {
		var in sqs.RemovePermissionInput
		err := d.decode(func(name []byte) error {
			switch string(name) {
			case "QueueUrl":
				return d.str(&in.QueueURL)
			case "Label":
				return d.str(&in.Label)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.QueueURL = d.queueURL(in.QueueURL)
		return emptyResult{}, api.RemovePermission(ctx, c, in)
	},
}

// queueURLOnly decodes a request whose only member is QueueUrl.
func (d *jsonDecoder) queueURLOnly() (string, error) {
	var url string
	err := d.decode(func(name []byte) error {
		if string(name) == "QueueUrl" {
			return d.str(&url)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return d.queueURL(url), nil
}

// handleBatch decodes a DeleteMessageBatch or ChangeMessageVisibilityBatch
// request.
func (d *jsonDecoder) handleBatch(queueURL *string, entries *[]sqs.BatchHandleEntry) error {
	err := d.decode(func(name []byte) error {
		switch string(name) {
		case "QueueUrl":
			return d.str(queueURL)
		case "Entries":
			return d.handleEntries(entries)
		}
		return nil
	})
	*queueURL = d.queueURL(*queueURL)
	return err
}
