package sqs

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// RedrivePolicy is a queue's dead-letter configuration: after a message has
// been received MaxReceiveCount times it moves to DeadLetterTargetARN.
type RedrivePolicy struct {
	DeadLetterTargetARN string
	MaxReceiveCount     int
}

// Redrive permissions of a RedriveAllowPolicy.
const (
	RedriveAllowAll = "allowAll"
	RedriveDenyAll  = "denyAll"
	RedriveByQueue  = "byQueue"
)

// RedriveAllowPolicy says which source queues may use a queue as their
// dead-letter queue.
type RedriveAllowPolicy struct {
	RedrivePermission string
	SourceQueueARNs   []string // only with byQueue
}

// decodeObject decodes a JSON object keeping numbers as json.Number and
// rejecting trailing data.
func decodeObject(s string) (map[string]any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing data
	}
	return m, true
}

// jsonInt reads an integer given as a JSON number or as a string of digits,
// as AWS accepts both for maxReceiveCount.
func jsonInt(v any) (int, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	default:
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// ParseRedrivePolicy parses the RedrivePolicy attribute value, e.g.
// {"deadLetterTargetArn":"arn:aws:sqs:r:a:dlq","maxReceiveCount":"5"}.
// Errors are InvalidAttributeValue.
func ParseRedrivePolicy(s string, lim Limits) (RedrivePolicy, error) {
	const attr = AttrRedrivePolicy
	m, ok := decodeObject(s)
	if !ok {
		return RedrivePolicy{}, ErrInvalidAttributeValue(attr, "Redrive policy is not a valid JSON map.")
	}
	var p RedrivePolicy
	for k, v := range m {
		switch k {
		case "deadLetterTargetArn":
			arn, isStr := v.(string)
			if !isStr {
				return RedrivePolicy{}, ErrInvalidAttributeValue(attr, "Invalid value for deadLetterTargetArn.")
			}
			if _, _, _, err := ParseQueueARN(arn); err != nil {
				return RedrivePolicy{}, ErrInvalidAttributeValue(attr, "Dead-letter target ARN is not a valid SQS queue ARN.")
			}
			p.DeadLetterTargetARN = arn
		case "maxReceiveCount":
			n, isInt := jsonInt(v)
			if !isInt || n < lim.MinMaxReceiveCount || n > lim.MaxMaxReceiveCount {
				return RedrivePolicy{}, ErrInvalidAttributeValue(attr,
					"Value for maxReceiveCount must be an integer from "+strconv.Itoa(lim.MinMaxReceiveCount)+" to "+strconv.Itoa(lim.MaxMaxReceiveCount)+".")
			}
			p.MaxReceiveCount = n
		default:
			return RedrivePolicy{}, ErrInvalidAttributeValue(attr, "Redrive policy contains unknown field "+k+".")
		}
	}
	if p.DeadLetterTargetARN == "" {
		return RedrivePolicy{}, ErrInvalidAttributeValue(attr, "Redrive policy is missing deadLetterTargetArn.")
	}
	if p.MaxReceiveCount == 0 {
		return RedrivePolicy{}, ErrInvalidAttributeValue(attr, "Redrive policy is missing maxReceiveCount.")
	}
	return p, nil
}

// String renders the policy as AWS returns it, maxReceiveCount as a number.
func (p RedrivePolicy) String() string {
	b, _ := marshalNoEscape(struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
		MaxReceiveCount     int    `json:"maxReceiveCount"`
	}{p.DeadLetterTargetARN, p.MaxReceiveCount})
	return b
}

// ParseRedriveAllowPolicy parses the RedriveAllowPolicy attribute value, e.g.
// {"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:r:a:q"]}.
// byQueue needs 1 to lim.MaxRedriveSourceQueues ARNs; allowAll and denyAll
// take none. Errors are InvalidAttributeValue.
func ParseRedriveAllowPolicy(s string, lim Limits) (RedriveAllowPolicy, error) {
	const attr = AttrRedriveAllowPolicy
	m, ok := decodeObject(s)
	if !ok {
		return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr, "Redrive allow policy is not a valid JSON map.")
	}
	var p RedriveAllowPolicy
	var haveARNs bool
	for k, v := range m {
		switch k {
		case "redrivePermission":
			perm, _ := v.(string)
			switch perm {
			case RedriveAllowAll, RedriveDenyAll, RedriveByQueue:
				p.RedrivePermission = perm
			default:
				return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr, "redrivePermission must be allowAll, denyAll or byQueue.")
			}
		case "sourceQueueArns":
			list, isList := v.([]any)
			if !isList {
				return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr, "sourceQueueArns must be a list of queue ARNs.")
			}
			haveARNs = true
			for _, item := range list {
				arn, isStr := item.(string)
				if !isStr {
					return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr, "sourceQueueArns must be a list of queue ARNs.")
				}
				if _, _, _, err := ParseQueueARN(arn); err != nil {
					return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr, "Source queue ARN "+arn+" is not a valid SQS queue ARN.")
				}
				p.SourceQueueARNs = append(p.SourceQueueARNs, arn)
			}
		default:
			return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr, "Redrive allow policy contains unknown field "+k+".")
		}
	}
	switch {
	case p.RedrivePermission == "":
		return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr, "Redrive allow policy is missing redrivePermission.")
	case p.RedrivePermission == RedriveByQueue &&
		(len(p.SourceQueueARNs) == 0 || len(p.SourceQueueARNs) > lim.MaxRedriveSourceQueues):
		return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr,
			"byQueue needs from 1 to "+strconv.Itoa(lim.MaxRedriveSourceQueues)+" sourceQueueArns.")
	case p.RedrivePermission != RedriveByQueue && haveARNs:
		return RedriveAllowPolicy{}, ErrInvalidAttributeValue(attr, "sourceQueueArns is only allowed with byQueue.")
	}
	return p, nil
}

// String renders the policy as AWS returns it.
func (p RedriveAllowPolicy) String() string {
	b, _ := marshalNoEscape(struct {
		RedrivePermission string   `json:"redrivePermission"`
		SourceQueueArns   []string `json:"sourceQueueArns,omitempty"`
	}{p.RedrivePermission, p.SourceQueueARNs})
	return b
}

// marshalNoEscape encodes v as compact JSON without HTML escaping.
func marshalNoEscape(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
