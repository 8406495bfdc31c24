package awsapi

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"slices"
	"strconv"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// Query protocol documents. encoding/xml escapes every text, so bodies
// and client-chosen names cannot break the document; characters XML cannot
// carry become U+FFFD.

// queryResponse is <XxxResponse><XxxResult>..</XxxResult><ResponseMetadata>.
type queryResponse struct {
	XMLName  xml.Name
	Xmlns    string           `xml:"xmlns,attr"`
	Result   any              // an xml...Result with its own XMLName; nil for none
	Metadata responseMetadata `xml:"ResponseMetadata"`
}

type responseMetadata struct {
	RequestID string `xml:"RequestId"`
}

type xmlErrorResponse struct {
	XMLName   xml.Name `xml:"ErrorResponse"`
	Xmlns     string   `xml:"xmlns,attr"`
	Error     xmlError `xml:"Error"`
	RequestID string   `xml:"RequestId"`
}

type xmlError struct {
	Type    string   `xml:"Type"`
	Code    string   `xml:"Code"`
	Message string   `xml:"Message"`
	Detail  struct{} `xml:"Detail"`
}

// writeXML answers with the document v.
func writeXML(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	if err := xml.NewEncoder(&buf).Encode(v); err != nil {
		// Only a programming error (an unencodable type) gets here.
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(xml.Header + `<ErrorResponse xmlns="` + sqsNamespace + `"><Error><Type>Receiver</Type><Code>InternalFailure</Code><Message>cannot encode the response</Message><Detail/></Error></ErrorResponse>`)
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

type xmlNameValue struct {
	Name  string `xml:"Name"`
	Value string `xml:"Value"`
}

// xmlAttributes renders a string map as <Attribute> elements, in name
// order so that answers are reproducible.
func xmlAttributes(m map[string]string) []xmlNameValue {
	out := make([]xmlNameValue, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, xmlNameValue{Name: k, Value: m[k]})
	}
	return out
}

type xmlTag struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

func xmlTags(m map[string]string) []xmlTag {
	out := make([]xmlTag, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, xmlTag{Key: k, Value: m[k]})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type xmlCreateQueueResult struct {
	XMLName  xml.Name `xml:"CreateQueueResult"`
	QueueURL string   `xml:"QueueUrl"`
}

type xmlGetQueueURLResult struct {
	XMLName  xml.Name `xml:"GetQueueUrlResult"`
	QueueURL string   `xml:"QueueUrl"`
}

type xmlListQueuesResult struct {
	XMLName   xml.Name `xml:"ListQueuesResult"`
	QueueURLs []string `xml:"QueueUrl"`
	NextToken string   `xml:"NextToken,omitempty"`
}

type xmlListDeadLetterSourceQueuesResult struct {
	XMLName   xml.Name `xml:"ListDeadLetterSourceQueuesResult"`
	QueueURLs []string `xml:"QueueUrl"`
	NextToken string   `xml:"NextToken,omitempty"`
}

type xmlGetQueueAttributesResult struct {
	XMLName    xml.Name       `xml:"GetQueueAttributesResult"`
	Attributes []xmlNameValue `xml:"Attribute"`
}

type xmlListQueueTagsResult struct {
	XMLName xml.Name `xml:"ListQueueTagsResult"`
	Tags    []xmlTag `xml:"Tag"`
}

type xmlSendMessage struct {
	MessageID                    string `xml:"MessageId"`
	MD5OfMessageBody             string `xml:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `xml:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `xml:"MD5OfMessageSystemAttributes,omitempty"`
	SequenceNumber               string `xml:"SequenceNumber,omitempty"`
}

func xmlSendFields(out sqs.SendMessageOutput) xmlSendMessage {
	return xmlSendMessage{
		MessageID:                    out.MessageID,
		MD5OfMessageBody:             out.MD5OfMessageBody,
		MD5OfMessageAttributes:       out.MD5OfMessageAttributes,
		MD5OfMessageSystemAttributes: out.MD5OfMessageSystemAttributes,
		SequenceNumber:               out.SequenceNumber,
	}
}

type xmlSendMessageResult struct {
	XMLName xml.Name `xml:"SendMessageResult"`
	xmlSendMessage
}

type xmlSendBatchEntry struct {
	ID string `xml:"Id"`
	xmlSendMessage
}

type xmlBatchError struct {
	ID          string `xml:"Id"`
	SenderFault bool   `xml:"SenderFault"`
	Code        string `xml:"Code"`
	Message     string `xml:"Message,omitempty"`
}

func xmlBatchErrors(in []sqs.BatchResultErrorEntry) []xmlBatchError {
	out := make([]xmlBatchError, 0, len(in))
	for _, e := range in {
		out = append(out, xmlBatchError{ID: e.ID, SenderFault: e.SenderFault, Code: e.Code, Message: herald.ClipMessage(e.Message)})
	}
	return out
}

type xmlSendMessageBatchResult struct {
	XMLName    xml.Name            `xml:"SendMessageBatchResult"`
	Successful []xmlSendBatchEntry `xml:"SendMessageBatchResultEntry"`
	Failed     []xmlBatchError     `xml:"BatchResultErrorEntry"`
}

func xmlSendBatchResult(out sqs.SendMessageBatchOutput) *xmlSendMessageBatchResult {
	res := &xmlSendMessageBatchResult{Failed: xmlBatchErrors(out.Failed)}
	for _, e := range out.Successful {
		res.Successful = append(res.Successful, xmlSendBatchEntry{ID: e.ID, xmlSendMessage: xmlSendFields(e.SendMessageOutput)})
	}
	return res
}

type xmlEntryID struct {
	ID string `xml:"Id"`
}

func xmlEntryIDs(ids []string) []xmlEntryID {
	out := make([]xmlEntryID, 0, len(ids))
	for _, id := range ids {
		out = append(out, xmlEntryID{ID: id})
	}
	return out
}

type xmlDeleteMessageBatchResult struct {
	XMLName    xml.Name        `xml:"DeleteMessageBatchResult"`
	Successful []xmlEntryID    `xml:"DeleteMessageBatchResultEntry"`
	Failed     []xmlBatchError `xml:"BatchResultErrorEntry"`
}

type xmlChangeMessageVisibilityBatchResult struct {
	XMLName    xml.Name        `xml:"ChangeMessageVisibilityBatchResult"`
	Successful []xmlEntryID    `xml:"ChangeMessageVisibilityBatchResultEntry"`
	Failed     []xmlBatchError `xml:"BatchResultErrorEntry"`
}

type xmlAttributeValue struct {
	StringValue string `xml:"StringValue,omitempty"`
	BinaryValue string `xml:"BinaryValue,omitempty"` // base64
	DataType    string `xml:"DataType"`
}

type xmlMessageAttribute struct {
	Name  string            `xml:"Name"`
	Value xmlAttributeValue `xml:"Value"`
}

type xmlMessage struct {
	MessageID              string                `xml:"MessageId"`
	ReceiptHandle          string                `xml:"ReceiptHandle"`
	MD5OfBody              string                `xml:"MD5OfBody"`
	Body                   string                `xml:"Body"`
	Attributes             []xmlNameValue        `xml:"Attribute"`
	MD5OfMessageAttributes string                `xml:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      []xmlMessageAttribute `xml:"MessageAttribute"`
}

type xmlReceiveMessageResult struct {
	XMLName  xml.Name     `xml:"ReceiveMessageResult"`
	Messages []xmlMessage `xml:"Message"`
}

func xmlReceiveResult(out sqs.ReceiveMessageOutput) *xmlReceiveMessageResult {
	res := &xmlReceiveMessageResult{}
	for _, m := range out.Messages {
		xm := xmlMessage{
			MessageID:              m.MessageID,
			ReceiptHandle:          m.ReceiptHandle,
			MD5OfBody:              m.MD5OfBody,
			Body:                   m.Body,
			Attributes:             xmlAttributes(m.Attributes),
			MD5OfMessageAttributes: m.MD5OfMessageAttributes,
		}
		for _, name := range sortedKeys(m.MessageAttributes) {
			a := m.MessageAttributes[name]
			v := xmlAttributeValue{StringValue: a.StringValue, DataType: a.DataType}
			if a.BinaryValue != nil {
				v.BinaryValue = base64.StdEncoding.EncodeToString(a.BinaryValue)
			}
			xm.MessageAttributes = append(xm.MessageAttributes, xmlMessageAttribute{Name: name, Value: v})
		}
		res.Messages = append(res.Messages, xm)
	}
	return res
}

type xmlStartMessageMoveTaskResult struct {
	XMLName    xml.Name `xml:"StartMessageMoveTaskResult"`
	TaskHandle string   `xml:"TaskHandle"`
}

type xmlCancelMessageMoveTaskResult struct {
	XMLName                          xml.Name `xml:"CancelMessageMoveTaskResult"`
	ApproximateNumberOfMessagesMoved int64    `xml:"ApproximateNumberOfMessagesMoved"`
}

type xmlMoveTask struct {
	TaskHandle                        string `xml:"TaskHandle,omitempty"`
	Status                            string `xml:"Status"`
	SourceARN                         string `xml:"SourceArn"`
	DestinationARN                    string `xml:"DestinationArn,omitempty"`
	MaxNumberOfMessagesPerSecond      string `xml:"MaxNumberOfMessagesPerSecond,omitempty"`
	ApproximateNumberOfMessagesMoved  int64  `xml:"ApproximateNumberOfMessagesMoved"`
	ApproximateNumberOfMessagesToMove string `xml:"ApproximateNumberOfMessagesToMove,omitempty"`
	FailureReason                     string `xml:"FailureReason,omitempty"`
	StartedTimestamp                  int64  `xml:"StartedTimestamp"`
}

type xmlListMessageMoveTasksResult struct {
	XMLName xml.Name      `xml:"ListMessageMoveTasksResult"`
	Results []xmlMoveTask `xml:"ListMessageMoveTasksResultEntry"`
}

func xmlMoveTasks(tasks []sqs.MessageMoveTask) *xmlListMessageMoveTasksResult {
	res := &xmlListMessageMoveTasksResult{}
	for _, t := range tasks {
		xt := xmlMoveTask{
			TaskHandle:                       t.TaskHandle,
			Status:                           t.Status,
			SourceARN:                        t.SourceARN,
			DestinationARN:                   t.DestinationARN,
			ApproximateNumberOfMessagesMoved: t.ApproximateNumberOfMessagesMoved,
			FailureReason:                    t.FailureReason,
			StartedTimestamp:                 unixMilli(t.StartedTimestamp),
		}
		if t.MaxNumberOfMessagesPerSecond != nil {
			xt.MaxNumberOfMessagesPerSecond = strconv.Itoa(*t.MaxNumberOfMessagesPerSecond)
		}
		if t.ApproximateNumberOfMessagesToMove != nil {
			xt.ApproximateNumberOfMessagesToMove = strconv.FormatInt(*t.ApproximateNumberOfMessagesToMove, 10)
		}
		res.Results = append(res.Results, xt)
	}
	return res
}
