package sqs

import (
	"strings"
	"testing"
)

func TestValidateBatchEntryIDs(t *testing.T) {
	lim := DefaultLimits()
	ten := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	tests := []struct {
		name string
		ids  []string
		code string
	}{
		{"one", []string{"a"}, ""},
		{"ten", ten, ""},
		{"max length", []string{strings.Repeat("x", 80)}, ""},
		{"empty", nil, CodeEmptyBatchRequest},
		{"eleven", append(ten, "10"), CodeTooManyEntriesInBatchRequest},
		{"too long", []string{strings.Repeat("x", 81)}, CodeInvalidBatchEntryID},
		{"blank", []string{""}, CodeInvalidBatchEntryID},
		{"bad char", []string{"a.b"}, CodeInvalidBatchEntryID},
		{"duplicate", []string{"a", "b", "a"}, CodeBatchEntryIdsNotDistinct},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, ValidateBatchEntryIDs(tt.ids, lim), tt.code)
		})
	}
}

func TestCheckBatchSize(t *testing.T) {
	lim := DefaultLimits()
	wantCode(t, CheckBatchSize(lim.MaxBatchPayloadBytes, lim), "")
	wantCode(t, CheckBatchSize(lim.MaxBatchPayloadBytes+1, lim), CodeBatchRequestTooLong)
}
