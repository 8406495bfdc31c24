package sqs

import (
	"maps"
	"testing"
	"time"
)

func TestRenderAttributes(t *testing.T) {
	lim := DefaultLimits()
	std, err := NewQueueAttributes("q", map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"4"}`,
	}, lim)
	wantCode(t, err, "")
	fifo, err := NewQueueAttributes("q.fifo", map[string]string{"FifoQueue": "true", "KmsMasterKeyId": "k"}, lim)
	wantCode(t, err, "")
	st := QueueStats{
		ApproximateNumberOfMessages: 3, ApproximateNumberOfMessagesNotVisible: 2, ApproximateNumberOfMessagesDelayed: 1,
		CreatedTimestamp: time.Unix(1700000000, 0), LastModifiedTimestamp: time.Unix(1700000100, 5),
		QueueArn: "arn:aws:sqs:us-east-1:000000000000:q",
	}
	type m = map[string]string
	tests := []struct {
		name  string
		q     QueueAttributes
		names []string
		want  m
		code  string
	}{
		{"none", std, nil, m{}, ""},
		{"specific", std, []string{"VisibilityTimeout", "ApproximateNumberOfMessages", "QueueArn"},
			m{"VisibilityTimeout": "30", "ApproximateNumberOfMessages": "3", "QueueArn": st.QueueArn}, ""},
		{"unset policy omitted", std, []string{"Policy", "FifoQueue", "KmsMasterKeyId"}, m{}, ""},
		{"unknown", std, []string{"VisibilityTimeout", "Colour"}, nil, CodeInvalidAttributeName},
		{"all standard", std, []string{"All"}, m{
			"ApproximateNumberOfMessages": "3", "ApproximateNumberOfMessagesNotVisible": "2",
			"ApproximateNumberOfMessagesDelayed": "1", "CreatedTimestamp": "1700000000",
			"LastModifiedTimestamp": "1700000100", "QueueArn": st.QueueArn,
			"DelaySeconds": "0", "MaximumMessageSize": "1048576", "MessageRetentionPeriod": "345600",
			"ReceiveMessageWaitTimeSeconds": "0", "VisibilityTimeout": "30",
			"RedrivePolicy":        `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":4}`,
			"SqsManagedSseEnabled": "true",
		}, ""},
		{"fifo attributes", fifo, []string{"FifoQueue", "ContentBasedDeduplication", "DeduplicationScope",
			"FifoThroughputLimit", "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled"}, m{
			"FifoQueue": "true", "ContentBasedDeduplication": "false", "DeduplicationScope": "queue",
			"FifoThroughputLimit": "perQueue", "KmsMasterKeyId": "k", "KmsDataKeyReusePeriodSeconds": "300",
			"SqsManagedSseEnabled": "false",
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderAttributes(tt.q, st, tt.names)
			wantCode(t, err, tt.code)
			if tt.code == "" && !maps.Equal(got, tt.want) {
				t.Errorf("got %v\nwant %v", got, tt.want)
			}
		})
	}
}
