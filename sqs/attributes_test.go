package sqs

import (
	"strings"
	"testing"
)

func TestDefaultQueueAttributes(t *testing.T) {
	lim := DefaultLimits()
	q := DefaultQueueAttributes("q", lim)
	want := QueueAttributes{
		DelaySeconds: 0, MaximumMessageSize: 1048576, MessageRetentionPeriod: 345600,
		ReceiveMessageWaitTimeSeconds: 0, VisibilityTimeout: 30,
		KmsDataKeyReusePeriodSeconds: 300, SqsManagedSseEnabled: true,
	}
	if q != want {
		t.Errorf("standard defaults = %+v", q)
	}
	f := DefaultQueueAttributes("q.fifo", lim)
	if !f.FifoQueue || f.DeduplicationScope != "queue" || f.FifoThroughputLimit != "perQueue" || f.ContentBasedDeduplication {
		t.Errorf("FIFO defaults = %+v", f)
	}
}

func TestNewQueueAttributes(t *testing.T) {
	lim := DefaultLimits()
	type m = map[string]string
	tests := []struct {
		name  string
		qname string
		in    m
		code  string
		check func(QueueAttributes) bool
	}{
		{"defaults", "q", nil, "", func(q QueueAttributes) bool { return q.VisibilityTimeout == 30 }},
		{"bad name", "bad name", nil, CodeInvalidParameterValue, nil},
		{"ints at bounds", "q", m{"DelaySeconds": "900", "MaximumMessageSize": "1048576", "MessageRetentionPeriod": "60",
			"ReceiveMessageWaitTimeSeconds": "20", "VisibilityTimeout": "43200"}, "",
			func(q QueueAttributes) bool {
				return q.DelaySeconds == 900 && q.MaximumMessageSize == 1048576 && q.MessageRetentionPeriod == 60 &&
					q.ReceiveMessageWaitTimeSeconds == 20 && q.VisibilityTimeout == 43200
			}},
		{"delay too big", "q", m{"DelaySeconds": "901"}, CodeInvalidAttributeValue, nil},
		{"delay negative", "q", m{"DelaySeconds": "-1"}, CodeInvalidAttributeValue, nil},
		{"size too small", "q", m{"MaximumMessageSize": "1023"}, CodeInvalidAttributeValue, nil},
		{"size too big", "q", m{"MaximumMessageSize": "1048577"}, CodeInvalidAttributeValue, nil},
		{"retention too small", "q", m{"MessageRetentionPeriod": "59"}, CodeInvalidAttributeValue, nil},
		{"retention too big", "q", m{"MessageRetentionPeriod": "1209601"}, CodeInvalidAttributeValue, nil},
		{"wait too big", "q", m{"ReceiveMessageWaitTimeSeconds": "21"}, CodeInvalidAttributeValue, nil},
		{"visibility too big", "q", m{"VisibilityTimeout": "43201"}, CodeInvalidAttributeValue, nil},
		{"not a number", "q", m{"VisibilityTimeout": "ten"}, CodeInvalidAttributeValue, nil},
		{"unknown", "q", m{"Colour": "blue"}, CodeInvalidAttributeName, nil},
		{"read-only", "q", m{"QueueArn": "x"}, CodeInvalidAttributeName, nil},
		{"policy", "q", m{"Policy": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage"}]}`}, "", func(q QueueAttributes) bool {
			return q.Policy == `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage"}]}`
		}},
		{"policy without statements", "q", m{"Policy": `{"Version":"2012-10-17"}`}, CodeInvalidAttributeValue, nil},
		{"bad policy", "q", m{"Policy": `{`}, CodeInvalidAttributeValue, nil},
		{"redrive", "q", m{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"3"}`}, "",
			func(q QueueAttributes) bool { return q.RedrivePolicy != nil && q.RedrivePolicy.MaxReceiveCount == 3 }},
		{"redrive to FIFO from standard", "q", m{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `.fifo","maxReceiveCount":3}`}, CodeInvalidAttributeValue, nil},
		{"redrive to standard from FIFO", "q.fifo", m{"FifoQueue": "true", "RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":3}`}, CodeInvalidAttributeValue, nil},
		{"redrive allow", "q", m{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`}, "",
			func(q QueueAttributes) bool { return q.RedriveAllowPolicy.RedrivePermission == "denyAll" }},
		{"fifo", "q.fifo", m{"FifoQueue": "true", "ContentBasedDeduplication": "true"}, "",
			func(q QueueAttributes) bool { return q.FifoQueue && q.ContentBasedDeduplication }},
		{"fifo name without attribute", "q.fifo", nil, CodeInvalidParameterValue, nil},
		{"fifo attribute without suffix", "q", m{"FifoQueue": "true"}, CodeInvalidParameterValue, nil},
		{"fifo false on standard", "q", m{"FifoQueue": "false"}, CodeInvalidAttributeName, nil},
		{"fifo false with suffix", "q.fifo", m{"FifoQueue": "false"}, CodeInvalidParameterValue, nil},
		{"fifo bad bool", "q.fifo", m{"FifoQueue": "yes"}, CodeInvalidAttributeValue, nil},
		{"content dedup on standard", "q", m{"ContentBasedDeduplication": "true"}, CodeInvalidAttributeName, nil},
		{"dedup scope on standard", "q", m{"DeduplicationScope": "queue"}, CodeInvalidAttributeName, nil},
		{"throughput on standard", "q", m{"FifoThroughputLimit": "perQueue"}, CodeInvalidAttributeName, nil},
		{"high throughput", "q.fifo", m{"FifoQueue": "true", "DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"}, "",
			func(q QueueAttributes) bool {
				return q.DeduplicationScope == "messageGroup" && q.FifoThroughputLimit == "perMessageGroupId"
			}},
		{"per group needs group scope", "q.fifo", m{"FifoQueue": "true", "FifoThroughputLimit": "perMessageGroupId"}, CodeInvalidAttributeValue, nil},
		{"bad scope", "q.fifo", m{"FifoQueue": "true", "DeduplicationScope": "global"}, CodeInvalidAttributeValue, nil},
		{"bad throughput", "q.fifo", m{"FifoQueue": "true", "FifoThroughputLimit": "fast"}, CodeInvalidAttributeValue, nil},
		{"bad content dedup", "q.fifo", m{"FifoQueue": "true", "ContentBasedDeduplication": "maybe"}, CodeInvalidAttributeValue, nil},
		{"kms", "q", m{"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600"}, "",
			func(q QueueAttributes) bool {
				return q.KmsMasterKeyID == "alias/aws/sqs" && q.KmsDataKeyReusePeriodSeconds == 600 && !q.SqsManagedSseEnabled
			}},
		{"kms reuse too small", "q", m{"KmsDataKeyReusePeriodSeconds": "59"}, CodeInvalidAttributeValue, nil},
		{"kms reuse too big", "q", m{"KmsDataKeyReusePeriodSeconds": "86401"}, CodeInvalidAttributeValue, nil},
		{"kms and sse", "q", m{"KmsMasterKeyId": "k", "SqsManagedSseEnabled": "true"}, CodeInvalidAttributeValue, nil},
		{"sse off", "q", m{"SqsManagedSseEnabled": "FALSE"}, "", func(q QueueAttributes) bool { return !q.SqsManagedSseEnabled }},
		{"sse bad", "q", m{"SqsManagedSseEnabled": "1"}, CodeInvalidAttributeValue, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := NewQueueAttributes(tt.qname, tt.in, lim)
			wantCode(t, err, tt.code)
			if tt.check != nil && !tt.check(q) {
				t.Errorf("attributes = %+v", q)
			}
		})
	}
}

func TestApply(t *testing.T) {
	lim := DefaultLimits()
	type m = map[string]string
	tests := []struct {
		name  string
		qname string
		in    m
		code  string
		check func(QueueAttributes) bool
	}{
		{"visibility", "q", m{"VisibilityTimeout": "60"}, "", func(q QueueAttributes) bool { return q.VisibilityTimeout == 60 }},
		{"fifo true on a FIFO queue changes nothing", "q.fifo", m{"FifoQueue": "true"}, "", func(q QueueAttributes) bool { return q.FifoQueue }},
		{"fifo not settable to false", "q.fifo", m{"FifoQueue": "false"}, CodeInvalidAttributeValue, nil},
		{"fifo false on standard", "q", m{"FifoQueue": "false"}, CodeInvalidAttributeValue, nil},
		{"fifo true on standard", "q", m{"FifoQueue": "true"}, CodeInvalidAttributeName, nil},
		{"clear redrive", "q", m{"RedrivePolicy": ""}, "", func(q QueueAttributes) bool { return q.RedrivePolicy == nil }},
		{"clear allow", "q", m{"RedriveAllowPolicy": ""}, "", func(q QueueAttributes) bool { return q.RedriveAllowPolicy == nil }},
		{"clear policy", "q", m{"Policy": ""}, "", func(q QueueAttributes) bool { return q.Policy == "" }},
		{"content dedup", "q.fifo", m{"ContentBasedDeduplication": "true"}, "", func(q QueueAttributes) bool { return q.ContentBasedDeduplication }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			create := m{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":3}`,
				"RedriveAllowPolicy": `{"redrivePermission":"allowAll"}`,
				"Policy":             `{"Statement":{"Effect":"Deny","Principal":"*","Action":"sqs:PurgeQueue"}}`}
			if IsFIFOName(tt.qname) {
				create = m{"FifoQueue": "true"}
			}
			q, err := NewQueueAttributes(tt.qname, create, lim)
			wantCode(t, err, "")
			err = q.Apply(tt.in, lim)
			wantCode(t, err, tt.code)
			if tt.check != nil && !tt.check(q) {
				t.Errorf("attributes = %+v", q)
			}
		})
	}
}

func TestApplyIsAtomic(t *testing.T) {
	lim := DefaultLimits()
	q := DefaultQueueAttributes("q", lim)
	before := q
	err := q.Apply(map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "9999"}, lim)
	wantCode(t, err, CodeInvalidAttributeValue)
	if q != before {
		t.Errorf("failed Apply changed attributes: %+v", q)
	}
}

func TestLimitsConfigureMaximumMessageSize(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxMaximumMessageSize, lim.DefaultMaximumMessageSize = 262144, 262144
	_, err := NewQueueAttributes("q", map[string]string{"MaximumMessageSize": "262145"}, lim)
	wantCode(t, err, CodeInvalidAttributeValue)
}

func TestLimitsCheckDefaultsWithinBounds(t *testing.T) {
	if err := DefaultLimits().Check(); err != nil {
		t.Fatalf("AWS's limits: %v", err)
	}
	lim := DefaultLimits()
	lim.MaxMaximumMessageSize = 262144 // below the default of 1 MiB
	err := lim.Check()
	if err == nil || !strings.Contains(err.Error(), "DefaultMaximumMessageSize is 1048576") {
		t.Fatalf("a maximum below its default: %v", err)
	}
	lim.DefaultMaximumMessageSize = 262144
	if err := lim.Check(); err != nil {
		t.Fatalf("both lowered: %v", err)
	}
}
