package awsapi

import (
	"time"

	"github.com/heraldmq/herald/sqs"
)

// JSON 1.0 response shapes, member names as in the SQS service model.

// jsonErrorBody is an error answer: {"__type", "message"}.
type jsonErrorBody struct {
	Type    string
	Message string
}

func (e jsonErrorBody) appendJSON(dst []byte) ([]byte, error) {
	dst = appendStringMember(append(dst, '{'), "__type", e.Type)
	dst = appendStringMember(dst, "message", e.Message)
	return append(dst, '}'), nil
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
