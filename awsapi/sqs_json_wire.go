package awsapi

import (
	"time"

	"github.com/heraldmq/herald/sqs"
)

// JSON 1.0 response shapes, member names as in the SQS service model.

type jsonErrorBody struct {
	Type    string `json:"__type"`
	Message string `json:"message"`
}

type jsonQueueURL struct {
	QueueURL string `json:"QueueUrl"`
}

type jsonListQueues struct {
	QueueURLs []string `json:"QueueUrls,omitempty"`
	NextToken string   `json:"NextToken,omitempty"`
}

// jsonDeadLetterSources names its list "queueUrls", as the model does.
type jsonDeadLetterSources struct {
	QueueURLs []string `json:"queueUrls"`
	NextToken string   `json:"NextToken,omitempty"`
}

type jsonAttributes struct {
	Attributes map[string]string `json:"Attributes,omitempty"`
}

type jsonTags struct {
	Tags map[string]string `json:"Tags,omitempty"`
}

type jsonTaskHandle struct {
	TaskHandle string `json:"TaskHandle"`
}

type jsonMoved struct {
	ApproximateNumberOfMessagesMoved int64 `json:"ApproximateNumberOfMessagesMoved"`
}

type jsonSendMessage struct {
	MessageID                    string `json:"MessageId"`
	MD5OfMessageBody             string `json:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty"`
	SequenceNumber               string `json:"SequenceNumber,omitempty"`
}

func jsonSendResult(out sqs.SendMessageOutput) jsonSendMessage {
	return jsonSendMessage{
		MessageID:                    out.MessageID,
		MD5OfMessageBody:             out.MD5OfMessageBody,
		MD5OfMessageAttributes:       out.MD5OfMessageAttributes,
		MD5OfMessageSystemAttributes: out.MD5OfMessageSystemAttributes,
		SequenceNumber:               out.SequenceNumber,
	}
}

type jsonSendBatchEntry struct {
	ID string `json:"Id"`
	jsonSendMessage
}

type jsonBatchError struct {
	ID          string `json:"Id"`
	Code        string `json:"Code"`
	Message     string `json:"Message,omitempty"`
	SenderFault bool   `json:"SenderFault"`
}

type jsonSendBatch struct {
	Successful []jsonSendBatchEntry `json:"Successful"`
	Failed     []jsonBatchError     `json:"Failed"`
}

func jsonSendBatchResult(out sqs.SendMessageBatchOutput) jsonSendBatch {
	res := jsonSendBatch{Successful: []jsonSendBatchEntry{}, Failed: jsonBatchErrors(out.Failed)}
	for _, e := range out.Successful {
		res.Successful = append(res.Successful, jsonSendBatchEntry{ID: e.ID, jsonSendMessage: jsonSendResult(e.SendMessageOutput)})
	}
	return res
}

func jsonBatchErrors(in []sqs.BatchResultErrorEntry) []jsonBatchError {
	out := []jsonBatchError{}
	for _, e := range in {
		out = append(out, jsonBatchError{ID: e.ID, Code: e.Code, Message: e.Message, SenderFault: e.SenderFault})
	}
	return out
}

type jsonEntryID struct {
	ID string `json:"Id"`
}

type jsonIDs struct {
	Successful []jsonEntryID    `json:"Successful"`
	Failed     []jsonBatchError `json:"Failed"`
}

func jsonIDsResult(out sqs.BatchIDsOutput) jsonIDs {
	res := jsonIDs{Successful: []jsonEntryID{}, Failed: jsonBatchErrors(out.Failed)}
	for _, id := range out.Successful {
		res.Successful = append(res.Successful, jsonEntryID{ID: id})
	}
	return res
}

type jsonMessageAttribute struct {
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue,omitempty"`
	BinaryValue []byte `json:"BinaryValue,omitempty"` // base64, as encoding/json writes []byte
}

type jsonMessage struct {
	MessageID              string                          `json:"MessageId"`
	ReceiptHandle          string                          `json:"ReceiptHandle"`
	MD5OfBody              string                          `json:"MD5OfBody"`
	Body                   string                          `json:"Body"`
	Attributes             map[string]string               `json:"Attributes,omitempty"`
	MD5OfMessageAttributes string                          `json:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      map[string]jsonMessageAttribute `json:"MessageAttributes,omitempty"`
}

type jsonReceive struct {
	Messages []jsonMessage `json:"Messages,omitempty"`
}

func jsonReceiveResult(out sqs.ReceiveMessageOutput) jsonReceive {
	var res jsonReceive
	for _, m := range out.Messages {
		jm := jsonMessage{
			MessageID:              m.MessageID,
			ReceiptHandle:          m.ReceiptHandle,
			MD5OfBody:              m.MD5OfBody,
			Body:                   m.Body,
			Attributes:             m.Attributes,
			MD5OfMessageAttributes: m.MD5OfMessageAttributes,
		}
		if len(m.MessageAttributes) > 0 {
			jm.MessageAttributes = make(map[string]jsonMessageAttribute, len(m.MessageAttributes))
			for name, a := range m.MessageAttributes {
				jm.MessageAttributes[name] = jsonMessageAttribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: a.BinaryValue}
			}
		}
		res.Messages = append(res.Messages, jm)
	}
	return res
}

type jsonMoveTask struct {
	TaskHandle                        string `json:"TaskHandle,omitempty"`
	Status                            string `json:"Status"`
	SourceARN                         string `json:"SourceArn"`
	DestinationARN                    string `json:"DestinationArn,omitempty"`
	MaxNumberOfMessagesPerSecond      *int   `json:"MaxNumberOfMessagesPerSecond,omitempty"`
	ApproximateNumberOfMessagesMoved  int64  `json:"ApproximateNumberOfMessagesMoved"`
	ApproximateNumberOfMessagesToMove *int64 `json:"ApproximateNumberOfMessagesToMove,omitempty"`
	FailureReason                     string `json:"FailureReason,omitempty"`
	StartedTimestamp                  int64  `json:"StartedTimestamp"` // Unix milliseconds
}

type jsonMoveTaskList struct {
	Results []jsonMoveTask `json:"Results"`
}

func jsonMoveTasks(tasks []sqs.MessageMoveTask) jsonMoveTaskList {
	res := jsonMoveTaskList{Results: []jsonMoveTask{}}
	for _, t := range tasks {
		res.Results = append(res.Results, jsonMoveTask{
			TaskHandle:                        t.TaskHandle,
			Status:                            t.Status,
			SourceARN:                         t.SourceARN,
			DestinationARN:                    t.DestinationARN,
			MaxNumberOfMessagesPerSecond:      t.MaxNumberOfMessagesPerSecond,
			ApproximateNumberOfMessagesMoved:  t.ApproximateNumberOfMessagesMoved,
			ApproximateNumberOfMessagesToMove: t.ApproximateNumberOfMessagesToMove,
			FailureReason:                     t.FailureReason,
			StartedTimestamp:                  unixMilli(t.StartedTimestamp),
		})
	}
	return res
}

// nonNil returns s, or an empty list for nil, for members the model
// requires.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// unixMilli renders t as Unix milliseconds, and the zero time as 0 rather
// than a date before year 1.
func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
