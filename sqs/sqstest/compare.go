package sqstest

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// diff collects the differences between a wanted and a got record.
type diff []string

func (d *diff) add(field string, want, got any) {
	*d = append(*d, fmt.Sprintf("%s = %v, want %v", field, got, want))
}

func (d *diff) time(field string, want, got time.Time) {
	if !want.Equal(got) {
		d.add(field, want, got)
	}
}

func (d diff) String() string { return strings.Join(d, "; ") }

// QueueDiff describes how got differs from want, "" if not at all. Times
// are compared as instants; nil and empty collections are equal.
func QueueDiff(want, got *sqs.Queue) string {
	var d diff
	if want.ID != got.ID {
		d.add("ID", want.ID, got.ID)
	}
	if want.Account != got.Account {
		d.add("Account", want.Account, got.Account)
	}
	if want.Name != got.Name {
		d.add("Name", want.Name, got.Name)
	}
	if want.Shards != got.Shards {
		d.add("Shards", want.Shards, got.Shards)
	}
	if !maps.Equal(want.Tags, got.Tags) {
		d.add("Tags", want.Tags, got.Tags)
	}
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("ModifiedAt", want.ModifiedAt, got.ModifiedAt)
	d.time("PurgedAt", want.PurgedAt, got.PurgedAt)
	wa, ga := want.Attributes, got.Attributes
	if !redriveEqual(wa.RedrivePolicy, ga.RedrivePolicy) {
		d.add("Attributes.RedrivePolicy", wa.RedrivePolicy, ga.RedrivePolicy)
	}
	if !redriveAllowEqual(wa.RedriveAllowPolicy, ga.RedriveAllowPolicy) {
		d.add("Attributes.RedriveAllowPolicy", wa.RedriveAllowPolicy, ga.RedriveAllowPolicy)
	}
	wa.RedrivePolicy, ga.RedrivePolicy = nil, nil
	wa.RedriveAllowPolicy, ga.RedriveAllowPolicy = nil, nil
	if wa != ga {
		d.add("Attributes", fmt.Sprintf("%+v", wa), fmt.Sprintf("%+v", ga))
	}
	return d.String()
}

func redriveEqual(a, b *sqs.RedrivePolicy) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func redriveAllowEqual(a, b *sqs.RedriveAllowPolicy) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.RedrivePermission == b.RedrivePermission && slices.Equal(a.SourceQueueARNs, b.SourceQueueARNs)
}

// MessageDiff describes how got differs from want, "" if not at all. Times
// are compared as instants; nil and empty collections are equal.
func MessageDiff(want, got *sqs.Message) string {
	var d diff
	if want.ID != got.ID {
		d.add("ID", want.ID, got.ID)
	}
	if want.Shard != got.Shard {
		d.add("Shard", want.Shard, got.Shard)
	}
	if want.Body != got.Body {
		d.add("Body", want.Body, got.Body)
	}
	if !attributesEqual(want.Attributes, got.Attributes) {
		d.add("Attributes", want.Attributes, got.Attributes)
	}
	if !attributesEqual(want.SystemAttributes, got.SystemAttributes) {
		d.add("SystemAttributes", want.SystemAttributes, got.SystemAttributes)
	}
	for _, f := range []struct{ name, want, got string }{
		{"SenderID", want.SenderID, got.SenderID},
		{"MessageGroupID", want.MessageGroupID, got.MessageGroupID},
		{"MessageDeduplicationID", want.MessageDeduplicationID, got.MessageDeduplicationID},
		{"SequenceNumber", want.SequenceNumber, got.SequenceNumber},
		{"DeadLetterSourceARN", want.DeadLetterSourceARN, got.DeadLetterSourceARN},
	} {
		if f.want != f.got {
			d.add(f.name, f.want, f.got)
		}
	}
	d.time("SentAt", want.SentAt, got.SentAt)
	d.time("ExpiresAt", want.ExpiresAt, got.ExpiresAt)
	if s := StateDiff(want.State, got.State); s != "" {
		d = append(d, "State: "+s)
	}
	return d.String()
}

// StateDiff describes how got differs from want, "" if not at all.
func StateDiff(want, got sqs.State) string {
	var d diff
	if want.ID != got.ID {
		d.add("ID", want.ID, got.ID)
	}
	if want.ReceiveCount != got.ReceiveCount {
		d.add("ReceiveCount", want.ReceiveCount, got.ReceiveCount)
	}
	d.time("FirstReceiveAt", want.FirstReceiveAt, got.FirstReceiveAt)
	d.time("VisibleAt", want.VisibleAt, got.VisibleAt)
	return d.String()
}

func attributesEqual(a, b map[string]sqs.MessageAttributeValue) bool {
	return maps.EqualFunc(a, b, func(x, y sqs.MessageAttributeValue) bool {
		return x.DataType == y.DataType && x.StringValue == y.StringValue && bytes.Equal(x.BinaryValue, y.BinaryValue)
	})
}
