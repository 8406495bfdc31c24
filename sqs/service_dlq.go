package sqs

import (
	"context"
)

// redrivesTo reports whether q's RedrivePolicy targets the queue of
// account and name. The region is not compared: q is listed from the
// dead-letter queue's own region, and a redrive policy never crosses
// regions (checkRedriveTarget).
func redrivesTo(q *Queue, account, name string) bool {
	p := q.Attributes.RedrivePolicy
	if p == nil {
		return false
	}
	_, a, n, err := ParseQueueARN(p.DeadLetterTargetARN)
	return err == nil && a == account && n == name
}

// deadLetterSources walks the queues of dlq's account whose names sort
// after `after`, in name order, and returns up to limit of those that use
// dlq as their dead-letter queue. It reads every queue of the account, as
// nothing indexes redrive policies; the account's queue count bounds it.
func (s *Service) deadLetterSources(ctx context.Context, dlq *Queue, after string, limit int) ([]*Queue, error) {
	var out []*Queue
	for len(out) < limit {
		page, err := s.store.ListQueues(ctx, dlq.Account, dlq.Region, "", after, maxListResults)
		if err != nil {
			return nil, AsError(err)
		}
		for _, q := range page {
			if redrivesTo(q, dlq.Account, dlq.Name) {
				out = append(out, q)
				if len(out) == limit {
					break
				}
			}
		}
		if len(page) < maxListResults {
			break
		}
		after = page[len(page)-1].Name
	}
	return out, nil
}

// ListDeadLetterSourceQueues lists the queues whose RedrivePolicy targets
// this queue. NextToken, as in ListQueues, only with MaxResults.
func (s *Service) ListDeadLetterSourceQueues(ctx context.Context, c Caller, in ListDeadLetterSourceQueuesInput) (ListQueuesOutput, error) {
	q, err := s.queueFor(ctx, c, ActListDeadLetterSourceQueues, in.QueueURL)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	limit, paged, err := pageSize(in.MaxResults, maxListResults)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	after, err := decodeNextToken(in.NextToken)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	sources, err := s.deadLetterSources(ctx, q, after, limit+1)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	var out ListQueuesOutput
	more := len(sources) > limit
	if more {
		sources = sources[:limit]
	}
	for _, src := range sources {
		out.QueueURLs = append(out.QueueURLs, QueueURL(c.Scheme, c.Host, src.Account, src.Name))
	}
	if more && paged {
		out.NextToken = encodeNextToken(sources[len(sources)-1].Name)
	}
	return out, nil
}
