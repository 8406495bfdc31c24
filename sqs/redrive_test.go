package sqs

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const dlqARN = "arn:aws:sqs:us-east-1:000000000000:dlq"

func TestParseRedrivePolicy(t *testing.T) {
	lim := DefaultLimits()
	tests := []struct {
		in    string
		count int
		code  string
	}{
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":5}`, 5, ""},
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"5"}`, 5, ""},
		{`{"maxReceiveCount":"1000","deadLetterTargetArn":"` + dlqARN + `"}`, 1000, ""},
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":1}`, 1, ""},
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":0}`, 0, CodeInvalidAttributeValue},
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":1001}`, 0, CodeInvalidAttributeValue},
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":2.5}`, 0, CodeInvalidAttributeValue},
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"x"}`, 0, CodeInvalidAttributeValue},
		{`{"deadLetterTargetArn":"` + dlqARN + `"}`, 0, CodeInvalidAttributeValue},
		{`{"maxReceiveCount":5}`, 0, CodeInvalidAttributeValue},
		{`{"deadLetterTargetArn":"arn:aws:sns:r:a:t","maxReceiveCount":5}`, 0, CodeInvalidAttributeValue},
		{`{"deadLetterTargetArn":7,"maxReceiveCount":5}`, 0, CodeInvalidAttributeValue},
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":5,"x":1}`, 0, CodeInvalidAttributeValue},
		{`{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":5} {}`, 0, CodeInvalidAttributeValue},
		{`[]`, 0, CodeInvalidAttributeValue},
		{`null`, 0, CodeInvalidAttributeValue},
		{`not json`, 0, CodeInvalidAttributeValue},
	}
	for _, tt := range tests {
		p, err := ParseRedrivePolicy(tt.in, lim)
		wantCode(t, err, tt.code)
		if tt.code == "" && (p.DeadLetterTargetARN != dlqARN || p.MaxReceiveCount != tt.count) {
			t.Errorf("ParseRedrivePolicy(%s) = %+v", tt.in, p)
		}
	}
	want := `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":5}`
	if got := (RedrivePolicy{dlqARN, 5}).String(); got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}

func TestParseRedriveAllowPolicy(t *testing.T) {
	lim := DefaultLimits()
	arns := func(n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf(`"arn:aws:sqs:r:000000000000:q%d"`, i))
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	tests := []struct {
		in   string
		perm string
		n    int
		code string
	}{
		{`{"redrivePermission":"allowAll"}`, RedriveAllowAll, 0, ""},
		{`{"redrivePermission":"denyAll"}`, RedriveDenyAll, 0, ""},
		{`{"redrivePermission":"byQueue","sourceQueueArns":` + arns(1) + `}`, RedriveByQueue, 1, ""},
		{`{"redrivePermission":"byQueue","sourceQueueArns":` + arns(10) + `}`, RedriveByQueue, 10, ""},
		{`{"redrivePermission":"byQueue","sourceQueueArns":` + arns(11) + `}`, "", 0, CodeInvalidAttributeValue},
		{`{"redrivePermission":"byQueue","sourceQueueArns":[]}`, "", 0, CodeInvalidAttributeValue},
		{`{"redrivePermission":"byQueue"}`, "", 0, CodeInvalidAttributeValue},
		{`{"redrivePermission":"allowAll","sourceQueueArns":` + arns(1) + `}`, "", 0, CodeInvalidAttributeValue},
		{`{"redrivePermission":"byQueue","sourceQueueArns":["nope"]}`, "", 0, CodeInvalidAttributeValue},
		{`{"redrivePermission":"byQueue","sourceQueueArns":"x"}`, "", 0, CodeInvalidAttributeValue},
		{`{"redrivePermission":"sometimes"}`, "", 0, CodeInvalidAttributeValue},
		{`{"sourceQueueArns":` + arns(1) + `}`, "", 0, CodeInvalidAttributeValue},
		{`{}`, "", 0, CodeInvalidAttributeValue},
		{`nope`, "", 0, CodeInvalidAttributeValue},
	}
	for _, tt := range tests {
		p, err := ParseRedriveAllowPolicy(tt.in, lim)
		wantCode(t, err, tt.code)
		if tt.code == "" && (p.RedrivePermission != tt.perm || len(p.SourceQueueARNs) != tt.n) {
			t.Errorf("ParseRedriveAllowPolicy(%s) = %+v", tt.in, p)
		}
	}
	p := RedriveAllowPolicy{RedriveByQueue, []string{dlqARN}}
	if got, want := p.String(), `{"redrivePermission":"byQueue","sourceQueueArns":["`+dlqARN+`"]}`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
	if got := (RedriveAllowPolicy{RedrivePermission: RedriveAllowAll}).String(); got != `{"redrivePermission":"allowAll"}` {
		t.Errorf("String = %s", got)
	}
	round, err := ParseRedriveAllowPolicy(p.String(), lim)
	if err != nil || !slices.Equal(round.SourceQueueARNs, p.SourceQueueARNs) {
		t.Errorf("round trip = %+v, %v", round, err)
	}
}
