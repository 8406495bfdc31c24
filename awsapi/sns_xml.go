package awsapi

import (
	"encoding/xml"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// SNS Query response documents. Lists are wrapped in their member's
// element and hold <member> children; maps hold <entry><key/><value/>
// children. The wrappers are written even when empty, as AWS does.

// snsNamespace is the XML namespace of SNS Query responses.
const snsNamespace = "http://sns.amazonaws.com/doc/2010-03-31/"

// resultName is the <XxxResult> element of action.
func resultName(action string) xml.Name { return xml.Name{Local: action + "Result"} }

// xmlMembers is a list: <Wrapper><member>..</member>...</Wrapper>.
type xmlMembers[T any] struct {
	Members []T `xml:"member"`
}

type xmlEntry struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

// xmlEntryMap is a string map: <Wrapper><entry><key/><value/></entry>...</Wrapper>.
type xmlEntryMap struct {
	Entries []xmlEntry `xml:"entry"`
}

// xmlEntries renders m in key order, so that answers are reproducible.
func xmlEntries(m map[string]string) xmlEntryMap {
	out := xmlEntryMap{Entries: make([]xmlEntry, 0, len(m))}
	for _, k := range sortedKeys(m) {
		out.Entries = append(out.Entries, xmlEntry{Key: k, Value: m[k]})
	}
	return out
}

func xmlSNSTags(m map[string]string) xmlMembers[xmlTag] {
	return xmlMembers[xmlTag]{Members: xmlTags(m)}
}

type xmlEmptyResult struct {
	XMLName xml.Name
}

type xmlTopicARNResult struct {
	XMLName  xml.Name
	TopicARN string `xml:"TopicArn"`
}

type xmlSubscriptionARNResult struct {
	XMLName         xml.Name
	SubscriptionARN string `xml:"SubscriptionArn"`
}

type xmlAttributesResult struct {
	XMLName    xml.Name
	Attributes xmlEntryMap `xml:"Attributes"`
}

type xmlTopic struct {
	TopicARN string `xml:"TopicArn"`
}

type xmlListTopicsResult struct {
	XMLName   xml.Name             `xml:"ListTopicsResult"`
	Topics    xmlMembers[xmlTopic] `xml:"Topics"`
	NextToken string               `xml:"NextToken,omitempty"`
}

func xmlListTopics(out sns.ListTopicsOutput) *xmlListTopicsResult {
	res := &xmlListTopicsResult{NextToken: out.NextToken}
	res.Topics.Members = make([]xmlTopic, 0, len(out.TopicARNs))
	for _, arn := range out.TopicARNs {
		res.Topics.Members = append(res.Topics.Members, xmlTopic{TopicARN: arn})
	}
	return res
}

type xmlSubscription struct {
	SubscriptionARN string `xml:"SubscriptionArn"`
	Owner           string `xml:"Owner"`
	Protocol        string `xml:"Protocol"`
	Endpoint        string `xml:"Endpoint"`
	TopicARN        string `xml:"TopicArn"`
}

type xmlListSubscriptionsResult struct {
	XMLName       xml.Name
	Subscriptions xmlMembers[xmlSubscription] `xml:"Subscriptions"`
	NextToken     string                      `xml:"NextToken,omitempty"`
}

func xmlListSubscriptions(action string, out sns.ListSubscriptionsOutput) *xmlListSubscriptionsResult {
	res := &xmlListSubscriptionsResult{XMLName: resultName(action), NextToken: out.NextToken}
	res.Subscriptions.Members = make([]xmlSubscription, 0, len(out.Subscriptions))
	for _, s := range out.Subscriptions {
		res.Subscriptions.Members = append(res.Subscriptions.Members, xmlSubscription{
			SubscriptionARN: s.SubscriptionARN, Owner: s.Owner, Protocol: s.Protocol, Endpoint: s.Endpoint, TopicARN: s.TopicARN,
		})
	}
	return res
}

type xmlPublishResult struct {
	XMLName        xml.Name `xml:"PublishResult"`
	MessageID      string   `xml:"MessageId"`
	SequenceNumber string   `xml:"SequenceNumber,omitempty"`
}

type xmlPublishBatchEntry struct {
	ID             string `xml:"Id"`
	MessageID      string `xml:"MessageId"`
	SequenceNumber string `xml:"SequenceNumber,omitempty"`
}

type xmlSNSBatchError struct {
	ID          string `xml:"Id"`
	Code        string `xml:"Code"`
	Message     string `xml:"Message,omitempty"`
	SenderFault bool   `xml:"SenderFault"`
}

type xmlPublishBatchResult struct {
	XMLName    xml.Name                         `xml:"PublishBatchResult"`
	Successful xmlMembers[xmlPublishBatchEntry] `xml:"Successful"`
	Failed     xmlMembers[xmlSNSBatchError]     `xml:"Failed"`
}

func xmlPublishBatch(out sns.PublishBatchOutput) *xmlPublishBatchResult {
	res := &xmlPublishBatchResult{}
	res.Successful.Members = make([]xmlPublishBatchEntry, 0, len(out.Successful))
	for _, e := range out.Successful {
		res.Successful.Members = append(res.Successful.Members, xmlPublishBatchEntry{ID: e.ID, MessageID: e.MessageID, SequenceNumber: e.SequenceNumber})
	}
	res.Failed.Members = make([]xmlSNSBatchError, 0, len(out.Failed))
	for _, e := range out.Failed {
		res.Failed.Members = append(res.Failed.Members, xmlSNSBatchError{ID: e.ID, Code: wireCode(e.Code), Message: herald.ClipMessage(e.Message), SenderFault: e.SenderFault})
	}
	return res
}

type xmlListTagsForResourceResult struct {
	XMLName xml.Name           `xml:"ListTagsForResourceResult"`
	Tags    xmlMembers[xmlTag] `xml:"Tags"`
}

// xmlGetDataProtectionPolicyResult always holds DataProtectionPolicy, empty
// for a topic without a policy.
type xmlGetDataProtectionPolicyResult struct {
	XMLName              xml.Name `xml:"GetDataProtectionPolicyResult"`
	DataProtectionPolicy string   `xml:"DataProtectionPolicy"`
}

// xmlSNSErrorResponse is SNS's <ErrorResponse>; unlike SQS's it carries
// no <Detail>.
type xmlSNSErrorResponse struct {
	XMLName   xml.Name    `xml:"ErrorResponse"`
	Xmlns     string      `xml:"xmlns,attr"`
	Error     xmlSNSError `xml:"Error"`
	RequestID string      `xml:"RequestId"`
}

type xmlSNSError struct {
	Type    string `xml:"Type"`
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}
