package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// declarer creates the queues and topics of a configuration file through
// the SQS and SNS services, as a client of the account each names would:
// idempotently, so that a restart with the same file changes nothing. An
// existing queue or topic whose attributes differ from the file's stops
// the start with an error naming it.
type declarer struct {
	queues        sqs.API
	topics        sns.API
	account       string // --aws-account: the default account
	region        string // --aws-region: the home region, the default
	regions       []string
	scheme, host  string // how clients reach this server (SubscribeURLs)
	created       map[string]bool
	declaredQueue map[string]*queueDecl // by account/region/name
}

// declareResources creates fc's queues, then its topics and their
// subscriptions. regions are the served regions (nil: any).
func declareResources(ctx context.Context, fc fileConfig, queues sqs.API, topics sns.API, aws awsConfig, regions []string, scheme, host string) error {
	d := &declarer{queues: queues, topics: topics, account: aws.account, region: aws.region, regions: regions,
		scheme: scheme, host: host, created: map[string]bool{}, declaredQueue: map[string]*queueDecl{}}
	for i := range fc.Queues {
		q := &fc.Queues[i]
		if err := d.check(q.Name, &q.Account, &q.Region); err != nil {
			return fmt.Errorf("queues[%d]: %w", i, err)
		}
		key := q.Account + "/" + q.Region + "/" + q.Name
		if d.declaredQueue[key] != nil {
			return fmt.Errorf("queue %s is declared twice", q.Name)
		}
		d.declaredQueue[key] = q
	}
	for i := range fc.Queues {
		if err := d.queue(ctx, &fc.Queues[i], nil); err != nil {
			return err
		}
	}
	for i := range fc.Topics {
		t := &fc.Topics[i]
		if err := d.check(t.Name, &t.Account, &t.Region); err != nil {
			return fmt.Errorf("topics[%d]: %w", i, err)
		}
		if err := d.topic(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// check fills in a resource's default account and region and checks them.
func (d *declarer) check(name string, account, region *string) error {
	if name == "" {
		return errors.New("name is required")
	}
	if *account == "" {
		*account = d.account
	}
	if *region == "" {
		*region = d.region
	}
	if !sqs.ValidClientAccount(*account) {
		return fmt.Errorf("%s: account %q is not a valid account id", name, *account)
	}
	if !sqs.ValidRegion(*region) {
		return fmt.Errorf("%s: region %q is not a region name", name, *region)
	}
	if d.regions != nil && !slices.Contains(d.regions, *region) {
		return fmt.Errorf("%s: region %s is not served (--aws-regions: %s)", name, *region, strings.Join(d.regions, ","))
	}
	return nil
}

// caller acts in account and region.
func (d *declarer) caller(account, region string) sqs.Caller {
	if region == d.region {
		region = ""
	}
	return sqs.Caller{Account: account, Region: region, SenderID: account, Scheme: d.scheme, Host: d.host}
}

// queue creates q after the queue its dead-letter queue names, when that
// is declared too (or, when it is not, creates it with no attributes).
// visiting holds the queues on the way here, to refuse a cycle.
func (d *declarer) queue(ctx context.Context, q *queueDecl, visiting []string) error {
	key := q.Account + "/" + q.Region + "/" + q.Name
	if d.created[key] {
		return nil
	}
	if slices.Contains(visiting, q.Name) {
		return fmt.Errorf("queues %s: their dead-letter queues form a cycle", strings.Join(append(visiting, q.Name), " -> "))
	}
	attrs := map[string]string{}
	for k, v := range q.Attributes {
		attrs[k] = v
	}
	if strings.HasSuffix(q.Name, ".fifo") && attrs["FifoQueue"] == "" {
		attrs["FifoQueue"] = "true"
	}
	dlq := ""
	if q.DLQ != nil {
		if _, set := attrs["RedrivePolicy"]; set {
			return fmt.Errorf("queue %s: give dead_letter_queue or attributes.RedrivePolicy, not both", q.Name)
		}
		if q.DLQ.Name == "" || q.DLQ.MaxReceiveCount < 1 {
			return fmt.Errorf("queue %s: dead_letter_queue needs a name and a max_receive_count of at least 1", q.Name)
		}
		dlq = q.DLQ.Name
		policy, _ := json.Marshal(map[string]string{
			"deadLetterTargetArn": sqs.QueueARN(q.Region, q.Account, dlq),
			"maxReceiveCount":     strconv.Itoa(q.DLQ.MaxReceiveCount),
		})
		attrs["RedrivePolicy"] = string(policy)
	} else if text, set := attrs["RedrivePolicy"]; set {
		var p struct {
			Target string `json:"deadLetterTargetArn"`
		}
		if json.Unmarshal([]byte(text), &p) == nil {
			if region, account, name, err := sqs.ParseQueueARN(p.Target); err == nil && region == q.Region && account == q.Account {
				dlq = name
			}
		}
	}
	if dlq != "" && dlq != q.Name {
		target := d.declaredQueue[q.Account+"/"+q.Region+"/"+dlq]
		if target == nil {
			// Not declared: create it plain, unless it exists.
			target = &queueDecl{Name: dlq, Account: q.Account, Region: q.Region}
		}
		if err := d.queue(ctx, target, append(visiting, q.Name)); err != nil {
			return err
		}
	}
	c := d.caller(q.Account, q.Region)
	url, err := d.queues.CreateQueue(ctx, c, sqs.CreateQueueInput{QueueName: q.Name, Attributes: attrs, Tags: q.Tags})
	var qe *sqs.Error
	if errors.As(err, &qe) && qe.Code == sqs.CodeQueueNameExists {
		return d.queueConflict(ctx, c, q, attrs)
	}
	if err != nil {
		return fmt.Errorf("queue %s (account %s, region %s): %w", q.Name, q.Account, q.Region, err)
	}
	if len(q.Tags) > 0 {
		// An existing queue keeps its tags on CreateQueue: add the file's.
		if err := d.queues.TagQueue(ctx, c, sqs.TagQueueInput{QueueURL: url, Tags: q.Tags}); err != nil {
			return fmt.Errorf("queue %s: tags: %w", q.Name, err)
		}
	}
	d.created[key] = true
	return nil
}

// queueConflict explains which attributes of an existing queue differ
// from the file's.
func (d *declarer) queueConflict(ctx context.Context, c sqs.Caller, q *queueDecl, attrs map[string]string) error {
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	existing, err := d.queues.GetQueueAttributes(ctx, c, sqs.GetQueueAttributesInput{QueueURL: q.Name, AttributeNames: names})
	var diffs []string
	if err == nil {
		for _, k := range names {
			if existing[k] != attrs[k] {
				diffs = append(diffs, fmt.Sprintf("%s is %q there, %q in the file", k, existing[k], attrs[k]))
			}
		}
	}
	if len(diffs) == 0 {
		diffs = []string{"an attribute differs"}
	}
	return fmt.Errorf("queue %s (account %s, region %s) already exists with other attributes: %s; change the file, or change or delete the queue",
		q.Name, q.Account, q.Region, strings.Join(diffs, "; "))
}

// topic creates t and its subscriptions.
func (d *declarer) topic(ctx context.Context, t *topicDecl) error {
	c := d.caller(t.Account, t.Region)
	attrs := map[string]string{}
	for k, v := range t.Attributes {
		attrs[k] = v
	}
	if strings.HasSuffix(t.Name, ".fifo") && attrs["FifoTopic"] == "" {
		attrs["FifoTopic"] = "true"
	}
	arn, err := d.topics.CreateTopic(ctx, c, sns.CreateTopicInput{Name: t.Name, Attributes: attrs})
	var te *sns.Error
	if errors.As(err, &te) && te.Code == "InvalidParameter" && strings.Contains(te.Message, "already exists") {
		return d.topicConflict(ctx, c, t, attrs)
	}
	if err != nil {
		return fmt.Errorf("topic %s (account %s, region %s): %w", t.Name, t.Account, t.Region, err)
	}
	if len(t.Tags) > 0 {
		if err := d.topics.TagResource(ctx, c, sns.TagResourceInput{ResourceARN: arn, Tags: t.Tags}); err != nil {
			return fmt.Errorf("topic %s: tags: %w", t.Name, err)
		}
	}
	for i, s := range t.Subscriptions {
		in := sns.SubscribeInput{TopicARN: arn, Protocol: s.Protocol, Endpoint: s.Endpoint, Attributes: s.Attributes, ReturnSubscriptionARN: true}
		if s.Queue != "" {
			if s.Endpoint != "" || s.Protocol != "" && s.Protocol != "sqs" {
				return fmt.Errorf("topic %s, subscriptions[%d]: queue is protocol sqs to that queue: give no protocol or endpoint with it", t.Name, i)
			}
			in.Protocol, in.Endpoint = "sqs", sqs.QueueARN(t.Region, t.Account, s.Queue)
		}
		if in.Protocol == "" || in.Endpoint == "" {
			return fmt.Errorf("topic %s, subscriptions[%d]: give protocol and endpoint, or queue", t.Name, i)
		}
		if _, err := d.topics.Subscribe(ctx, c, in); err != nil {
			return fmt.Errorf("topic %s, subscription %s %s: %w", t.Name, in.Protocol, in.Endpoint, err)
		}
	}
	return nil
}

// topicConflict explains which attributes of an existing topic differ.
func (d *declarer) topicConflict(ctx context.Context, c sqs.Caller, t *topicDecl, attrs map[string]string) error {
	arn := sns.TopicARN(t.Region, t.Account, t.Name)
	existing, err := d.topics.GetTopicAttributes(ctx, c, arn)
	var diffs []string
	if err == nil {
		names := make([]string, 0, len(attrs))
		for k := range attrs {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if existing[k] != attrs[k] {
				diffs = append(diffs, fmt.Sprintf("%s is %q there, %q in the file", k, existing[k], attrs[k]))
			}
		}
	}
	if len(diffs) == 0 {
		diffs = []string{"an attribute differs"}
	}
	return fmt.Errorf("topic %s (account %s, region %s) already exists with other attributes: %s; change the file, or change or delete the topic",
		t.Name, t.Account, t.Region, strings.Join(diffs, "; "))
}
