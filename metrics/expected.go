package metrics

import "github.com/heraldmq/herald"

// notFoundOK is err, or nil when err only says the thing is not there: an
// answer of the engine, not a failure of it.
func notFoundOK(err error) error {
	if herald.ErrorCode(err) == herald.ENotFound {
		return nil
	}
	return err
}

// conflictOK is err, or nil when err only says the thing exists already.
func conflictOK(err error) error {
	if herald.ErrorCode(err) == herald.EConflict {
		return nil
	}
	return err
}
