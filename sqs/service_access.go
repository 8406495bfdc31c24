package sqs

import "context"

// CheckAccess reports whether c may take action (one of the Act
// constants) on the queue at queueURL, as that action itself would be
// authorized, without taking it: nil, QueueDoesNotExist, or AccessDenied.
// The WebSocket gateway asks it before pushing a queue to a device.
func (s *Service) CheckAccess(ctx context.Context, c Caller, action, queueURL string) error {
	_, err := s.queueFor(ctx, c, action, queueURL)
	return err
}
