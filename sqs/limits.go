package sqs

import "fmt"

// Limits are the configurable bounds and defaults of Herald's SQS service.
// DefaultLimits returns AWS's published values.
type Limits struct {
	DefaultDelaySeconds int // 0
	MaxDelaySeconds     int // 900 (15 minutes)

	DefaultMaximumMessageSize int // 1048576 (1 MiB)
	MinMaximumMessageSize     int // 1024
	MaxMaximumMessageSize     int // 1048576 (1 MiB)

	DefaultMessageRetentionPeriod int // 345600 (4 days)
	MinMessageRetentionPeriod     int // 60
	MaxMessageRetentionPeriod     int // 1209600 (14 days)

	DefaultReceiveMessageWaitTimeSeconds int // 0
	MaxReceiveMessageWaitTimeSeconds     int // 20

	DefaultVisibilityTimeout int // 30
	MaxVisibilityTimeout     int // 43200 (12 hours)

	MinMaxReceiveCount int // 1, RedrivePolicy.maxReceiveCount
	MaxMaxReceiveCount int // 1000

	MaxRedriveSourceQueues int // 10, RedriveAllowPolicy.sourceQueueArns

	DefaultKmsDataKeyReusePeriodSeconds int // 300
	MinKmsDataKeyReusePeriodSeconds     int // 60
	MaxKmsDataKeyReusePeriodSeconds     int // 86400

	MaxBatchEntries      int // 10 entries per *Batch request
	MaxBatchPayloadBytes int // 1048576, all bodies and attributes of a SendMessageBatch
	MaxBatchEntryIDLen   int // 80

	MaxMessageAttributes       int // 10 per message
	MaxMessageAttributeNameLen int // 256
	MaxMessageAttributeTypeLen int // 256

	MaxReceiveMessages            int // 10 per ReceiveMessage
	MaxInflightStandard           int // 120000 in-flight messages per standard queue
	MaxInflightFIFO               int // 120000 in-flight messages per FIFO queue
	MaxDeduplicationIDLen         int // 128
	MaxMessageGroupIDLen          int // 128
	DeduplicationIntervalSeconds  int // 300, FIFO deduplication window in seconds
	PurgeIntervalSeconds          int // 60 between two PurgeQueue calls
	DeleteRecreateIntervalSeconds int // 60 before a deleted queue's name can be reused
}

// DefaultLimits returns AWS's values. MaximumMessageSize defaults to 1 MiB,
// its largest value, as on AWS since August 2025 (it was 256 KiB).
func DefaultLimits() Limits {
	return Limits{
		DefaultDelaySeconds:                  0,
		MaxDelaySeconds:                      900,
		DefaultMaximumMessageSize:            1048576,
		MinMaximumMessageSize:                1024,
		MaxMaximumMessageSize:                1048576,
		DefaultMessageRetentionPeriod:        345600,
		MinMessageRetentionPeriod:            60,
		MaxMessageRetentionPeriod:            1209600,
		DefaultReceiveMessageWaitTimeSeconds: 0,
		MaxReceiveMessageWaitTimeSeconds:     20,
		DefaultVisibilityTimeout:             30,
		MaxVisibilityTimeout:                 43200,
		MinMaxReceiveCount:                   1,
		MaxMaxReceiveCount:                   1000,
		MaxRedriveSourceQueues:               10,
		DefaultKmsDataKeyReusePeriodSeconds:  300,
		MinKmsDataKeyReusePeriodSeconds:      60,
		MaxKmsDataKeyReusePeriodSeconds:      86400,
		MaxBatchEntries:                      10,
		MaxBatchPayloadBytes:                 1048576,
		MaxBatchEntryIDLen:                   80,
		MaxMessageAttributes:                 10,
		MaxMessageAttributeNameLen:           256,
		MaxMessageAttributeTypeLen:           256,
		MaxReceiveMessages:                   10,
		MaxInflightStandard:                  120000,
		MaxInflightFIFO:                      120000,
		MaxDeduplicationIDLen:                128,
		MaxMessageGroupIDLen:                 128,
		DeduplicationIntervalSeconds:         300,
		PurgeIntervalSeconds:                 60,
		DeleteRecreateIntervalSeconds:        60,
	}
}

// Check reports a default outside its own bounds (a --sqs-limit that
// lowered a maximum below its default, say), naming both limits.
func (l Limits) Check() error {
	for _, c := range []struct {
		name           string
		def, lo, hi    int
		loName, hiName string
	}{
		{"DefaultDelaySeconds", l.DefaultDelaySeconds, 0, l.MaxDelaySeconds, "0", "MaxDelaySeconds"},
		{"DefaultMaximumMessageSize", l.DefaultMaximumMessageSize, l.MinMaximumMessageSize, l.MaxMaximumMessageSize, "MinMaximumMessageSize", "MaxMaximumMessageSize"},
		{"DefaultMessageRetentionPeriod", l.DefaultMessageRetentionPeriod, l.MinMessageRetentionPeriod, l.MaxMessageRetentionPeriod, "MinMessageRetentionPeriod", "MaxMessageRetentionPeriod"},
		{"DefaultReceiveMessageWaitTimeSeconds", l.DefaultReceiveMessageWaitTimeSeconds, 0, l.MaxReceiveMessageWaitTimeSeconds, "0", "MaxReceiveMessageWaitTimeSeconds"},
		{"DefaultVisibilityTimeout", l.DefaultVisibilityTimeout, 0, l.MaxVisibilityTimeout, "0", "MaxVisibilityTimeout"},
		{"DefaultKmsDataKeyReusePeriodSeconds", l.DefaultKmsDataKeyReusePeriodSeconds, l.MinKmsDataKeyReusePeriodSeconds, l.MaxKmsDataKeyReusePeriodSeconds, "MinKmsDataKeyReusePeriodSeconds", "MaxKmsDataKeyReusePeriodSeconds"},
	} {
		if c.def < c.lo || c.def > c.hi {
			return fmt.Errorf("%s is %d, outside %s (%d) to %s (%d): set it too", c.name, c.def, c.loName, c.lo, c.hiName, c.hi)
		}
	}
	return nil
}
