package sqs

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// permissionActions are the actions AddPermission may grant ("*" is all).
var permissionActions = []string{
	"*", "SendMessage", "ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility",
	"GetQueueAttributes", "GetQueueUrl", "ListDeadLetterSourceQueues", "PurgeQueue",
	"ListQueueTags",
}

// maxPermissionLabelLen bounds AddPermission's Label.
const maxPermissionLabelLen = 80

// policyDocument is the part of a queue Policy that AddPermission and
// RemovePermission edit; the statements themselves stay raw so that a
// policy set through SetQueueAttributes keeps everything it says.
type policyDocument struct {
	fields     map[string]json.RawMessage
	statements []json.RawMessage
}

// parsePolicy reads a queue's Policy ("" is an empty policy).
func parsePolicy(policy, queueARN string) (*policyDocument, error) {
	doc := &policyDocument{fields: map[string]json.RawMessage{}}
	if policy == "" {
		// AWS writes the policy AddPermission starts in its oldest
		// version of the policy language.
		doc.fields["Version"] = json.RawMessage(`"2008-10-17"`)
		id, _ := json.Marshal(queueARN + "/SQSDefaultPolicy")
		doc.fields["Id"] = id
		return doc, nil
	}
	if err := json.Unmarshal([]byte(policy), &doc.fields); err != nil {
		return nil, ErrInvalidParameterValue("The queue's Policy is not a JSON object.")
	}
	if raw, ok := doc.fields["Statement"]; ok {
		if err := json.Unmarshal(raw, &doc.statements); err != nil {
			// A single statement may be given as an object.
			doc.statements = []json.RawMessage{raw}
		}
	}
	return doc, nil
}

// sid returns a statement's Sid.
func sid(stmt json.RawMessage) string {
	var s struct{ Sid string }
	_ = json.Unmarshal(stmt, &s)
	return s.Sid
}

func (d *policyDocument) hasSid(label string) bool {
	return slices.ContainsFunc(d.statements, func(s json.RawMessage) bool { return sid(s) == label })
}

// render writes the policy back; "" when no statement is left. Members
// come in AWS's order (Version, Id, Statement), any others after them by
// name, so that a policy AddPermission wrote reads as AWS's does.
func (d *policyDocument) render() string {
	if len(d.statements) == 0 {
		return ""
	}
	stmts, _ := json.Marshal(d.statements)
	d.fields["Statement"] = stmts
	names := make([]string, 0, len(d.fields))
	for n := range d.fields {
		names = append(names, n)
	}
	rank := func(n string) int {
		if i := slices.Index([]string{"Version", "Id", "Statement"}, n); i >= 0 {
			return i
		}
		return 3
	}
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(n)
		b.Write(key)
		b.WriteByte(':')
		b.Write(d.fields[n])
	}
	b.WriteByte('}')
	return b.String()
}

// permissionStatement is a statement AddPermission writes, its members in
// AWS's order.
type permissionStatement struct {
	Sid       string         `json:"Sid"`
	Effect    string         `json:"Effect"`
	Principal map[string]any `json:"Principal"`
	Action    any            `json:"Action"`
	Resource  string         `json:"Resource"`
}

// oneOrMany renders a list as AWS does in generated policies: a single
// value alone, several as an array.
func oneOrMany(v []string) any {
	if len(v) == 1 {
		return v[0]
	}
	return v
}

// AddPermission adds a policy statement, Sid = Label, allowing the given
// accounts the given actions on the queue.
func (s *Service) AddPermission(ctx context.Context, c Caller, in AddPermissionInput) error {
	q, err := s.queueFor(ctx, c, ActAddPermission, in.QueueURL)
	if err != nil {
		return err
	}
	switch {
	case in.Label == "":
		return ErrMissingParameter("Label")
	case len(in.AWSAccountIDs) == 0:
		return ErrMissingParameter("AWSAccountId")
	case len(in.Actions) == 0:
		return ErrMissingParameter("ActionName")
	case !validBatchEntryID(in.Label, maxPermissionLabelLen):
		return invalidParameter("Label", in.Label, "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.")
	}
	principals := make([]string, 0, len(in.AWSAccountIDs))
	for _, a := range in.AWSAccountIDs {
		if !validAccount(a) {
			return invalidParameter("AWSAccountId", a, "Invalid account id.")
		}
		principals = append(principals, "arn:aws:iam::"+a+":root")
	}
	actions := make([]string, 0, len(in.Actions))
	for _, a := range in.Actions {
		if !slices.Contains(permissionActions, a) {
			return invalidParameter("ActionName", a, "Please refer to the appropriate WSDL for a list of valid actions.")
		}
		actions = append(actions, "SQS:"+a)
	}
	arn := s.queueARN(q)
	doc, err := parsePolicy(q.Attributes.Policy, arn)
	if err != nil {
		return err
	}
	if doc.hasSid(in.Label) {
		return invalidParameter("Label", in.Label, "Already exists.")
	}
	stmt, _ := marshalNoEscape(permissionStatement{
		Sid:       in.Label,
		Effect:    "Allow",
		Principal: map[string]any{"AWS": oneOrMany(principals)},
		Action:    oneOrMany(actions),
		Resource:  arn,
	})
	doc.statements = append(doc.statements, json.RawMessage(stmt))
	next := cloneQueue(q)
	next.Attributes.Policy = doc.render()
	return s.updateQueue(ctx, next)
}

// RemovePermission removes the policy statement whose Sid is Label.
func (s *Service) RemovePermission(ctx context.Context, c Caller, in RemovePermissionInput) error {
	q, err := s.queueFor(ctx, c, ActRemovePermission, in.QueueURL)
	if err != nil {
		return err
	}
	if in.Label == "" {
		return ErrMissingParameter("Label")
	}
	doc, err := parsePolicy(q.Attributes.Policy, s.queueARN(q))
	if err != nil {
		return err
	}
	if !doc.hasSid(in.Label) {
		return invalidParameter("Label", in.Label, "can't find label on existing policy.")
	}
	doc.statements = slices.DeleteFunc(doc.statements, func(st json.RawMessage) bool { return sid(st) == in.Label })
	next := cloneQueue(q)
	next.Attributes.Policy = strings.TrimSpace(doc.render())
	return s.updateQueue(ctx, next)
}
