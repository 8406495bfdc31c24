package sqs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Statuses of a message move task.
const (
	MoveTaskRunning    = "RUNNING"
	MoveTaskCompleted  = "COMPLETED"
	MoveTaskCancelling = "CANCELLING"
	MoveTaskCancelled  = "CANCELLED"
	MoveTaskFailed     = "FAILED"
)

const (
	// maxMoveRate is AWS's highest MaxNumberOfMessagesPerSecond, also
	// the rate used when none is given.
	maxMoveRate = 500
	// maxListedMoveTasks is the most tasks ListMessageMoveTasks returns
	// and the most kept per source queue.
	maxListedMoveTasks = 10
	// moveTaskRetention is how long finished tasks stay listed.
	moveTaskRetention = 14 * 24 * time.Hour
)

// moveTask is one message move task. Tasks run on the node that started
// them and are listed from its memory: another node's tasks, and tasks of
// a node that restarted, are not listed.
type moveTask struct {
	id        string
	sourceARN string
	destARN   string // "" = each message's DeadLetterSourceARN
	rate      *int
	started   time.Time
	toMove    *int64
	cancel    context.CancelFunc

	// Guarded by moveTasks.mu.
	status  string
	moved   int64
	failure string
}

// moveTasks holds this node's tasks by source queue ARN, newest first.
type moveTasks struct {
	mu       sync.Mutex
	bySource map[string][]*moveTask
}

func newMoveTasks() *moveTasks { return &moveTasks{bySource: map[string][]*moveTask{}} }

// taskHandle is the opaque handle of a running task: the source ARN and
// task ID, base64url JSON.
type taskHandle struct {
	TaskID    string `json:"taskId"`
	SourceARN string `json:"sourceArn"`
}

func (t *moveTask) handle() string {
	b, _ := json.Marshal(taskHandle{TaskID: t.id, SourceARN: t.sourceARN})
	return base64.RawURLEncoding.EncodeToString(b)
}

func resourceNotFound(what string) *Error {
	return NewError(CodeResourceNotFound, "The resource that you specified for the %s parameter doesn't exist.", what)
}

// StartMessageMoveTask starts moving the messages of a dead-letter queue to
// DestinationArn or, when none is given, back to the queue each came from.
// It runs in the background on this node at up to
// MaxNumberOfMessagesPerSecond (500 when not given).
func (s *Service) StartMessageMoveTask(ctx context.Context, c Caller, in StartMessageMoveTaskInput) (string, error) {
	if in.SourceARN == "" {
		return "", ErrMissingParameter("SourceArn")
	}
	src, err := s.taskQueue(ctx, c, ActStartMessageMoveTask, in.SourceARN, "SourceArn")
	if err != nil {
		return "", err
	}
	sources, err := s.deadLetterSources(ctx, src, "", 1)
	if err != nil {
		return "", err
	}
	if len(sources) == 0 {
		return "", invalidParameter("SourceArn", in.SourceARN, "Source queue must be configured as a Dead Letter Queue.")
	}
	var dst *Queue
	if in.DestinationARN != "" {
		if dst, err = s.taskQueue(ctx, c, ActStartMessageMoveTask, in.DestinationARN, "DestinationArn"); err != nil {
			return "", err
		}
		if dst.ID == src.ID {
			return "", invalidParameter("DestinationArn", in.DestinationARN, "Source and destination queues must be different.")
		}
	}
	rate := maxMoveRate
	if in.MaxNumberOfMessagesPerSecond != nil {
		rate = *in.MaxNumberOfMessagesPerSecond
		if rate < 1 || rate > maxMoveRate {
			return "", invalidParameter("MaxNumberOfMessagesPerSecond", itoa(rate), "Must be between 1 and "+itoa(maxMoveRate)+".")
		}
	}
	var toMove *int64
	if n, err := s.counts(ctx, src); err == nil {
		v := n.Visible
		toMove = &v
	}
	taskCtx, cancel := context.WithCancel(s.bg)
	t := &moveTask{
		id:        uuid.NewString(),
		sourceARN: s.queueARN(src),
		destARN:   in.DestinationARN,
		rate:      in.MaxNumberOfMessagesPerSecond,
		started:   s.now(),
		toMove:    toMove,
		cancel:    cancel,
		status:    MoveTaskRunning,
	}
	if err := s.tasks.add(t, s.now()); err != nil {
		cancel()
		return "", err
	}
	s.wg.Add(1)
	go s.runMoveTask(taskCtx, t, src, dst, rate)
	return t.handle(), nil
}

// taskQueue resolves a task's queue ARN (ResourceNotFoundException) and
// authorizes action on it (move tasks are for the queue's owner only).
func (s *Service) taskQueue(ctx context.Context, c Caller, action, arn, param string) (*Queue, error) {
	if _, _, _, err := ParseQueueARN(arn); err != nil {
		return nil, invalidParameter(param, arn, "Invalid queue ARN.")
	}
	q, err := s.queueForARN(ctx, c, action, arn)
	if err != nil {
		var se *Error
		if errors.As(err, &se) && se.Code == CodeQueueDoesNotExist {
			return nil, resourceNotFound(param)
		}
		return nil, err
	}
	return q, nil
}

// add registers a new task unless one is running for its source, and
// forgets old finished ones.
func (ts *moveTasks) add(t *moveTask, now time.Time) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	list := ts.bySource[t.sourceARN]
	kept := []*moveTask{t}
	for _, o := range list {
		if o.status == MoveTaskRunning || o.status == MoveTaskCancelling {
			return invalidParameter("SourceArn", t.sourceARN, "There is already a task running. Only one active task is allowed for each source queue ARN at a given time.")
		}
		if len(kept) < maxListedMoveTasks && now.Sub(o.started) < moveTaskRetention {
			kept = append(kept, o)
		}
	}
	ts.bySource[t.sourceARN] = kept
	return nil
}

// finish records how a task ended.
func (ts *moveTasks) finish(t *moveTask, status, failure string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t.status == MoveTaskCancelling {
		status, failure = MoveTaskCancelled, ""
	}
	t.status, t.failure = status, failure
}

func (ts *moveTasks) addMoved(t *moveTask, n int64) {
	ts.mu.Lock()
	t.moved += n
	ts.mu.Unlock()
}

// runMoveTask moves the source's visible messages, oldest first, one at a
// time at the task's rate. Messages in flight or delayed are left where
// they are, as is anything that arrives behind the scan.
func (s *Service) runMoveTask(ctx context.Context, t *moveTask, src, dst *Queue, rate int) {
	defer s.wg.Done()
	defer t.cancel()
	interval := time.Second / time.Duration(rate)
	next := time.Now()
	dests := map[string]*Queue{}
	sc := newQueueScanner(s.store, src)
	for {
		if ctx.Err() != nil {
			s.tasks.finish(t, MoveTaskFailed, "The task was stopped with the Herald node that ran it.")
			return
		}
		m, err := sc.next(ctx)
		if err != nil {
			s.tasks.finish(t, MoveTaskFailed, AsError(err).Code)
			return
		}
		if m == nil {
			s.tasks.finish(t, MoveTaskCompleted, "")
			return
		}
		now := s.now()
		if m.State.VisibleAt.After(now) {
			continue
		}
		to := dst
		if to == nil {
			if to, err = s.moveDestination(ctx, dests, m); err != nil {
				s.tasks.finish(t, MoveTaskFailed, AsError(err).Code)
				return
			}
		}
		if wait := time.Until(next); wait > 0 && !s.sleep(ctx, wait) {
			continue // cancelled: reported at the top of the loop
		}
		next = next.Add(interval)
		if time.Since(next) > time.Second {
			next = time.Now() // do not burst after a slow stretch
		}
		if err := s.moveMessages(ctx, src, to, []*Message{m}, "", now); err != nil {
			s.tasks.finish(t, MoveTaskFailed, AsError(err).Code)
			return
		}
		s.tasks.addMoved(t, 1)
	}
}

// moveDestination finds the queue a dead-lettered message came from.
func (s *Service) moveDestination(ctx context.Context, cache map[string]*Queue, m *Message) (*Queue, error) {
	if q, ok := cache[m.DeadLetterSourceARN]; ok {
		return q, nil
	}
	if m.DeadLetterSourceARN == "" {
		return nil, ErrInvalidParameterValue("A message in the source queue has no original source queue; give a DestinationArn.")
	}
	q, err := s.queueByARN(ctx, m.DeadLetterSourceARN)
	if err != nil {
		return nil, err
	}
	cache[m.DeadLetterSourceARN] = q
	return q, nil
}

// ListMessageMoveTasks lists this node's recent tasks of a source queue,
// newest first (MaxResults 1 to 10, default 1).
func (s *Service) ListMessageMoveTasks(ctx context.Context, c Caller, in ListMessageMoveTasksInput) ([]MessageMoveTask, error) {
	if in.SourceARN == "" {
		return nil, ErrMissingParameter("SourceArn")
	}
	src, err := s.taskQueue(ctx, c, ActListMessageMoveTasks, in.SourceARN, "SourceArn")
	if err != nil {
		return nil, err
	}
	limit := 1
	if in.MaxResults != nil {
		limit = *in.MaxResults
		if limit < 1 || limit > maxListedMoveTasks {
			return nil, invalidParameter("MaxResults", itoa(limit), "Must be between 1 and "+itoa(maxListedMoveTasks)+".")
		}
	}
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	var out []MessageMoveTask
	for _, t := range s.tasks.bySource[s.queueARN(src)] {
		if len(out) == limit {
			break
		}
		mt := MessageMoveTask{
			Status:                            t.status,
			SourceARN:                         t.sourceARN,
			DestinationARN:                    t.destARN,
			MaxNumberOfMessagesPerSecond:      t.rate,
			ApproximateNumberOfMessagesMoved:  t.moved,
			ApproximateNumberOfMessagesToMove: t.toMove,
			FailureReason:                     t.failure,
			StartedTimestamp:                  t.started,
		}
		if t.status == MoveTaskRunning {
			mt.TaskHandle = t.handle()
		}
		out = append(out, mt)
	}
	return out, nil
}

// CancelMessageMoveTask cancels a running task; it reports the messages
// moved so far, and the task ends as CANCELLED shortly after.
func (s *Service) CancelMessageMoveTask(ctx context.Context, c Caller, handle string) (int64, error) {
	if handle == "" {
		return 0, ErrMissingParameter("TaskHandle")
	}
	var h taskHandle
	b, err := base64.RawURLEncoding.DecodeString(handle)
	if err != nil || json.Unmarshal(b, &h) != nil || h.TaskID == "" {
		return 0, resourceNotFound("TaskHandle")
	}
	// The handle names its source queue: only that queue's owner may
	// cancel (the handle is not a secret; it is listed to the owner).
	if _, err := s.taskQueue(ctx, c, ActCancelMessageMoveTask, h.SourceARN, "TaskHandle"); err != nil {
		if se := AsError(err); se.Code == CodeInvalidParameterValue {
			return 0, resourceNotFound("TaskHandle")
		}
		return 0, err
	}
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	for _, t := range s.tasks.bySource[h.SourceARN] {
		if t.id != h.TaskID {
			continue
		}
		if t.status != MoveTaskRunning {
			return 0, invalidParameter("TaskHandle", handle, "Only a RUNNING task can be cancelled.")
		}
		t.status = MoveTaskCancelling
		t.cancel()
		return t.moved, nil
	}
	return 0, resourceNotFound("TaskHandle")
}
