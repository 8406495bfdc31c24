package sqs_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

const dlqARN = "arn:aws:sqs:us-east-1:000000000000:dead"

// dlqSetup makes a dead-letter queue and a source queue redriving to it
// after maxReceiveCount receives.
func dlqSetup(t *testing.T, e *env, maxReceiveCount string) (src, dlq string) {
	t.Helper()
	dlq = e.createQueue(t, "dead", nil)
	src = e.createQueue(t, "source", map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"` + maxReceiveCount + `"}`,
	})
	return src, dlq
}

func TestDeadLetterAfterMaxReceiveCount(t *testing.T) {
	e := newEnv(t)
	src, dlq := dlqSetup(t, e, "2")
	sent := e.send(t, src, "poison")
	var firstReceive string
	for i := 1; i <= 2; i++ {
		got := e.receive(t, src, 1, ptr(0))
		if len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != itoa(i) {
			t.Fatalf("receive %d: %+v", i, got)
		}
		if i == 1 {
			firstReceive = got[0].Attributes["ApproximateFirstReceiveTimestamp"]
		}
		e.advance(time.Second)
	}
	if got := e.receive(t, src, 1, ptr(0)); len(got) != 0 {
		t.Fatalf("third receive delivered %v instead of dead-lettering", bodies(got))
	}
	moved := e.receive(t, dlq, 1, nil)
	if len(moved) != 1 {
		t.Fatal("nothing in the dead-letter queue")
	}
	m := moved[0]
	if m.MessageID != sent.MessageID || m.Body != "poison" {
		t.Fatalf("dead-lettered %+v", m)
	}
	// As on AWS, the receive count goes on from the source queue's (two
	// receives and the one that moved it), and the first receive time is
	// the source queue's.
	if m.Attributes["DeadLetterQueueSourceArn"] != "arn:aws:sqs:us-east-1:000000000000:source" ||
		m.Attributes["ApproximateReceiveCount"] != "4" || m.Attributes["ApproximateFirstReceiveTimestamp"] != firstReceive ||
		m.Attributes["SentTimestamp"] != strconv.FormatInt(e.clock.Now().Add(-2*time.Second).UnixMilli(), 10) {
		t.Fatalf("dead-letter attributes %v, want receive count 4, first receive %s", m.Attributes, firstReceive)
	}
	e.advance(time.Hour)
	if got := e.receive(t, src, 1, nil); len(got) != 0 {
		t.Fatalf("source still holds %v", bodies(got))
	}

	out, err := e.svc.ListDeadLetterSourceQueues(e.ctx, caller, sqs.ListDeadLetterSourceQueuesInput{QueueURL: dlq})
	wantCode(t, err, "")
	if !slices.Equal(out.QueueURLs, []string{src}) {
		t.Fatalf("dead-letter sources %v", out.QueueURLs)
	}
}

func TestListDeadLetterSourceQueuesPages(t *testing.T) {
	e := newEnv(t)
	dlq := e.createQueue(t, "dead", nil)
	var want []string
	for _, n := range []string{"s1", "s2", "s3"} {
		want = append(want, e.createQueue(t, n, map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":5}`}))
	}
	e.createQueue(t, "unrelated", nil)
	var got []string
	in := sqs.ListDeadLetterSourceQueuesInput{QueueURL: dlq, MaxResults: ptr(2)}
	for i := 0; i < 5; i++ {
		out, err := e.svc.ListDeadLetterSourceQueues(e.ctx, caller, in)
		wantCode(t, err, "")
		got = append(got, out.QueueURLs...)
		if out.NextToken == "" {
			break
		}
		in.NextToken = out.NextToken
	}
	if !slices.Equal(got, want) {
		t.Fatalf("sources %v, want %v", got, want)
	}
}

func TestRedriveAllowPolicyIsEnforced(t *testing.T) {
	e := newEnv(t)
	e.createQueue(t, "dead", map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`})
	_, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "source", Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"2"}`,
	}})
	wantCode(t, err, sqs.CodeInvalidParameterValue)
}

func TestMessageMoveTaskReturnsMessages(t *testing.T) {
	e := newEnv(t, shards(3))
	src, dlq := dlqSetup(t, e, "1")
	for _, b := range []string{"x", "y", "z"} {
		e.send(t, src, b)
	}
	for i := 0; i < 2; i++ {
		e.receive(t, src, 10, ptr(0)) // the second receive dead-letters them
	}
	if n := e.attributes(t, dlq, "ApproximateNumberOfMessages")["ApproximateNumberOfMessages"]; n != "3" {
		t.Fatalf("dead-letter queue holds %s messages, want 3", n)
	}

	_, err := e.svc.StartMessageMoveTask(e.ctx, caller, sqs.StartMessageMoveTaskInput{SourceARN: "arn:aws:sqs:us-east-1:000000000000:source"})
	wantCode(t, err, sqs.CodeInvalidParameterValue) // not a dead-letter queue
	_, err = e.svc.StartMessageMoveTask(e.ctx, caller, sqs.StartMessageMoveTaskInput{SourceARN: "arn:aws:sqs:us-east-1:000000000000:missing"})
	wantCode(t, err, sqs.CodeResourceNotFound)
	_, err = e.svc.StartMessageMoveTask(e.ctx, caller, sqs.StartMessageMoveTaskInput{SourceARN: dlqARN, MaxNumberOfMessagesPerSecond: ptr(501)})
	wantCode(t, err, sqs.CodeInvalidParameterValue)

	handle, err := e.svc.StartMessageMoveTask(e.ctx, caller, sqs.StartMessageMoveTaskInput{SourceARN: dlqARN})
	wantCode(t, err, "")
	if handle == "" {
		t.Fatal("no task handle")
	}
	var task sqs.MessageMoveTask
	deadline := time.Now().Add(5 * time.Second)
	for {
		tasks, err := e.svc.ListMessageMoveTasks(e.ctx, caller, sqs.ListMessageMoveTasksInput{SourceARN: dlqARN})
		wantCode(t, err, "")
		if len(tasks) != 1 {
			t.Fatalf("tasks %+v", tasks)
		}
		task = tasks[0]
		if task.Status != sqs.MoveTaskRunning || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if task.Status != sqs.MoveTaskCompleted || task.ApproximateNumberOfMessagesMoved != 3 || task.TaskHandle != "" {
		t.Fatalf("task %+v", task)
	}
	if task.ApproximateNumberOfMessagesToMove == nil || *task.ApproximateNumberOfMessagesToMove != 3 {
		t.Fatalf("ApproximateNumberOfMessagesToMove %v", task.ApproximateNumberOfMessagesToMove)
	}
	_, err = e.svc.CancelMessageMoveTask(e.ctx, caller, handle)
	wantCode(t, err, sqs.CodeInvalidParameterValue) // no longer running

	back := e.receive(t, src, 10, nil)
	got := bodies(back)
	slices.Sort(got)
	if !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Fatalf("source received %v after the move", got)
	}
	for _, m := range back {
		if _, ok := m.Attributes["DeadLetterQueueSourceArn"]; ok {
			t.Fatalf("moved-back message still names a dead-letter source: %v", m.Attributes)
		}
	}
	if left := e.receive(t, dlq, 10, nil); len(left) != 0 {
		t.Fatalf("dead-letter queue still holds %v", bodies(left))
	}
}

func TestCancelMessageMoveTask(t *testing.T) {
	e := newEnv(t)
	src, _ := dlqSetup(t, e, "1")
	for i := 0; i < 20; i++ {
		e.send(t, src, "m")
	}
	for i := 0; i < 4; i++ {
		e.receive(t, src, 10, ptr(0))
	}
	handle, err := e.svc.StartMessageMoveTask(e.ctx, caller, sqs.StartMessageMoveTaskInput{SourceARN: dlqARN, MaxNumberOfMessagesPerSecond: ptr(1)})
	wantCode(t, err, "")
	_, err = e.svc.StartMessageMoveTask(e.ctx, caller, sqs.StartMessageMoveTaskInput{SourceARN: dlqARN})
	wantCode(t, err, sqs.CodeInvalidParameterValue) // one running task per source
	_, err = e.svc.CancelMessageMoveTask(e.ctx, caller, handle)
	wantCode(t, err, "")
	_, err = e.svc.CancelMessageMoveTask(e.ctx, caller, "bogus")
	wantCode(t, err, sqs.CodeResourceNotFound)
	deadline := time.Now().Add(5 * time.Second)
	for {
		tasks, err := e.svc.ListMessageMoveTasks(e.ctx, caller, sqs.ListMessageMoveTasksInput{SourceARN: dlqARN})
		wantCode(t, err, "")
		if tasks[0].Status == sqs.MoveTaskCancelled {
			if tasks[0].ApproximateNumberOfMessagesMoved >= 20 {
				t.Fatalf("cancelled task moved everything: %+v", tasks[0])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task not cancelled: %+v", tasks[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
