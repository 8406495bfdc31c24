package sqs

import (
	"context"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/limits"
)

// Limited returns next with every action first admitted by lim, for the
// caller's account through limits.DoorSQS: one request, and the sent
// messages' bytes (body and attributes, as SQS counts a message's size).
// An action over a rate is refused with RequestThrottled, which AWS's
// SDKs retry with backoff; it never reaches next. With a nil lim, next
// itself. Herald's own deliveries (SNS to a queue) call the Service, not
// this: they were admitted at their own door.
func Limited(next API, lim *limits.Limiter) API {
	if lim == nil {
		return next
	}
	return &limited{next: next, lim: lim}
}

type limited struct {
	next API
	lim  *limits.Limiter
}

var _ API = (*limited)(nil)

// admit takes one request and bytes bytes of c's account, on queue
// (limits.AdmitOn: a rule "sqs:NAME" of the queue named, if any).
func (l *limited) admit(c Caller, queue string, bytes int) error {
	if err := l.lim.AdmitOn(c.Account, limits.DoorSQS, queue, bytes); err != nil {
		return throttledError(err)
	}
	return nil
}

// throttledError is RequestThrottled for a refusal of package limits.
func throttledError(err error) error {
	e := NewError(CodeRequestThrottled, "%s", herald.ErrorMessage(err))
	e.Err = err
	return e
}

// begin admits one request of c's account as admit does, then enters it
// into the node's admission control (limits.Admission): leave must be
// called when it is done. ReceiveMessage is not entered: a long poll holds
// no capacity while it waits.
func (l *limited) begin(c Caller, queue string, bytes int) (leave func(), err error) {
	leave, err = l.lim.Begin(c.Account, limits.DoorSQS, queue, bytes)
	if err != nil {
		return nil, throttledError(err)
	}
	return leave, nil
}

// on returns the name of the queue a request's URL names, for a rule of
// that queue ("sqs:NAME"); "" while no rule names a queue (the URL is not
// parsed then) or when the URL names none.
func (l *limited) on(queueURL string) string {
	if !l.lim.Names(limits.DoorSQS) {
		return ""
	}
	_, _, name, err := ParseQueueURL(queueURL)
	if err != nil {
		return ""
	}
	return name
}

// checkQueueQuota refuses with OverLimit a CreateQueue of a new queue by an
// account that holds its quota of queues (limits.QuotaQueues) in the
// caller's region; creating a queue it holds already stays an answer of
// its URL, as on AWS. It counts the queues with ListQueues, pages of
// 1,000, up to the quota: a cost that grows with the quota. Two creations
// at once may both pass at the quota's last place.
func (l *limited) checkQueueQuota(ctx context.Context, c Caller, name string) error {
	quota, ok := l.lim.Quota(c.Account, limits.QuotaQueues)
	if !ok {
		return nil
	}
	page := 1000
	held, next := 0, ""
	for held < quota {
		out, err := l.next.ListQueues(ctx, c, ListQueuesInput{MaxResults: &page, NextToken: next})
		if err != nil {
			return err
		}
		held += len(out.QueueURLs)
		if next = out.NextToken; next == "" {
			break
		}
	}
	if held < quota {
		return nil
	}
	if _, err := l.next.GetQueueURL(ctx, c, GetQueueURLInput{QueueName: name}); err == nil {
		return nil // it exists: CreateQueue answers its URL
	}
	e := NewError(CodeOverLimit, "The account holds its quota of %d queues in this region.", quota)
	e.Err = limits.OverQuota(c.Account, limits.QuotaQueues, quota)
	return e
}

// batchSize is the bytes of a SendMessageBatch's messages.
func batchSize(entries []SendMessageBatchEntry) int {
	n := 0
	for _, e := range entries {
		n += MessageSize(e.MessageBody, e.MessageAttributes)
	}
	return n
}

func (l *limited) CreateQueue(ctx context.Context, c Caller, in CreateQueueInput) (queueURL string, err error) {
	leave, err := l.begin(c, in.QueueName, 0)
	if err != nil {
		return "", err
	}
	defer leave()
	if err := l.checkQueueQuota(ctx, c, in.QueueName); err != nil {
		return "", err
	}
	return l.next.CreateQueue(ctx, c, in)
}

func (l *limited) GetQueueURL(ctx context.Context, c Caller, in GetQueueURLInput) (queueURL string, err error) {
	leave, err := l.begin(c, in.QueueName, 0)
	if err != nil {
		return "", err
	}
	defer leave()
	return l.next.GetQueueURL(ctx, c, in)
}

func (l *limited) ListQueues(ctx context.Context, c Caller, in ListQueuesInput) (ListQueuesOutput, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	defer leave()
	return l.next.ListQueues(ctx, c, in)
}

func (l *limited) DeleteQueue(ctx context.Context, c Caller, queueURL string) error {
	leave, err := l.begin(c, l.on(queueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.DeleteQueue(ctx, c, queueURL)
}

func (l *limited) GetQueueAttributes(ctx context.Context, c Caller, in GetQueueAttributesInput) (map[string]string, error) {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.GetQueueAttributes(ctx, c, in)
}

func (l *limited) SetQueueAttributes(ctx context.Context, c Caller, in SetQueueAttributesInput) error {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.SetQueueAttributes(ctx, c, in)
}

func (l *limited) PurgeQueue(ctx context.Context, c Caller, queueURL string) error {
	leave, err := l.begin(c, l.on(queueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.PurgeQueue(ctx, c, queueURL)
}

func (l *limited) SendMessage(ctx context.Context, c Caller, in SendMessageInput) (SendMessageOutput, error) {
	leave, err := l.begin(c, l.on(in.QueueURL), MessageSize(in.MessageBody, in.MessageAttributes))
	if err != nil {
		return SendMessageOutput{}, err
	}
	defer leave()
	return l.next.SendMessage(ctx, c, in)
}

func (l *limited) SendMessageBatch(ctx context.Context, c Caller, in SendMessageBatchInput) (SendMessageBatchOutput, error) {
	leave, err := l.begin(c, l.on(in.QueueURL), batchSize(in.Entries))
	if err != nil {
		return SendMessageBatchOutput{}, err
	}
	defer leave()
	return l.next.SendMessageBatch(ctx, c, in)
}

func (l *limited) ReceiveMessage(ctx context.Context, c Caller, in ReceiveMessageInput) (ReceiveMessageOutput, error) {
	if err := l.admit(c, l.on(in.QueueURL), 0); err != nil {
		return ReceiveMessageOutput{}, err
	}
	return l.next.ReceiveMessage(ctx, c, in)
}

func (l *limited) DeleteMessage(ctx context.Context, c Caller, in DeleteMessageInput) error {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.DeleteMessage(ctx, c, in)
}

func (l *limited) DeleteMessageBatch(ctx context.Context, c Caller, in DeleteMessageBatchInput) (BatchIDsOutput, error) {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return BatchIDsOutput{}, err
	}
	defer leave()
	return l.next.DeleteMessageBatch(ctx, c, in)
}

func (l *limited) ChangeMessageVisibility(ctx context.Context, c Caller, in ChangeMessageVisibilityInput) error {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.ChangeMessageVisibility(ctx, c, in)
}

func (l *limited) ChangeMessageVisibilityBatch(ctx context.Context, c Caller, in ChangeMessageVisibilityBatchInput) (BatchIDsOutput, error) {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return BatchIDsOutput{}, err
	}
	defer leave()
	return l.next.ChangeMessageVisibilityBatch(ctx, c, in)
}

func (l *limited) TagQueue(ctx context.Context, c Caller, in TagQueueInput) error {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.TagQueue(ctx, c, in)
}

func (l *limited) UntagQueue(ctx context.Context, c Caller, in UntagQueueInput) error {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.UntagQueue(ctx, c, in)
}

func (l *limited) ListQueueTags(ctx context.Context, c Caller, queueURL string) (map[string]string, error) {
	leave, err := l.begin(c, l.on(queueURL), 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.ListQueueTags(ctx, c, queueURL)
}

func (l *limited) ListDeadLetterSourceQueues(ctx context.Context, c Caller, in ListDeadLetterSourceQueuesInput) (ListQueuesOutput, error) {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	defer leave()
	return l.next.ListDeadLetterSourceQueues(ctx, c, in)
}

func (l *limited) StartMessageMoveTask(ctx context.Context, c Caller, in StartMessageMoveTaskInput) (taskHandle string, err error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return "", err
	}
	defer leave()
	return l.next.StartMessageMoveTask(ctx, c, in)
}

func (l *limited) ListMessageMoveTasks(ctx context.Context, c Caller, in ListMessageMoveTasksInput) ([]MessageMoveTask, error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return nil, err
	}
	defer leave()
	return l.next.ListMessageMoveTasks(ctx, c, in)
}

func (l *limited) CancelMessageMoveTask(ctx context.Context, c Caller, taskHandle string) (approximateNumberOfMessagesMoved int64, err error) {
	leave, err := l.begin(c, "", 0)
	if err != nil {
		return 0, err
	}
	defer leave()
	return l.next.CancelMessageMoveTask(ctx, c, taskHandle)
}

func (l *limited) AddPermission(ctx context.Context, c Caller, in AddPermissionInput) error {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.AddPermission(ctx, c, in)
}

func (l *limited) RemovePermission(ctx context.Context, c Caller, in RemovePermissionInput) error {
	leave, err := l.begin(c, l.on(in.QueueURL), 0)
	if err != nil {
		return err
	}
	defer leave()
	return l.next.RemovePermission(ctx, c, in)
}
