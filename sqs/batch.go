package sqs

// ValidateBatchEntryIDs checks the Id of every entry of a *Batch request:
// at least one entry (EmptyBatchRequest), at most lim.MaxBatchEntries
// (TooManyEntriesInBatchRequest), each Id 1 to lim.MaxBatchEntryIDLen
// alphanumerics, hyphens or underscores (InvalidBatchEntryId), and no Id
// twice (BatchEntryIdsNotDistinct).
func ValidateBatchEntryIDs(ids []string, lim Limits) error {
	if len(ids) == 0 {
		return NewError(CodeEmptyBatchRequest, "There should be at least one entry in the request.")
	}
	if len(ids) > lim.MaxBatchEntries {
		return NewError(CodeTooManyEntriesInBatchRequest, "Maximum number of entries per request are %d. You have sent %d.", lim.MaxBatchEntries, len(ids))
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !validBatchEntryID(id, lim.MaxBatchEntryIDLen) {
			return NewError(CodeInvalidBatchEntryID, "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most %d letters long.", lim.MaxBatchEntryIDLen)
		}
		if seen[id] {
			return NewError(CodeBatchEntryIdsNotDistinct, "Id %s repeated.", id)
		}
		seen[id] = true
	}
	return nil
}

func validBatchEntryID(id string, maxLen int) bool {
	if len(id) == 0 || len(id) > maxLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isNameChar(id[i]) {
			return false
		}
	}
	return true
}

// CheckBatchSize returns BatchRequestTooLong when the summed message sizes of
// a SendMessageBatch exceed lim.MaxBatchPayloadBytes.
func CheckBatchSize(total int, lim Limits) error {
	if total > lim.MaxBatchPayloadBytes {
		return NewError(CodeBatchRequestTooLong, "Batch requests cannot be longer than %d bytes. You have sent %d bytes.", lim.MaxBatchPayloadBytes, total)
	}
	return nil
}
